import EchoLabJSON
import XCTest
@testable import Evaluation

/// A golden value's tolerance is the same on both sides of it, at the four decimals golden.json holds.
final class GoldenToleranceTests: XCTestCase {
    private func differences(measured: Double, golden: Double, tolerance: Double) -> [String] {
        func entry(_ value: Double, tolerance: Double? = nil) -> JSONValue {
            var metric: [String: JSONValue] = ["value": .number(value)]
            if let tolerance { metric["tolerance"] = .number(tolerance) }
            var metrics: [String: JSONValue] = [:]
            for key in GoldenVectors.metricKeys { metrics[key] = .object(["value": .null]) }
            metrics["erl_db"] = .object(metric)
            return .object(["metrics": .object(metrics), "taps_sha256": .null])
        }
        return GoldenComparison.differences(entry(measured), entry(golden, tolerance: tolerance), file: "g.json")
    }

    func testADifferenceOfExactlyTheToleranceIsWithinItOnEitherSide() {
        // 9.7447 − 9.6947 is 0.0500000000000007 in binary: it failed ± 0.05 above, passed below.
        XCTAssertEqual(differences(measured: 9.6947, golden: 9.7447, tolerance: 0.05), [])
        XCTAssertEqual(differences(measured: 9.6947, golden: 9.6447, tolerance: 0.05), [])
        XCTAssertEqual(differences(measured: 9.6947, golden: 9.7947, tolerance: 0.1), [])
        XCTAssertEqual(differences(measured: 9.6947, golden: 9.5947, tolerance: 0.1), [])
        XCTAssertEqual(differences(measured: 0.0003, golden: 0, tolerance: 0.0003), [])
    }

    func testOneTenThousandthMoreThanTheToleranceIsADifferenceOnEitherSide() {
        XCTAssertEqual(differences(measured: 9.6947, golden: 9.7448, tolerance: 0.05), ["g.json: erl_db 9.6947 differs from golden 9.7448 ± 0.05"])
        XCTAssertEqual(differences(measured: 9.6947, golden: 9.6446, tolerance: 0.05), ["g.json: erl_db 9.6947 differs from golden 9.6446 ± 0.05"])
        XCTAssertEqual(differences(measured: 1, golden: 1.0001, tolerance: 0), ["g.json: erl_db 1.0000 differs from golden 1.0001 ± 0.0"])
        XCTAssertEqual(differences(measured: 1, golden: 1, tolerance: 0), [])
    }

    func testAToleranceFinerThanTheFileHoldsIsKeptAsItIs() {
        // 0.00015 is 1.5 ten-thousandths: a difference of 1 passes, 2 does not.
        XCTAssertEqual(differences(measured: 1, golden: 1.0001, tolerance: 0.00015), [])
        XCTAssertEqual(differences(measured: 1, golden: 1.0002, tolerance: 0.00015).count, 1)
    }
}
