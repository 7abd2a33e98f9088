@testable import Evaluation
import XCTest

/// How a consequence says what a canceller did to the echo: a change that prints as zero is none,
/// whatever its sign ("reduced by only -0.0 dB" read as a reduction).
final class EchoChangeWordingTests: XCTestCase {
    func testAChangeThatPrintsAsZeroIsNone() {
        XCTAssertEqual(RunEvaluator.echoChange(-0.04, only: true), "echo not reduced (0.0 dB)")
        XCTAssertEqual(RunEvaluator.echoChange(0.04, only: true), "echo not reduced (0.0 dB)")
        XCTAssertEqual(RunEvaluator.echoChange(-0.06, only: true), "echo made 0.1 dB louder than at the mic")
        XCTAssertEqual(RunEvaluator.echoChange(3.26, only: true), "echo reduced by only 3.3 dB")
        XCTAssertEqual(RunEvaluator.echoChange(3.26, only: false), "echo reduced by 3.3 dB")
    }
}
