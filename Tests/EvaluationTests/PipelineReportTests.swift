import EchoLabJSON
import Evaluation
import Simulation
import XCTest

/// report.json's `pipeline` object is `PipelineReport`'s `Codable` encoding: its keys are the
/// report schema's (docs/reports.md), and a report read back decodes to the same value.
final class PipelineReportTests: XCTestCase {
    func testKeysAndValuesAreTheReportSchemas() throws {
        var counters = PipelineCounters()
        counters.ticks = 500
        counters.uplink.written = 9_600
        counters.uplink.read = 8_640
        counters.uplink.buffered = 480
        counters.uplink.underruns = 2
        counters.uplink.primingSamples = 960
        counters.playout.overruns = 1
        counters.loudspeaker.rejectedFrames = 3
        counters.loudspeaker.underruns = 1   // counted in the headline, as its overruns are
        counters.ignoredFrames = 7
        counters.clippedSamples.mic = 11
        counters.cancellerResets = 4
        let report = PipelineReport(counters, sentClicks: 5, sentGaps: 6)
        func buffer(written: Double = 0, read: Double = 0, buffered: Double = 0, underruns: Double = 0, overruns: Double = 0,
                    priming: Double = 0, rejected: Double = 0, conserved: Bool = true) -> JSONValue {
            .object(["written": .number(written), "read": .number(read), "dropped": .number(0), "buffered": .number(buffered),
                     "underruns": .number(underruns), "overruns": .number(overruns), "priming_samples": .number(priming),
                     "rejected_frames": .number(rejected), "conserved": .bool(conserved)])
        }
        let json = JSONValue(encoding: report)
        XCTAssertEqual(json, .object([
            "ticks": .number(500), "underruns": .number(3), "overruns": .number(1), "ignored_frames": .number(7),
            "uplink": buffer(written: 9_600, read: 8_640, buffered: 480, underruns: 2, priming: 960, conserved: false),
            "playout": buffer(overruns: 1), "user_reference": buffer(), "loudspeaker": buffer(underruns: 1, rejected: 3),
            "sent_clicks": .number(5), "sent_gaps": .number(6),
            "clipped_samples": .object(["playout": .number(0), "loudspeaker": .number(0), "mic": .number(11),
                                        "capture": .number(0), "reference": .number(0)]),
            "aec_resets": .number(4), "custom_speaker_delay_ms": .null,
        ]))
        XCTAssertEqual(try JSONValueDecoder().decode(PipelineReport.self, from: json), report)
        // Little's law over the app's buffers: 96 000 samples held over 100 ticks is 960 a tick,
        // less the tick's own 480 — 10 ms.
        counters.customSpeakerDelay = CustomSpeakerDelay()
        counters.customSpeakerDelay.tickFrames = 480
        counters.customSpeakerDelay.queuedSamples = 96_000
        counters.customSpeakerDelay.ticks = 100
        let delayed = PipelineReport(counters, sentClicks: 5, sentGaps: 6)
        XCTAssertEqual(delayed.customSpeakerDelayMilliseconds, 10)
        XCTAssertEqual(JSONValue(encoding: delayed)["custom_speaker_delay_ms"], .number(10))
        // A report written before the figure was kept reads without it.
        guard case .object(var members) = json else { return XCTFail("not an object") }
        members["custom_speaker_delay_ms"] = nil
        XCTAssertNil(try JSONValueDecoder().decode(PipelineReport.self, from: .object(members)).customSpeakerDelayMilliseconds)
        XCTAssertEqual(report.buffers.filter { !$0.counters.isConserved }.map(\.name), ["uplink"], "9 600 written, 9 120 accounted for")
    }
}
