import AudioCore
import Foundation
import XCTest

/// `ReportPrecision.printed` is computed without text so that statistics over a run that just
/// finished equal those over its report read back: it must be exactly what reading `text` gives.
final class ReportPrecisionTests: XCTestCase {
    func testPrintedIsWhatTheTextReadsBackAs() {
        var random = SeededRandom(seed: 7)
        var values: [Double] = [0, -0.0, 9.04996, -0.00004, 0.00005, 45.94996, 1e9 - 0.00005, 1e9 + 0.123456, 3.6e11 + 0.7, 1e15 - 0.4, 1e16 + 2]
        for _ in 0..<20_000 {
            let magnitude = pow(10, Double.random(in: -6...16, using: &random))
            values.append(Bool.random(using: &random) ? -magnitude : magnitude)
        }
        for value in values {
            XCTAssertEqual(ReportPrecision.printed(value), Double(ReportPrecision.text(value)), "\(value)")
        }
    }

    func testKnownValues() {
        XCTAssertEqual(ReportPrecision.text(9.04996), "9.05")
        XCTAssertEqual(ReportPrecision.text(-0.00004), "0", "a value that rounds to zero prints without a sign")
        XCTAssertEqual(ReportPrecision.printed(-0.00004)?.sign, .plus)
        XCTAssertEqual(ReportPrecision.text(.nan), "null")
        XCTAssertNil(ReportPrecision.printed(.infinity))
    }
}
