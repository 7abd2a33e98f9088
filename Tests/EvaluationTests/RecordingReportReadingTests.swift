import AudioCore
import EchoLabJSON
@testable import Evaluation
import Metrics
import ScenarioFiles
import XCTest

/// `merge` renders a recording's pages again from its report.json: what the file holds must
/// read back to a report that writes the same file, the reasons and the inputs' lengths included.
final class RecordingReportReadingTests: XCTestCase {
    func testAReportReadsBackToTheSameJSON() throws {
        var report = RecordingReport(item: "0a1b_doubletalk", talkType: .doubleTalk,
                                     files: .init(mic: "/data/0a1b_doubletalk_mic.wav", sent: "sent.wav", loopback: "/data/0a1b_doubletalk_lpb.wav",
                                                  echo: nil, nearEnd: nil),
                                     channel: .monoOnly, mode: "speex:intensityRecommended", sampleRate: 16_000, processingRate: 48_000,
                                     latencySamples: 480, aecResets: 0, durationSeconds: 8, metrics: MetricsJSONTests.metrics)
        report.echoUnmeasuredReason = "the near end talks over every far-end analysis frame (all 2 are double talk)"
        report.delayUnmeasuredReason = "the far end is tonal (a tone or held chord): its correlation with the mic peaks at every period of its notes, so no lag is the delay"
        report.lengthMismatch = LengthMismatch(analysedSamples: 127_200, files: [.init(file: "/data/0a1b_doubletalk_lpb.wav", samples: 127_200),
                                                                                 .init(file: "/data/0a1b_doubletalk_mic.wav", samples: 128_000)])
        report.clippedMicSamples = 3
        let json = report.json()
        let read = try RecordingReport(reading: json)
        XCTAssertEqual(read.json(), json)
        XCTAssertEqual(read.lengthMismatch, report.lengthMismatch)
        XCTAssertEqual(read.delayUnmeasuredReason, report.delayUnmeasuredReason)
        XCTAssertEqual(read.echoUnmeasuredReason, report.echoUnmeasuredReason)

        // Nulls read back as none, and a reason that is not text is an error naming its key.
        report.lengthMismatch = nil
        report.delayUnmeasuredReason = nil
        XCTAssertEqual(try RecordingReport(reading: report.json()).json(), report.json())
        guard case .object(var object) = report.json() else { return XCTFail("not an object") }
        object["delay_unmeasured"] = .number(1)
        XCTAssertThrowsError(try RecordingReport(reading: .object(object))) { error in
            XCTAssertTrue("\(error)".contains("delay_unmeasured 1 is not text"), "\(error)")
        }
    }
}
