@testable import Evaluation
import XCTest

/// A finding's consequence says what the canceller did to the echo in words that match the sign:
/// an output with more echo than the mic had is "made louder", never "reduced by -17.7 dB".
final class FindingWordingTests: XCTestCase {
    func testANegativeERLEReadsAsEchoMadeLouder() {
        XCTAssertEqual(RunEvaluator.echoChange(-17.7, only: true), "echo made 17.7 dB louder than at the mic")
        // A change that prints as zero is none, whatever its sign: "reduced by only -0.0 dB" read
        // as a reduction (a trial's).
        XCTAssertEqual(RunEvaluator.echoChange(-0.04, only: false), "echo not reduced (0.0 dB)")
        XCTAssertEqual(RunEvaluator.echoChange(0.04, only: true), "echo not reduced (0.0 dB)")
        XCTAssertEqual(RunEvaluator.echoChange(-0.06, only: true), "echo made 0.1 dB louder than at the mic")
        XCTAssertEqual(RunEvaluator.echoChange(3.24, only: true), "echo reduced by only 3.2 dB")
        XCTAssertEqual(RunEvaluator.echoChange(12, only: false), "echo reduced by 12.0 dB")
    }
}
