import Simulation
import XCTest

/// How the echolab backend takes the adaptive controller's choices.
final class EchoLabEchoControlTests: XCTestCase {
    func testTheDoubleTalkFloorIsNeverShallowerThanRecommendeds() throws {
        let control = try EchoLabEchoControl(sampleRate: 48_000, frameSize: 480, intensity: .intensityAdaptive)
        XCTAssertEqual(control.doubleTalkSuppressionDB, -10, "starts at Recommended's")
        control.setSuppression(-20, doubleTalk: -5)   // a conversation: the controller relaxes both
        XCTAssertEqual(control.suppressionDB, -20)
        XCTAssertEqual(control.doubleTalkSuppressionDB, -10, "a talker it hears loses nothing anyway; the pauses keep −10 dB")
        control.setSuppression(-60, doubleTalk: -25)  // strong echo, little double talk
        XCTAssertEqual(control.suppressionDB, -60)
        XCTAssertEqual(control.doubleTalkSuppressionDB, -25)
        control.setSuppression(-40, doubleTalk: -15)
        XCTAssertEqual(control.doubleTalkSuppressionDB, -15)
    }
}
