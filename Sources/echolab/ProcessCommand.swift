import ArgumentParser
import AudioCore
import Foundation
import Evaluation
import Reporting
import Simulation

struct ProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Run a canceller on a recorded mic and loopback and write its output (WebRTC's audioproc_f job).",
        discussion: """
        Nothing is simulated: the recorded microphone and the loopback (what the loudspeaker played) go straight to the \
        canceller. The output has the microphone's rate and length and is aligned with it sample for sample: the \
        canceller's processing latency is removed, and printed. It runs at the microphone's rate where the backend can \
        (speex: any multiple of 100 Hz; webrtc: 8, 16, 32 or 48 kHz; webrtc-mobile: any multiple of 100 Hz, resampled to 16 kHz inside; aec3: 16, 32 or 48 kHz; echolab: any multiple of 100 Hz from 8 kHz; disabled: any rate, the mic's samples pass through unchanged), else at 48 kHz and \
        back; a plugin runs at its own rate (--plugin-rate, else 48 kHz), the mic resampled to it and back. A loopback at another rate than the microphone is resampled to the canceller's rate, with a warning on \
        stderr (a device records both at one rate: another rate usually means a file of another recording). A \
        loopback shorter than the microphone is continued with silence, a longer one is cut; either, beyond 10 ms, is \
        warned about on stderr, as is an echo in the mic that comes before the loopback (one recorded late: no canceller \
        removes it). With --scorer, the output is scored per talk type (found by the tap-free gate) and \
        printed, one line per scorer and talk type. Score the result with `echolab metrics --reference R --mic M --processed OUT` (metrics \
        needs one rate: resample such a loopback to the mic's first). Another process writing the same --out is refused \
        (exit 1): the file is one process's whole output. Exit codes: 0 done; 1 bad input or an unwritable \
        output (one line naming the file); 64 usage error; 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (no output left).
        """
    )

    @Option(help: "The recorded microphone (the canceller's capture input).")
    var mic: String

    @Option(help: "The loopback: what the loudspeaker played (the canceller's reference).")
    var reference: String

    @Option(name: .shortAndLong, help: "The output WAV (Float32, the microphone's rate; never seen half-written; not one of the inputs).")
    var out: String

    @Option(help: ArgumentHelp("The canceller: disabled (the mic passes through) or BACKEND:INTENSITY, a --plugin's as NAME:INTENSITY.", valueName: "mode"))
    var aec = AECModeArgument(EchoControlMode(backend: .speex, intensity: .intensityRecommended))

    @OptionGroup
    var channel: ChannelOptions

    @OptionGroup
    var plugins: PluginOptions

    @OptionGroup
    var scoring: ScorerOptions

    func validate() throws {
        _ = try scoring.resolved
        _ = try aec.value(plugins: plugins.resolved)
        for (option, path) in [("mic", mic), ("reference", reference)] where path.isEmpty {
            throw ValidationError("--\(option) must name a WAV file (got an empty string)")
        }
        guard !out.isEmpty else { throw ValidationError("--out must name a file (got an empty string)") }
        // The output is always a WAV: any other name would hold a WAV under a name that says otherwise.
        guard (out as NSString).pathExtension.lowercased() == "wav" else {
            throw ValidationError("--out must name a .wav file: the output is a Float32 WAV (got '\(out)')")
        }
    }

    func run() throws {
        Interrupts.install()
        // A plugin's file as the command found it: a failure after it changed under it says so.
        let pluginDigests = PluginDigests(command: "process")
        do {
            let mode = try aec.value(plugins: plugins.resolved)
            if let plugin = mode.backend.plugin { pluginDigests.record(plugin) }
            for line in try plugins.unusedWarnings(modes: [mode], command: "process", option: "--aec") { standardError(line) }
            let processor = RecordingProcessor(mode: mode, channel: try channel.selection)
            let outcome: RecordingProcessor.Outcome
            // A long recording takes seconds: on a terminal, how far it is.
            let line = ProgressLine(label: "process")
            do {
                outcome = try processor.process(mic: mic, reference: reference, output: out, cancellation: Interrupts.cancellation,
                                                lockingFor: "process") { line.update(fraction: $0) }
            } catch {
                // Cleared first: a message printed over it would be glued to "process  85%  ETA 0:00".
                line.finish()
                guard error is RunCancelled else { throw error }
                standardError("echolab: \(out): interrupted; nothing written")
                throw ExitCode(Interrupts.exitCode ?? 130)
            }
            line.finish()
            for warning in try processor.warnings(of: outcome, mic: mic, reference: reference) {
                standardError("echolab process: warning: \(warning)")
            }
            func counted(_ count: Int64, _ noun: String) -> String { count == 1 ? "1 \(noun)" : "\(count) \(noun)s" }
            print(printable("\(mode): \(counted(Int64(outcome.frames), "sample")) at \(outcome.sampleRate) Hz (processed at \(outcome.processingRate) Hz), "
                  + "latency \(counted(Int64(outcome.latencySamples), "sample")) at \(outcome.processingRate) Hz "
                  + "(\(String(format: "%.1f", Double(outcome.latencySamples) * 1000 / Double(outcome.processingRate))) ms) removed, "
                  + "\(counted(Int64(outcome.divergenceResets), "canceller reset")) → \(out)"))
            let scorers = try scoring.processes()
            defer { for scorer in scorers { scorer.stop() } }
            if !scorers.isEmpty {
                let results = processor.scores(ofOutput: out, mic: mic, reference: reference, scorers: scorers,
                                               cancellation: Interrupts.cancellation)
                // A signal while the scorers worked: the output is whole and in place, its scores
                // are not, and the command stops as interrupted.
                if Interrupts.cancellation.isCancelled {
                    standardError("echolab: \(out): interrupted while scoring; the output is written, its scores are not")
                    throw ExitCode(Interrupts.exitCode ?? 130)
                }
                ScorerOptions.warnUnscored(results, command: "process")
                for line in ScorerOptions.lines(results) { print(printable(line)) }
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw CommandFailure.exit(pluginDigests.noting(error))
        }
    }
}
