@testable import Metrics
import XCTest

/// The percentiles P.340's range and the near-end single-talk median are read from: a bin's
/// centre held within the values it saw, bins closed at the top as P.340's categories are.
final class DecibelHistogramTests: XCTestCase {
    private func histogram(_ values: [Double]) -> DecibelHistogram {
        var histogram = DecibelHistogram()
        for value in values { histogram.add(value) }
        return histogram
    }

    func testAConstantValueReadsItself() throws {
        for value in [3.0, 6.0, 12.0, -0.4, 0] {
            XCTAssertEqual(try XCTUnwrap(histogram(Array(repeating: value, count: 50)).percentile(0.95)), value, "\(value)")
        }
    }

    /// A 95th percentile of exactly 6.00 beside values of 6.03–6.09 read 6.05, P.340's
    /// category 2b, where the value itself is 2a.
    func testAValueOnACategorysLimitShareNoBinWithValuesAboveIt() throws {
        let values = Array(repeating: 1.0, count: 94) + [6.0] + [6.03, 6.05, 6.07, 6.09, 6.09]
        let top = try XCTUnwrap(histogram(values).percentile(0.95))
        XCTAssertLessThanOrEqual(top, 6.0)
        XCTAssertGreaterThan(top, 5.9)
    }

    /// Spread values read within 0.05 dB, at the bin's centre.
    func testSpreadValuesReadTheirBinsCentre() throws {
        let top = try XCTUnwrap(histogram([4.01, 4.04, 4.06, 4.09]).percentile(0.5))
        XCTAssertEqual(top, 4.05, accuracy: 1e-9)
        XCTAssertNil(histogram([]).percentile(0.5))
        XCTAssertNil(histogram([.nan]).percentile(0.5))
    }
}
