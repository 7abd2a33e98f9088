import ArgumentParser
import Foundation
import Metrics
import Reporting

struct MetricsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Score echo cancellation from WAV files; prints the metrics object as JSON.",
        discussion: "All files must share one sample rate and be mono. ERL = reference power over echo power at the mic (the echo file if given, else the mic) over far-end single-talk frames; ERLE = mic power over processed power over the same frames. See README \"Metrics\" for every definition."
    )

    @Option(help: "What the loudspeaker played (the far end).")
    var reference: String
    @Option(help: "What the microphone captured (the canceller's input).")
    var mic: String
    @Option(help: "The canceller's output.")
    var processed: String
    @Option(help: "Echo alone at the microphone, if known (a simulation tap).")
    var echo: String?
    @Option(name: .customLong("near-end"), help: "Near-end talker alone at the microphone, if known: gates double talk exactly.")
    var nearEnd: String?

    func run() throws {
        do {
            let analysis = try EchoAnalyzer().analyzeFiles(reference: reference, mic: mic, processed: processed,
                                                           echo: echo, nearEnd: nearEnd)
            print(try JSONValue(encoding: analysis.whole).canonicalText(), terminator: "")
        } catch {
            throw CommandFailure.exit(error)
        }
    }
}
