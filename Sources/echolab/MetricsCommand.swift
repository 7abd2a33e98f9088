import ArgumentParser
import EchoLabJSON
import Metrics
import Evaluation

struct MetricsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Score echo cancellation from WAV files; prints the metrics object as JSON.",
        discussion: "All files must share one sample rate and hold audio (0 frames is an error); multichannel files need --channel. Files of different lengths are scored on their overlap, with a warning on stderr and a length_mismatch object in the JSON; a difference beyond 1 s or 10 % of the longest file (the smaller) is an error (exit 1). ERL = reference power over echo power at the mic (the echo file if given, else the mic) over far-end single-talk frames, and where there are none because the echo stays under the mic's noise in 20 or more frames where the far end plays alone (a headset), over those (erl_analysis_frames), as a lower bound (erl_is_lower_bound: the mic, or the echo file's own noise, stands for the echo there); ERLE = mic power over processed power over the same frames. Without --echo and --near-end (a recording: mic and loopback only) double talk is found by an offline fit of the echo path (gate.method echo_path_fit): a frame whose mic the fitted echo cannot explain is near-end speech. With --near-end, or --echo alone (mic − echo is then the near end: the talker with the mic's noise, gate.method mic_minus_echo), near_end reports the near talker's attenuation and distortion in double talk; a near end removed entirely reads as lost, its attenuation the bound the output allows (attenuation_is_lower_bound); without it, near_end_estimate compares the output with the near talker the tap-free gate hears, in double talk and (single_talk_…) while the talker is alone (frames where the output is 20 dB or more under it are lost). Where the output falls under the mic's noise floor or digital silence, its residual cannot be measured and ERLE is a lower bound at the mic's level over that floor (erle_is_lower_bound, erle_steady_is_lower_bound). telephony holds the terminal test labs' figures: TCLw (TS 26.132's weighted terminal coupling loss, reference to processed in 1/3 octaves 315–6300 Hz over the steady far-end single talk, against TS 26.131's 46 dB, never met on fewer than half of the bands the far end reaches: band_coverage) and, with --near-end or --echo, the double-talk report (the send attenuation range and its ITU-T P.340 category, the share and level difference of double talk and of the far-end single talk around it). Every figure carries its analysis frames; one on fewer than 20 is low-confidence. clipped_samples counts the mic's and the reference's samples at or over full scale (a warning on stderr names a file that clipped, a float file that went over full scale, or one that is digital silence throughout). Where ERL and ERLE are null, echo_unmeasured says why (no far-end single talk: the files are shorter than an analysis frame, or, without --echo and --near-end, than a fit of the echo path needs (a third to half a second of audio without a talker or loud noise); the echo lies outside the 0–500 ms delay search, as when the loopback was recorded late — also warned on stderr; the loopback is digital silence; the far end never reached the mic above its noise; the echo path fitted does not explain the echo; no echo above the noise where the near end is silent, and the near end talks over the rest; or the near end talks over all of it); where ERLE alone is null, why (the echo at the mic under its floor; or under the mic's noise wherever the far end plays alone, ERL then a bound). The processed file is aligned with the mic before scoring: its lag behind the mic (a canceller's latency, 0 to 500 ms) is estimated from the two files (GCC-PHAT over the first minute; where the mic explains under half as much of the output at its peak as at the plain correlation's, the plain peak's lag), said on stderr when it is not 0, and reported as processed_lag_ms (processed_lag_source: estimated, given, or not_found when the output shares too little with the mic to tell, or is under a second: scored unshifted, with a warning); a clear lag outside 0–500 ms (the search reaches 1 s either way) is an error. --processed-lag-ms gives it instead (a warning says where the files' own estimate differs by more than 1 ms). Where delay_ms is null, delay_unmeasured says why (the echo outside the search; a tonal far end — a tone, a held chord — whose delay repeats at every period of its notes, also warned on stderr; no echo above the mic's noise where the near end is silent, so a lag that stands out cannot be told from the signals' likeness; or no lag standing out). Where convergence_s is null beside a steady ERLE, convergence_unmeasured says why (the steady ERLE is 6 dB or less, or the ERLE had not settled when the files end); convergence_is_lower_bound marks one whose steady ERLE or a window from then on is a bound at the mic's floor (it settled then or later). The echo and near-end tracks must hold the mic's parts sample for sample: one that leads or lags the mic is warned of on stderr (a run's echo.wav and near.wav through a pass-through custom mic lead its mic.wav). See docs/metrics.md for every definition. Exit codes: 0 success; 1 bad input, or the JSON could not be written to stdout (a full disk, a reader that went away; one line on stderr); 64 usage error; 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (nothing printed)."
    )

    @Option(help: "What the loudspeaker played (the far end; a recording's loopback).")
    var reference: String
    @Option(help: "What the microphone captured (the canceller's input).")
    var mic: String
    @Option(help: "The canceller's output (aligned with the mic before scoring: see --processed-lag-ms).")
    var processed: String
    @Option(help: "Echo alone at the microphone, if known (a simulation tap); without it, ERL is measured on the mic.")
    var echo: String?
    @Option(name: .customLong("near-end"),
            help: "Near-end talker alone at the microphone, if known: gates double talk exactly and adds near_end; without it, double talk is found by an echo-path fit.")
    var nearEnd: String?
    @OptionGroup
    var channel: ChannelOptions
    // `.unconditional`: `--processed-lag-ms -5` is a bad value to report, not a missing one.
    @Option(name: .customLong("processed-lag-ms"), parsing: .unconditional,
            help: ArgumentHelp("How far the processed file lags the mic, 0 to 500 ms, used instead of the estimate (a warning says where the files' own estimate differs by more than 1 ms).", valueName: "ms"))
    var processedLagMilliseconds: Double?
    @OptionGroup
    var scoring: ScorerOptions

    func validate() throws {
        _ = try scoring.resolved
        // An empty path would be named by nothing in the file error ("echolab: : cannot open …").
        for (option, path) in [("reference", reference), ("mic", mic), ("processed", processed), ("echo", echo), ("near-end", nearEnd)] {
            if path?.isEmpty == true { throw ValidationError("--\(option) must name a WAV file (got an empty string)") }
        }
        if let lag = processedLagMilliseconds, !ProcessedLag.isPossible(milliseconds: lag) {
            throw ValidationError("--processed-lag-ms must be a number from 0 to \(Int(ProcessedLag.maximumMilliseconds)) (got \(lag))")
        }
    }

    func run() throws {
        // A long recording takes seconds to read three times over (and scorers minutes): a
        // signal stops the command within a block's reading, with nothing printed.
        Interrupts.install()
        let json: String
        do {
            let files = RecordedFiles(reference: reference, mic: mic, processed: processed, echo: echo, nearEnd: nearEnd,
                                      channel: try channel.selection)
            let result = try RecordingMetrics.measure(files, processedLagMilliseconds: processedLagMilliseconds,
                                                      scorers: try scoring.resolved, scorerTimeout: scoring.timeout,
                                                      cancellation: Interrupts.cancellation) { notice in
                standardError("echolab metrics: \(notice)")
            }
            ScorerOptions.warnUnscored(result.scores, command: "metrics")
            json = result.json().canonicalText()
            // A signal after the figures were done, while the JSON was built, must not let it be printed.
            if Interrupts.cancellation.isCancelled { throw RecordingMetrics.Cancelled(whileScoring: false) }
        } catch let cancelled as RecordingMetrics.Cancelled {
            standardError("echolab: \(processed): \(cancelled); nothing printed")
            throw ExitCode(Interrupts.exitCode ?? 130)
        } catch {
            throw CommandFailure.exit(error)
        }
        try writeStandardOutput(json, what: "the metrics JSON")
    }
}
