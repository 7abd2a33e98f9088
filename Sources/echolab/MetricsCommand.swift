import ArgumentParser
import AudioCore
import Foundation
import Metrics
import Evaluation
import Reporting

struct MetricsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Score echo cancellation from WAV files; prints the metrics object as JSON.",
        discussion: "All files must share one sample rate and hold audio (0 frames is an error); multichannel files need --channel. Files of different lengths are scored on their overlap, with a warning on stderr and a length_mismatch object in the JSON; a difference beyond 1 s or 10 % of the longest file (the smaller) is an error (exit 1). ERL = reference power over echo power at the mic (the echo file if given, else the mic) over far-end single-talk frames; ERLE = mic power over processed power over the same frames. Without --echo and --near-end (a recording: mic and loopback only) double talk is found by an offline fit of the echo path (gate.method echo_path_fit): a frame whose mic the fitted echo cannot explain is near-end speech. With --near-end, near_end reports the near talker's attenuation and distortion in double talk. The processed file must be aligned with the mic sample for sample, as `echolab process` writes it; a run's own sent.wav lags its mic.wav by the canceller's latency (speex one frame), which its report.json takes out: score process's output of the run's mic.wav and reference.wav instead. See docs/metrics.md for every definition."
    )

    @Option(help: "What the loudspeaker played (the far end; a recording's loopback).")
    var reference: String
    @Option(help: "What the microphone captured (the canceller's input).")
    var mic: String
    @Option(help: "The canceller's output, aligned with the mic sample for sample.")
    var processed: String
    @Option(help: "Echo alone at the microphone, if known (a simulation tap); without it, ERL is measured on the mic.")
    var echo: String?
    @Option(name: .customLong("near-end"),
            help: "Near-end talker alone at the microphone, if known: gates double talk exactly and adds near_end; without it, double talk is found by an echo-path fit.")
    var nearEnd: String?
    @OptionGroup
    var channel: ChannelOptions

    func run() throws {
        do {
            let analysis = try EchoAnalyzer().analyzeFiles(reference: reference, mic: mic, processed: processed,
                                                           echo: echo, nearEnd: nearEnd, channel: try channel.selection)
            var json = analysis.whole.json
            if let mismatch = analysis.lengthMismatch, case .object(var object) = json {
                let lengths = mismatch.files.map { "\($0.file) \($0.samples)" }.joined(separator: ", ")
                FileHandle.standardError.write(Data("echolab metrics: warning: inputs differ in length (\(lengths) samples); scored the first \(mismatch.analysedSamples) samples only\n".utf8))
                object["length_mismatch"] = mismatch.json
                json = .object(object)
            }
            print(json.canonicalText(), terminator: "")
        } catch {
            throw CommandFailure.exit(error)
        }
    }
}
