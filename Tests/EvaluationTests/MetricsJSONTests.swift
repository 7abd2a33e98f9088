import Foundation
import Metrics
import Evaluation
import Reporting
import XCTest
import EchoLabJSON

/// The metric types write their report JSON directly; their `Codable` encoding is the other
/// description of the same keys. The two must agree, so a field added to one is not lost in the other.
final class MetricsJSONTests: XCTestCase {
    static let metrics = EchoMetrics(
        erlDB: 6.25, erleDB: nil, erleSteadyDB: -3.5, convergenceSeconds: 1.5, delayMilliseconds: 40,
        erleSeries: [ERLEPoint(timeSeconds: 0, erleDB: nil), ERLEPoint(timeSeconds: 0.5, erleDB: -2.25)],
        erleBands: [BandERLE(lowHz: 125, highHz: 250, erleDB: nil), BandERLE(lowHz: 250, highHz: 500, erleDB: 11)],
        gate: ActivityGateSummary(method: .micMinusEcho, frames: 10, farEndActiveFrames: 8, singleTalkFrames: 6, doubleTalkFrames: 2))

    func testDirectJSONEqualsTheCodableEncoding() throws {
        XCTAssertEqual(Self.metrics.json, try JSONValue(encoding: Self.metrics))
        let segment = SegmentMetrics(startSample: 48_000, endSample: 96_000, erlDB: nil, erleDB: 3, erleSteadyDB: 4,
                                     convergenceSeconds: nil, singleTalkFrames: 7)
        XCTAssertEqual(JSONValue.object(segment.json), try JSONValue(encoding: segment))
        let mismatch = LengthMismatch(analysedSamples: 100, files: [.init(file: "a.wav", samples: 100), .init(file: "b.wav", samples: 120)])
        XCTAssertEqual(mismatch.json, try JSONValue(encoding: mismatch))
    }

    func testAnalysisFramesAreNamedSo() {
        let gate = Self.metrics.json["gate"]
        XCTAssertEqual(gate?["analysis_frames"], .number(10))
        XCTAssertEqual(gate?["single_talk_analysis_frames"], .number(6))
        XCTAssertNil(gate?["frames"])
        XCTAssertEqual(Self.metrics.json["erle_steady_db"], .number(-3.5), "negative ERLE is reported as measured")
    }
}
