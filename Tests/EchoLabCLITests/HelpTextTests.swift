import EchoLabTestSupport
import Foundation
import XCTest

/// Whole help and usage-error texts of the built `echolab`, compared as swift-argument-parser's
/// own tests compare them (`AssertHelp`, `AssertExecuteCommand`): every line, so that a flag,
/// a help string, a default or a listed value that goes missing or changes shows up here.
///
/// argument-parser wraps help at the terminal's width: COLUMNS when it is set, else the width
/// of stdout when it is a terminal, else 80. The binary's stdout is a pipe here; COLUMNS is set
/// to 80 for the child (it inherits the test's environment) so that a COLUMNS of the shell that
/// runs the tests changes nothing.
final class HelpTextTests: XCTestCase {
    private var savedColumns: String?

    override func setUp() {
        super.setUp()
        savedColumns = ProcessInfo.processInfo.environment["COLUMNS"]
        setenv("COLUMNS", "80", 1)
    }

    override func tearDown() {
        if let savedColumns { setenv("COLUMNS", savedColumns, 1) } else { unsetenv("COLUMNS") }
        super.tearDown()
    }

    /// `echolab help COMMAND…`, `echolab COMMAND… --help` and `-h` all print `expected` on
    /// stdout, nothing on stderr, and exit 0.
    private func assertHelp(_ command: [String], _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for arguments in [["help"] + command, command + ["--help"], command + ["-h"]] {
            let result = try runEchoLab(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments)", file: file, line: line)
            XCTAssertEqual(result.standardOutput, expected, "\(arguments)", file: file, line: line)
            XCTAssertEqual(result.standardError, "", "\(arguments)", file: file, line: line)
        }
    }

    /// `echolab ARGUMENTS…` is a usage error: exit 64, `expected` on stderr (the message, then
    /// the usage line), nothing on stdout. Run in an empty folder: a usage error touches no file,
    /// and none of the paths named has to exist.
    private func assertUsageError(_ arguments: [String], _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try runEchoLab(arguments, in: folder)
        XCTAssertEqual(result.status, 64, "\(arguments)", file: file, line: line)
        XCTAssertEqual(result.standardError, expected, "\(arguments)", file: file, line: line)
        XCTAssertEqual(result.standardOutput, "", "\(arguments)", file: file, line: line)
        XCTAssertEqual(allFiles(under: folder), [], "\(arguments)", file: file, line: line)
    }

    func testRootHelp() throws {
        try assertHelp([], """
        OVERVIEW: Runs VoIP custom-audio-device pipelines offline on a virtual clock
        and measures echo cancellation.

        A scenario file describes one call: far end, near end, noise, echo path, AEC
        mode, the custom mic and speaker in use and a timeline of device switches.
        `echolab run` simulates it much faster than real time, bit-for-bit
        reproducibly, and writes the taps and a report. `echolab metrics` scores any
        recorded WAVs the same way, `echolab process` runs a canceller on a recording,
        `echolab eval` compares AEC modes over a corpus of scenarios and recordings,
        and `echolab compare` gates CI on a baseline. Exit codes: 0 success; 1 bad
        input, a failed run or (compare) a regression; 2 compare cannot read a file; 3
        a check failed (golden vectors, findings with --strict); 64 usage error;
        129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (compare and vectors generate,
        which take a moment, are ended by the signal itself). Each command's help gives
        its own.

        USAGE: echolab <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          run                     Simulate one call from a scenario file and write its
                                  taps and reports.
          process                 Run a canceller on a recorded mic and loopback and
                                  write its output (WebRTC's audioproc_f job).
          metrics                 Score echo cancellation from WAV files; prints the
                                  metrics object as JSON.
          eval                    Run a corpus in one or more AEC modes and write a
                                  report per run plus eval.json, eval.md and eval.html.
          merge                   Join the output folders of eval --shard 1/N … N/N
                                  into what one unsharded eval writes.
          compare                 Compare two eval.json files item × mode; print a
                                  Markdown diff and fail on a regression.
          vectors                 Recreate, re-measure or check the golden test vectors.

          See 'echolab help <subcommand>' for detailed help.

        """)
    }

    func testRunHelp() throws {
        try assertHelp(["run"], """
        OVERVIEW: Simulate one call from a scenario file and write its taps and
        reports.

        Writes into the output folder: the taps mic.wav, reference.wav, echo.wav and
        sent.wav (plus near.wav and played.wav with --all-taps, none with --no-taps),
        report.json, report.md and report.html (with --scorer, the scorers' scores of
        the call per talk type: docs/scorers.md). Files appear only whole (written
        under hidden names, then moved into place); on error nothing new is left
        behind. The output folder must not hold the scenario or any file it reads;
        files of an earlier run there are replaced, and deleted only if that run's
        report.json lists them as its own. The folder is locked while the run writes
        it: a run or an eval into a folder another is writing is refused (exit 1) and
        touches nothing. Exit codes: 0 success; 1 bad input or a failed run; 3 lint
        findings with --strict; 64 usage error; 129/130/143 interrupted by
        SIGHUP/SIGINT/SIGTERM (nothing new left behind).

        USAGE: echolab run <scenario> --out <out> [--no-taps] [--all-taps] [--strict] [--aec <mode>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>]

        ARGUMENTS:
          <scenario>              The scenario file (JSON; see docs/scenarios.md).

        OPTIONS:
          -o, --out <out>         Output folder (created if needed; must not hold the
                                  scenario or a file it reads).
          --no-taps               Write no WAV taps, only the reports. (Without
                                  --no-taps or --all-taps: mic.wav, reference.wav,
                                  echo.wav and sent.wav.)
          --all-taps              Also write near.wav (near end + noise at the mic) and
                                  played.wav (the loudspeaker).
          --strict                Exit with code 3 when the lint finds a broken AEC
                                  rule (without it, findings are reported and the exit
                                  code is 0). A missed telephony requirement
                                  (echo-loss-below-ts26131) and the canceller's own
                                  findings (echo-leak-after-route-change,
                                  echo-leak-after-mic-switch, clock-drift-not-followed)
                                  are reported as findings but are not the lint's: they
                                  leave the exit code alone. So does
                                  aec-disabled-with-real-devices where --aec turned the
                                  canceller off (the reference run asked for).
          --aec <mode>            Run in this AEC mode instead of the scenario's own
                                  aec (without it, the scenario's); a --plugin's as
                                  NAME:INTENSITY. (values: disabled,
                                  speex:intensityMin, speex:intensityRecommended,
                                  speex:intensityMax, speex:intensityAdaptive,
                                  webrtc:intensityMin, webrtc:intensityRecommended,
                                  webrtc:intensityMax, webrtc:intensityAdaptive,
                                  webrtc-mobile:intensityMin,
                                  webrtc-mobile:intensityRecommended,
                                  webrtc-mobile:intensityMax,
                                  webrtc-mobile:intensityAdaptive, aec3:intensityMin,
                                  aec3:intensityRecommended, aec3:intensityMax,
                                  aec3:intensityAdaptive, echolab:intensityMin,
                                  echolab:intensityRecommended, echolab:intensityMax,
                                  echolab:intensityAdaptive)
                The scenario's filter_ms goes with its aec. A timeline set_aec that
                enables the canceller takes the mode's intensity; one that disables it
                stays.
          --plugin <name=path>    Register a canceller plugin (repeatable): a shared
                                  library exporting echolab_canceller_entry
                                  (Sources/CEchoLabPluginHost/include/echolab_canceller.h
                                  in the repository, docs/plugins.md), run in a child
                                  process of its own; its modes are NAME:INTENSITY.
                A plugin that crashes, hangs, returns an error or writes NaN, Inf or a
                sample of ±2^20 (+120 dBFS) or more fails the runs it is in with a
                one-line error (an eval's other runs complete). PATH is relative to the
                current folder; one that is missing or a folder is a usage error.
          --plugin-options <name=json>
                                  A JSON object handed to plugin NAME's create
                                  (repeatable, one per plugin; without it, NULL).
          --plugin-rate <name=hz> The rate plugin NAME runs at: 8000, 16000, 32000 or
                                  48000 (repeatable; without it, 48000), resampled
                                  around it.
          --scorer <name=program> Score each run with a program (repeatable): PROGRAM,
                                  run by /bin/sh -c, reads one JSON request per line
                                  and answers one per line (docs/scorers.md); its
                                  scores are reported under NAME. 'aecmos' alone is the
                                  reference scorer, the AEC Challenge's AECMOS (after
                                  `make scorers`).
                A scorer that exits, hangs or answers something else leaves its scores
                null with the reason; the run stands.
          --scorer-timeout <seconds>
                                  Seconds a scorer may take to answer one request (its
                                  first answer includes its start). (default: 60.0)
          --version               Show the version.
          -h, --help              Show help information.


        """)
    }

    func testProcessHelp() throws {
        try assertHelp(["process"], """
        OVERVIEW: Run a canceller on a recorded mic and loopback and write its output
        (WebRTC's audioproc_f job).

        Nothing is simulated: the recorded microphone and the loopback (what the
        loudspeaker played) go straight to the canceller. The output has the
        microphone's rate and length and is aligned with it sample for sample: the
        canceller's processing latency is removed, and printed. It runs at the
        microphone's rate where the backend can (speex: any multiple of 100 Hz; webrtc:
        8, 16, 32 or 48 kHz; webrtc-mobile: any multiple of 100 Hz, resampled to 16 kHz
        inside; aec3: 16, 32 or 48 kHz; echolab: any multiple of 100 Hz from 8 kHz;
        disabled: any rate, the mic's samples pass through unchanged), else at 48 kHz
        and back; a plugin runs at its own rate (--plugin-rate, else 48 kHz), the mic
        resampled to it and back. A loopback at another rate than the microphone is
        resampled to the canceller's rate, with a warning on stderr (a device records
        both at one rate: another rate usually means a file of another recording). A
        loopback shorter than the microphone is continued with silence, a longer one is
        cut; either, beyond 10 ms, is warned about on stderr, as is an echo in the mic
        that comes before the loopback (one recorded late: no canceller removes it).
        With --scorer, the output is scored per talk type (found by the tap-free gate)
        and printed, one line per scorer and talk type. Score the result with `echolab
        metrics --reference R --mic M --processed OUT` (metrics needs one rate:
        resample such a loopback to the mic's first). Another process writing the same
        --out is refused (exit 1): the file is one process's whole output. Exit codes:
        0 done; 1 bad input or an unwritable output (one line naming the file); 64
        usage error; 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (no output left).

        USAGE: echolab process --mic <mic> --reference <reference> --out <out> [--aec <mode>] [--channel <N|downmix>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>]

        OPTIONS:
          --mic <mic>             The recorded microphone (the canceller's capture
                                  input).
          --reference <reference> The loopback: what the loudspeaker played (the
                                  canceller's reference).
          -o, --out <out>         The output WAV (Float32, the microphone's rate; never
                                  seen half-written; not one of the inputs).
          --aec <mode>            The canceller: disabled (the mic passes through) or
                                  BACKEND:INTENSITY, a --plugin's as NAME:INTENSITY.
                                  (values: disabled, speex:intensityMin,
                                  speex:intensityRecommended, speex:intensityMax,
                                  speex:intensityAdaptive, webrtc:intensityMin,
                                  webrtc:intensityRecommended, webrtc:intensityMax,
                                  webrtc:intensityAdaptive, webrtc-mobile:intensityMin,
                                  webrtc-mobile:intensityRecommended,
                                  webrtc-mobile:intensityMax,
                                  webrtc-mobile:intensityAdaptive, aec3:intensityMin,
                                  aec3:intensityRecommended, aec3:intensityMax,
                                  aec3:intensityAdaptive, echolab:intensityMin,
                                  echolab:intensityRecommended, echolab:intensityMax,
                                  echolab:intensityAdaptive; default:
                                  speex:intensityRecommended)
          --channel <N|downmix>   For multichannel recordings: the channel to take,
                                  counted from 0, or downmix (the mean of all
                                  channels). Without it a multichannel file is an
                                  error; mono files ignore it.
          --plugin <name=path>    Register a canceller plugin (repeatable): a shared
                                  library exporting echolab_canceller_entry
                                  (Sources/CEchoLabPluginHost/include/echolab_canceller.h
                                  in the repository, docs/plugins.md), run in a child
                                  process of its own; its modes are NAME:INTENSITY.
                A plugin that crashes, hangs, returns an error or writes NaN, Inf or a
                sample of ±2^20 (+120 dBFS) or more fails the runs it is in with a
                one-line error (an eval's other runs complete). PATH is relative to the
                current folder; one that is missing or a folder is a usage error.
          --plugin-options <name=json>
                                  A JSON object handed to plugin NAME's create
                                  (repeatable, one per plugin; without it, NULL).
          --plugin-rate <name=hz> The rate plugin NAME runs at: 8000, 16000, 32000 or
                                  48000 (repeatable; without it, 48000), resampled
                                  around it.
          --scorer <name=program> Score each run with a program (repeatable): PROGRAM,
                                  run by /bin/sh -c, reads one JSON request per line
                                  and answers one per line (docs/scorers.md); its
                                  scores are reported under NAME. 'aecmos' alone is the
                                  reference scorer, the AEC Challenge's AECMOS (after
                                  `make scorers`).
                A scorer that exits, hangs or answers something else leaves its scores
                null with the reason; the run stands.
          --scorer-timeout <seconds>
                                  Seconds a scorer may take to answer one request (its
                                  first answer includes its start). (default: 60.0)
          --version               Show the version.
          -h, --help              Show help information.


        """)
    }

    func testMetricsHelp() throws {
        try assertHelp(["metrics"], """
        OVERVIEW: Score echo cancellation from WAV files; prints the metrics object as
        JSON.

        All files must share one sample rate and hold audio (0 frames is an error);
        multichannel files need --channel. Files of different lengths are scored on
        their overlap, with a warning on stderr and a length_mismatch object in the
        JSON; a difference beyond 1 s or 10 % of the longest file (the smaller) is an
        error (exit 1). ERL = reference power over echo power at the mic (the echo file
        if given, else the mic) over far-end single-talk frames, and where there are
        none because the echo stays under the mic's noise in 20 or more frames where
        the far end plays alone (a headset), over those (erl_analysis_frames), as a
        lower bound (erl_is_lower_bound: the mic, or the echo file's own noise, stands
        for the echo there); ERLE = mic power over processed power over the same
        frames. Without --echo and --near-end (a recording: mic and loopback only)
        double talk is found by an offline fit of the echo path (gate.method
        echo_path_fit): a frame whose mic the fitted echo cannot explain is near-end
        speech. With --near-end, or --echo alone (mic − echo is then the near end: the
        talker with the mic's noise, gate.method mic_minus_echo), near_end reports the
        near talker's attenuation and distortion in double talk; a near end removed
        entirely reads as lost, its attenuation the bound the output allows
        (attenuation_is_lower_bound); without it, near_end_estimate compares the output
        with the near talker the tap-free gate hears, in double talk and
        (single_talk_…) while the talker is alone (frames where the output is 20 dB or
        more under it are lost). Where the output falls under the mic's noise floor or
        digital silence, its residual cannot be measured and ERLE is a lower bound at
        the mic's level over that floor (erle_is_lower_bound,
        erle_steady_is_lower_bound). telephony holds the terminal test labs' figures:
        TCLw (TS 26.132's weighted terminal coupling loss, reference to processed in
        1/3 octaves 315–6300 Hz over the steady far-end single talk, against TS
        26.131's 46 dB, never met on fewer than half of the bands the far end reaches:
        band_coverage) and, with --near-end or --echo, the double-talk report (the send
        attenuation range and its ITU-T P.340 category, the share and level difference
        of double talk and of the far-end single talk around it). Every figure carries
        its analysis frames; one on fewer than 20 is low-confidence. clipped_samples
        counts the mic's and the reference's samples at or over full scale (a warning
        on stderr names a file that clipped, a float file that went over full scale, or
        one that is digital silence throughout). Where ERL and ERLE are null,
        echo_unmeasured says why (no far-end single talk: the files are shorter than an
        analysis frame, or, without --echo and --near-end, than a fit of the echo path
        needs (a third to half a second of audio without a talker or loud noise); the
        echo lies outside the 0–500 ms delay search, as when the loopback was recorded
        late — also warned on stderr; the loopback is digital silence; the far end
        never reached the mic above its noise; the echo path fitted does not explain
        the echo; no echo above the noise where the near end is silent, and the near
        end talks over the rest; or the near end talks over all of it); where ERLE
        alone is null, why (the echo at the mic under its floor; or under the mic's
        noise wherever the far end plays alone, ERL then a bound). The processed file
        is aligned with the mic before scoring: its lag behind the mic (a canceller's
        latency, 0 to 500 ms) is estimated from the two files (GCC-PHAT over the first
        minute; where the mic explains under half as much of the output at its peak as
        at the plain correlation's, the plain peak's lag), said on stderr when it is
        not 0, and reported as processed_lag_ms (processed_lag_source: estimated,
        given, or not_found when the output shares too little with the mic to tell, or
        is under a second: scored unshifted, with a warning); a clear lag outside 0–500
        ms (the search reaches 1 s either way) is an error. --processed-lag-ms gives it
        instead (a warning says where the files' own estimate differs by more than 1
        ms). Where delay_ms is null, delay_unmeasured says why (the echo outside the
        search; a tonal far end — a tone, a held chord — whose delay repeats at every
        period of its notes, also warned on stderr; no echo above the mic's noise where
        the near end is silent, so a lag that stands out cannot be told from the
        signals' likeness; or no lag standing out). Where convergence_s is null beside
        a steady ERLE, convergence_unmeasured says why (the steady ERLE is 6 dB or
        less, or the ERLE had not settled when the files end);
        convergence_is_lower_bound marks one whose steady ERLE or a window from then on
        is a bound at the mic's floor (it settled then or later). The echo and near-end
        tracks must hold the mic's parts sample for sample: one that leads or lags the
        mic is warned of on stderr (a run's echo.wav and near.wav through a
        pass-through custom mic lead its mic.wav). See docs/metrics.md for every
        definition. Exit codes: 0 success; 1 bad input, or the JSON could not be
        written to stdout (a full disk, a reader that went away; one line on stderr);
        64 usage error; 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (nothing
        printed).

        USAGE: echolab metrics --reference <reference> --mic <mic> --processed <processed> [--echo <echo>] [--near-end <near-end>] [--channel <N|downmix>] [--processed-lag-ms <ms>] [--scorer <name=program> ...] [--scorer-timeout <seconds>]

        OPTIONS:
          --reference <reference> What the loudspeaker played (the far end; a
                                  recording's loopback).
          --mic <mic>             What the microphone captured (the canceller's input).
          --processed <processed> The canceller's output (aligned with the mic before
                                  scoring: see --processed-lag-ms).
          --echo <echo>           Echo alone at the microphone, if known (a simulation
                                  tap); without it, ERL is measured on the mic.
          --near-end <near-end>   Near-end talker alone at the microphone, if known:
                                  gates double talk exactly and adds near_end; without
                                  it, double talk is found by an echo-path fit.
          --channel <N|downmix>   For multichannel recordings: the channel to take,
                                  counted from 0, or downmix (the mean of all
                                  channels). Without it a multichannel file is an
                                  error; mono files ignore it.
          --processed-lag-ms <ms> How far the processed file lags the mic, 0 to 500 ms,
                                  used instead of the estimate (a warning says where
                                  the files' own estimate differs by more than 1 ms).
          --scorer <name=program> Score each run with a program (repeatable): PROGRAM,
                                  run by /bin/sh -c, reads one JSON request per line
                                  and answers one per line (docs/scorers.md); its
                                  scores are reported under NAME. 'aecmos' alone is the
                                  reference scorer, the AEC Challenge's AECMOS (after
                                  `make scorers`).
                A scorer that exits, hangs or answers something else leaves its scores
                null with the reason; the run stands.
          --scorer-timeout <seconds>
                                  Seconds a scorer may take to answer one request (its
                                  first answer includes its start). (default: 60.0)
          --version               Show the version.
          -h, --help              Show help information.


        """)
    }

    func testEvalHelp() throws {
        try assertHelp(["eval"], """
        OVERVIEW: Run a corpus in one or more AEC modes and write a report per run plus
        eval.json, eval.md and eval.html.

        PATH is a scenario file or a folder of them (*.json, searched recursively; the
        output folder, hidden files, manifests and EchoLab's own JSON outputs —
        reports, eval.json, golden.json — are passed over), a manifest (a JSON file
        {"corpus": [...]} listing scenario files, folders and recordings {"name",
        "mic", "loopback", "echo", "near_end", "talk_type", "channel"}, paths relative
        to it; see docs/recordings.md), or a folder of recordings in an AEC-Challenge
        layout (synthetic: farend_speech/, nearend_mic_signal/, echo_signal/,
        nearend_speech/; real: GUID_<talk type>_mic.wav and _lpb.wav, in the folder or
        in one subfolder per talk type as the blind test sets ship them), read as they
        are and run straight through the canceller. Every item runs in every mode of
        --modes (a scenario's own aec without it; speex:intensityRecommended for a
        recording) into OUT/ITEM/MODE/, MODE written BACKEND-INTENSITY or disabled.
        OUT/eval.json holds every item × mode's metrics and, per mode, the mean, median
        and 10th percentile of steady-state and whole-call ERLE, TCLw, convergence and,
        in double talk, near-end attenuation, distortion and the attenuation range
        (each with its count and its bounds); OUT/eval.md the main of them per mode
        (steady ERLE, near-end attenuation and distortion, convergence, TCLw, the
        attenuation range). Both name each mode's wins: the items where no other mode
        beats it on both steady ERLE and near-end attenuation (the best modes, named
        first); OUT/eval.html (self-contained) adds a plot of that trade-off, a
        sortable table of every run and per item ERLE over time and per band for each
        mode, with players for the audio taps; their bytes do not depend on --jobs (but
        for timing). With --scorer every run is scored (docs/scorers.md; each worker
        starts each scorer once, for all its runs): each run's report and eval.json
        hold its scores per talk type, eval.json their mean, median and 10th percentile
        per mode, eval.md and eval.html the mean and 10th percentile, and eval.html
        AECMOS' echo score against its other-degradation score in double talk. A broken
        item is reported in one line and the others still run. Exit codes: 0 all ran; 1
        a run failed, or the corpus holds no scenario; 3 lint findings with --strict
        (every run ran); 64 usage error; 129/130/143 interrupted by
        SIGHUP/SIGINT/SIGTERM (eval.json then lists what finished and says "complete":
        false, or true where the signal came once every run had finished).

        USAGE: echolab eval <paths> ... [--out <out>] [--modes <modes>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>] [--shard <K/N>] [--jobs <jobs>] [--strict] [--no-taps]

        ARGUMENTS:
          <paths>                 Scenario files or folders, corpus manifests, or
                                  AEC-Challenge recording folders (at least one).

        OPTIONS:
          -o, --out <out>         Output folder (created if needed; must neither hold a
                                  corpus folder nor lie inside one). (default: reports)
          --modes <modes>         AEC modes to compare: all (every built-in mode and
                                  each --plugin's), or modes separated by commas, each
                                  once, a plugin's as NAME:INTENSITY (without it, each
                                  scenario's own aec and speex:intensityRecommended for
                                  a recording). (values: all, disabled,
                                  speex:intensityMin, speex:intensityRecommended,
                                  speex:intensityMax, speex:intensityAdaptive,
                                  webrtc:intensityMin, webrtc:intensityRecommended,
                                  webrtc:intensityMax, webrtc:intensityAdaptive,
                                  webrtc-mobile:intensityMin,
                                  webrtc-mobile:intensityRecommended,
                                  webrtc-mobile:intensityMax,
                                  webrtc-mobile:intensityAdaptive, aec3:intensityMin,
                                  aec3:intensityRecommended, aec3:intensityMax,
                                  aec3:intensityAdaptive, echolab:intensityMin,
                                  echolab:intensityRecommended, echolab:intensityMax,
                                  echolab:intensityAdaptive)
                Overrides each scenario's own aec (a timeline set_aec that enables the
                canceller takes the mode's intensity; one that disables it stays).
          --plugin <name=path>    Register a canceller plugin (repeatable): a shared
                                  library exporting echolab_canceller_entry
                                  (Sources/CEchoLabPluginHost/include/echolab_canceller.h
                                  in the repository, docs/plugins.md), run in a child
                                  process of its own; its modes are NAME:INTENSITY.
                A plugin that crashes, hangs, returns an error or writes NaN, Inf or a
                sample of ±2^20 (+120 dBFS) or more fails the runs it is in with a
                one-line error (an eval's other runs complete). PATH is relative to the
                current folder; one that is missing or a folder is a usage error.
          --plugin-options <name=json>
                                  A JSON object handed to plugin NAME's create
                                  (repeatable, one per plugin; without it, NULL).
          --plugin-rate <name=hz> The rate plugin NAME runs at: 8000, 16000, 32000 or
                                  48000 (repeatable; without it, 48000), resampled
                                  around it.
          --scorer <name=program> Score each run with a program (repeatable): PROGRAM,
                                  run by /bin/sh -c, reads one JSON request per line
                                  and answers one per line (docs/scorers.md); its
                                  scores are reported under NAME. 'aecmos' alone is the
                                  reference scorer, the AEC Challenge's AECMOS (after
                                  `make scorers`).
                A scorer that exits, hangs or answers something else leaves its scores
                null with the reason; the run stands.
          --scorer-timeout <seconds>
                                  Seconds a scorer may take to answer one request (its
                                  first answer includes its start). (default: 60.0)
          --shard <K/N>           Run only the K-th of N deterministic slices of items
                                  × modes (1 ≤ K ≤ N; without it, all of them); join
                                  the N outputs with merge.
          --jobs <jobs>           Runs at once, at least 1 (results do not depend on
                                  it). (default: 1)
          --strict                Exit with code 3 when the lint finds a broken AEC
                                  rule in any run, naming the rules and their runs
                                  (without it, findings are reported and the exit code
                                  is 0). The canceller's own findings and missed
                                  telephony requirements are reported but are not the
                                  lint's: they leave the exit code alone, as does
                                  aec-disabled-with-real-devices in a run --modes
                                  turned the canceller off in (the reference asked
                                  for). A failed run's exit code, 1, comes first.
          --no-taps               Do not write the WAV taps (a recording's output is
                                  scored, not kept; an earlier run's sent.wav goes).
          --version               Show the version.
          -h, --help              Show help information.


        """)
    }

    func testMergeHelp() throws {
        try assertHelp(["merge"], """
        OVERVIEW: Join the output folders of eval --shard 1/N … N/N into what one
        unsharded eval writes.

        Each SHARD is a folder written by `echolab eval --shard K/N` (or its
        eval.json). Every shard of the plan must be given once, from one `eval --shard`
        command: one corpus given by the same paths, one --modes and one EchoLab build
        (each shard's eval.json names its whole plan; shards of another plan are
        refused). OUT gets each run's folder (ITEM/MODE/, copied) and eval.json,
        eval.md and eval.html recomputed over all runs: byte-identical to an unsharded
        run's but for timing. OUT is locked while it is written, as eval locks its own.
        The runs are copied into a hidden folder in OUT first: a merge that fails
        leaves OUT's runs as they were and removes its earlier eval.json, eval.md and
        eval.html, as an eval that runs nothing does, since its exit status, 1, is also
        a merge's with failed runs (not where OUT is or lies in a shard, holds earlier
        runs waiting to be moved back, or a run folder merge may not replace); one
        interrupted before the runs move into place leaves OUT as it was (a signal once
        they move lets the merge finish and says so; the exit status is then the
        merge's). An interrupted shard makes the merge incomplete ("complete": false),
        which `compare` fails. Exit codes: 0 merged, every run succeeded; 1 merged with
        failed runs (as eval: their errors are printed and eval.json lists them) or
        with an interrupted shard (named), or a shard cannot be read, does not fit the
        others, or OUT cannot be written; 3 lint findings with --strict (every run
        merged); 64 usage error; 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM
        before the runs moved (nothing merged). See deploy/ for a CI matrix and a
        Kubernetes Indexed Job.

        USAGE: echolab merge <shards> ... --out <out> [--strict]

        ARGUMENTS:
          <shards>                The shards' output folders (or their eval.json
                                  files): every shard 1/N … N/N, once.

        OPTIONS:
          -o, --out <out>         Output folder (created if needed; not one of the
                                  shards).
          --strict                Exit with code 3 when the lint finds a broken AEC
                                  rule in any merged run, as eval --strict does over an
                                  unsharded eval (a failed run or an interrupted shard,
                                  exit 1, comes first).
          --version               Show the version.
          -h, --help              Show help information.


        """)
    }

    func testCompareHelp() throws {
        try assertHelp(["compare"], """
        OVERVIEW: Compare two eval.json files item × mode; print a Markdown diff and
        fail on a regression.

        A run regressed when its steady-state or whole ERLE fell, or its near-end
        attenuation rose, by more than --max-regression-db, over the whole call or in
        any of its device and route segments; when its TCLw fell, or its send
        attenuation range in double talk rose, by as much; when it gained a finding,
        the lint's or a missed telephony requirement's (the rule is named; a
        requirement only where the baseline measured it, and a TCLw that crosses 46 dB
        fails even by less than --max-regression-db); when a fault counter of its
        pipeline (underruns, overruns, drops, rejected frames, clipped samples,
        canceller resets, clicks or gaps in sent) rose at all, or a buffer stopped
        conserving samples; when it lost the near end entirely where the baseline kept
        it; when a figure the baseline measured is no longer measured, or stands on
        fewer than 20 analysis frames; when it failed where the baseline ran (or its
        item could not be loaded), or failed as a run only CURRENT has; when a scorer's
        score (eval --scorer) fell by more than --max-regression-mos in any talk type,
        or the run is no longer scored (the scorer failed); or when it is missing from
        CURRENT. A baseline figure on fewer than 20 analysis frames judges nothing; a
        lower bound (≥) counts only where the change is certain (ERLE or TCLw fell:
        CURRENT measured and under the baseline; attenuation rose: the baseline
        measured and CURRENT over it); a change a bound leaves uncertain is listed as
        not judged. Findings that went away are listed as improvements. Runs only
        CURRENT has that ran are listed, not judged, and so are runs measured with
        another canceller library (a version, a plugin's SHA-256) than the baseline's —
        unless --judge-library-changes, where the new library is the change to judge
        (your plugin's next build against its last) —, and scores CURRENT was not
        scored for or scored by another scorer version or model. An interrupted CURRENT
        ("complete": false) fails; the runs it did not reach are listed as not run, not
        as regressions. An interrupted BASELINE fails too: the runs it never reached
        would pass unjudged; so does a BASELINE that is one shard of an eval (eval
        --shard K/N), unless CURRENT is the same shard. An item CURRENT lists twice
        fails its second listing, a regression. Exit codes, as diff's: 0 no regression
        (an equal report included); 1 a regression; 2 a file cannot be read or is not
        an EchoLab eval.json, or the diff cannot be written to stdout (a full disk, a
        reader that went away); 64 usage error (also a --markdown or --junit file
        refused: a compared file, both the same file, a folder, pipe or device, one in
        a folder that cannot be written).

        USAGE: echolab compare <baseline> <current> [--max-regression-db <dB>] [--max-regression-mos <score>] [--markdown <file>] [--junit <file>] [--judge-library-changes]

        ARGUMENTS:
          <baseline>              The reference eval.json (e.g. the committed
                                  reports/baseline.json).
          <current>               The eval.json to judge (e.g. reports/eval.json of
                                  this change).

        OPTIONS:
          --max-regression-db <dB>
                                  Largest drop of ERLE or TCLw, or rise of near-end
                                  attenuation or its double-talk range, that still
                                  passes (dB, ≥ 0). (default: 0.5)
          --max-regression-mos <score>
                                  Largest fall of a scorer's score (such as AECMOS, in
                                  MOS) that still passes (≥ 0). (default: 0.1)
          --markdown <file>       Also write the Markdown diff to this file (never seen
                                  half-written; not one of the files compared; a
                                  missing folder is made). Without it, the diff goes to
                                  stdout only.
          --junit <file>          Also write the verdict as JUnit XML to this file, for
                                  CI test views: one test case per item × mode, its
                                  regressions as its failure, runs not judged (new in
                                  CURRENT, another library unless
                                  --judge-library-changes, not reached by an
                                  interrupted CURRENT) skipped (same rules as
                                  --markdown).
          --judge-library-changes Judge runs measured with another canceller library
                                  too (still listed as such): the new library is the
                                  change to judge — your plugin's next build against
                                  its last, a backend library's update.
          --version               Show the version.
          -h, --help              Show help information.


        """)
    }

    func testVectorsHelp() throws {
        try assertHelp(["vectors"], """
        OVERVIEW: Recreate, re-measure or check the golden test vectors.

        The vectors folder holds inputs/ (small seeded signals), scenarios/ (one
        scenario per case) and golden.json (each scenario's metrics with tolerances,
        findings (lint and requirement), pipeline counters and the SHA-256 of its
        output taps). Run each subcommand from the project's root, or give --vectors.

        USAGE: echolab vectors <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          generate                Write EchoLab's shipped seeded input signals and
                                  scenario files (bit-identical every time).
          bless                   Run every vector scenario and record its metrics and
                                  tap hashes in golden.json.
          verify                  Run every vector scenario and compare with
                                  golden.json; exit 3 on a mismatch.

          See 'echolab help vectors <subcommand>' for detailed help.

        """)
    }

    func testVectorsGenerateHelp() throws {
        try assertHelp(["vectors", "generate"], """
        OVERVIEW: Write EchoLab's shipped seeded input signals and scenario files
        (bit-identical every time).

        (Re)creates EchoLab's own vectors in VECTORS/inputs/ and VECTORS/scenarios/
        (make vectors); golden.json is left as it is. A file there of a shipped name is
        kept if it already holds those bytes; one that differs is refused before
        anything is written. Exit codes: 0 written; 1 a file cannot be written, or
        differs from the shipped file of its name; 64 usage error.

        USAGE: echolab vectors generate [--vectors <vectors>]

        OPTIONS:
          --vectors <vectors>     The vectors folder: inputs/, scenarios/ and
                                  golden.json. (default: vectors)
          --version               Show the version.
          -h, --help              Show help information.


        """)
    }

    func testVectorsBlessHelp() throws {
        try assertHelp(["vectors", "bless"], """
        OVERVIEW: Run every vector scenario and record its metrics and tap hashes in
        golden.json.

        Only after an intended change of behaviour: review the diff of golden.json.
        Each metric keeps the tolerance golden.json gave it (0.05 where it gives none).
        Two scenario files with one name are refused. Exit codes: 0 re-measured; 1 a
        scenario cannot be run, two share a name, or golden.json cannot be read or
        written (then it is left as it was); 64 usage error; 129/130/143 interrupted by
        SIGHUP/SIGINT/SIGTERM (golden.json left as it was).

        USAGE: echolab vectors bless [--vectors <vectors>]

        OPTIONS:
          --vectors <vectors>     The vectors folder: inputs/, scenarios/ and
                                  golden.json. (default: vectors)
          --version               Show the version.
          -h, --help              Show help information.


        """)
    }

    func testVectorsVerifyHelp() throws {
        try assertHelp(["vectors", "verify"], """
        OVERVIEW: Run every vector scenario and compare with golden.json; exit 3 on a
        mismatch.

        golden.json is checked first: a value that is not a number or null, a negative
        tolerance, an unknown key or schema, or a check missing from an entry is an
        error naming the key, not a difference. A scenario that cannot run (or shares
        another's name) is one line and the others are still checked. Each mismatch is
        one line on stderr. Exit codes: 0 all match; 1 golden.json missing or
        malformed, or a scenario that cannot run (also when others mismatch); 3 a
        mismatch; 64 usage error; 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM.

        USAGE: echolab vectors verify [--vectors <vectors>]

        OPTIONS:
          --vectors <vectors>     The vectors folder: inputs/, scenarios/ and
                                  golden.json. (default: vectors)
          --version               Show the version.
          -h, --help              Show help information.


        """)
    }

    func testConflictingTapFlagsError() throws {
        try assertUsageError(["run", "scenario.json", "--out", "out", "--no-taps", "--all-taps"], """
        Error: Value to be set with flag '--all-taps' had already been set with flag '--no-taps'
        Usage: echolab run <scenario> --out <out> [--no-taps] [--all-taps] [--strict] [--aec <mode>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>]
          See 'echolab run --help' for more information.

        """)
    }

    func testBadChannelError() throws {
        try assertUsageError(["process", "--mic", "mic.wav", "--reference", "lpb.wav", "--out", "out.wav", "--channel", "-1"], """
        Error: --channel takes a channel number from 0 or downmix (got -1)
        Usage: echolab process --mic <mic> --reference <reference> --out <out> [--aec <mode>] [--channel <N|downmix>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>]
          See 'echolab process --help' for more information.

        """)
    }

    /// An empty path is refused by its option's name (the file error named nothing: "echolab: : …").
    func testEmptyPathErrors() throws {
        try assertUsageError(["metrics", "--reference", "lpb.wav", "--mic", "mic.wav", "--processed", ""], """
        Error: --processed must name a WAV file (got an empty string)
        Usage: echolab metrics --reference <reference> --mic <mic> --processed <processed> [--echo <echo>] [--near-end <near-end>] [--channel <N|downmix>] [--processed-lag-ms <ms>] [--scorer <name=program> ...] [--scorer-timeout <seconds>]
          See 'echolab metrics --help' for more information.

        """)
        try assertUsageError(["process", "--mic", "", "--reference", "lpb.wav", "--out", "out.wav"], """
        Error: --mic must name a WAV file (got an empty string)
        Usage: echolab process --mic <mic> --reference <reference> --out <out> [--aec <mode>] [--channel <N|downmix>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>]
          See 'echolab process --help' for more information.

        """)
    }

    func testBadShardError() throws {
        try assertUsageError(["eval", "corpus", "--shard", "3/2"], """
        Error: --shard '3/2': a shard is K/N with 1 ≤ K ≤ N
        Usage: echolab eval <paths> ... [--out <out>] [--modes <modes>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>] [--shard <K/N>] [--jobs <jobs>] [--strict] [--no-taps]
          See 'echolab eval --help' for more information.

        """)
    }

    func testBadAECModeError() throws {
        try assertUsageError(["run", "scenario.json", "--out", "out", "--aec", "speex:loud"], """
        Error: --aec 'speex:loud': unknown intensity 'loud' (one of intensityMin, intensityRecommended, intensityMax, intensityAdaptive; or the whole mode 'disabled')
        Usage: echolab run <scenario> --out <out> [--no-taps] [--all-taps] [--strict] [--aec <mode>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>]
          See 'echolab run --help' for more information.

        """)
    }

    func testModeGivenTwiceError() throws {
        try assertUsageError(["eval", "corpus", "--modes", "speex:intensityMax,speex:intensityMax"], """
        Error: --modes: speex:intensityMax is given twice
        Usage: echolab eval <paths> ... [--out <out>] [--modes <modes>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>] [--shard <K/N>] [--jobs <jobs>] [--strict] [--no-taps]
          See 'echolab eval --help' for more information.

        """)
    }

    /// `all` beside other modes, a mode without its backend and empty names say what is wrong:
    /// `all,disabled` read as if `all` were no mode, `:intensityMax` pasted an empty name into
    /// its hint, and an empty `--markdown` or corpus path was a file error naming nothing.
    func testModeAndPathMistakesSayWhatIsWrong() throws {
        try assertUsageError(["eval", "corpus", "--modes", "all,disabled"], """
        Error: --modes: 'all' is every mode, and stands alone: give all, or a list of modes
        Usage: echolab eval <paths> ... [--out <out>] [--modes <modes>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>] [--shard <K/N>] [--jobs <jobs>] [--strict] [--no-taps]
          See 'echolab eval --help' for more information.

        """)
        try assertUsageError(["run", "scenario.json", "--out", "out", "--aec", ":intensityMax"], """
        Error: --aec ':intensityMax': no backend before ':' (one of speex, webrtc, webrtc-mobile, aec3, echolab)
        Usage: echolab run <scenario> --out <out> [--no-taps] [--all-taps] [--strict] [--aec <mode>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>]
          See 'echolab run --help' for more information.

        """)
        try assertUsageError(["compare", "base.json", "current.json", "--markdown", ""], """
        Error: --markdown must name a file (got an empty string)
        Usage: echolab compare <baseline> <current> [--max-regression-db <dB>] [--max-regression-mos <score>] [--markdown <file>] [--junit <file>] [--judge-library-changes]
          See 'echolab compare --help' for more information.

        """)
        try assertUsageError(["eval", "", "--out", "out"], """
        Error: a scenario file or folder is an empty string
        Usage: echolab eval <paths> ... [--out <out>] [--modes <modes>] [--plugin <name=path> ...] [--plugin-options <name=json> ...] [--plugin-rate <name=hz> ...] [--scorer <name=program> ...] [--scorer-timeout <seconds>] [--shard <K/N>] [--jobs <jobs>] [--strict] [--no-taps]
          See 'echolab eval --help' for more information.

        """)
    }

    /// A report file compare refuses is a usage error, refused before any file is read.
    func testCompareReportFilesError() throws {
        try assertUsageError(["compare", "base.json", "current.json", "--markdown", "gate.md", "--junit", "./gate.md"], """
        Error: ./gate.md: given to both --markdown and --junit; name two files
        Usage: echolab compare <baseline> <current> [--max-regression-db <dB>] [--max-regression-mos <score>] [--markdown <file>] [--junit <file>] [--judge-library-changes]
          See 'echolab compare --help' for more information.

        """)
        try assertUsageError(["compare", "base.json", "current.json", "--markdown", "base.json"], """
        Error: --markdown base.json: cannot write: it is an input (base.json); choose another file
        Usage: echolab compare <baseline> <current> [--max-regression-db <dB>] [--max-regression-mos <score>] [--markdown <file>] [--junit <file>] [--judge-library-changes]
          See 'echolab compare --help' for more information.

        """)
    }

    /// `echolab help nope` printed the overview and exited 0; `help vectors nope` then named the
    /// top-level usage and help, not the vectors command's.
    func testHelpForACommandThatDoesNotExistIsAUsageError() throws {
        let cases: [([String], String)] = [
            (["help", "nope"], """
                Error: 'nope' is not a command of echolab; see 'echolab help'
                Usage: echolab <subcommand>
                  See 'echolab --help' for more information.

                """),
            (["help", "vectors", "nope"], """
                Error: 'nope' is not a command of echolab vectors; see 'echolab help vectors'
                Usage: echolab vectors <subcommand>
                  See 'echolab vectors --help' for more information.

                """),
            (["help", "vectors", "verify", "nope"], """
                Error: 'nope' is not a command of echolab vectors verify, which has none; see 'echolab help vectors verify'
                  See 'echolab vectors verify --help' for more information.

                """),
        ]
        for (arguments, message) in cases {
            let help = try runEchoLab(arguments)
            XCTAssertEqual(help.status, 64, "\(arguments)")
            XCTAssertEqual(help.standardError, message)
            XCTAssertEqual(help.standardOutput, "")
        }
        XCTAssertEqual(try runEchoLab(["help", "vectors", "verify"]).status, 0)
    }
}
