import AudioCore
@testable import Simulation
import XCTest

/// How the echolab backend takes the adaptive controller's choices.
final class EchoLabEchoControlTests: XCTestCase {
    /// Under 8 kHz its near-end detector's speech band is empty: a typed error, not a trap.
    func testARateUnderEightKilohertzIsRefused() {
        XCTAssertThrowsError(try EchoLabEchoControl(sampleRate: 4000, frameSize: 40, intensity: .intensityRecommended)) { error in
            XCTAssertEqual(error as? EchoControlError, .unsupportedRate(backend: "echolab", sampleRate: 4000, supported: "8000 Hz or more"))
            XCTAssertEqual("\(error)", "echolab runs at 8000 Hz or more, not 4000 Hz")
        }
        XCTAssertNoThrow(try EchoLabEchoControl(sampleRate: 8000, frameSize: 80, intensity: .intensityRecommended))
    }

    func testTheDoubleTalkFloorIsNeverShallowerThanRecommendeds() throws {
        let control = try EchoLabEchoControl(sampleRate: 48_000, frameSize: 480, intensity: .intensityAdaptive)
        XCTAssertEqual(control.doubleTalkSuppressionDB, -10, "starts at Recommended's")
        control.setSuppression(farEndOnlyDB: -20, doubleTalkDB: -5)   // a conversation: the controller relaxes both
        XCTAssertEqual(control.suppressionDB, -20)
        XCTAssertEqual(control.doubleTalkSuppressionDB, -10, "a talker it hears loses nothing anyway; the pauses keep −10 dB")
        control.setSuppression(farEndOnlyDB: -60, doubleTalkDB: -25)  // strong echo, little double talk
        XCTAssertEqual(control.suppressionDB, -60)
        XCTAssertEqual(control.doubleTalkSuppressionDB, -25)
        control.setSuppression(farEndOnlyDB: -40, doubleTalkDB: -15)
        XCTAssertEqual(control.doubleTalkSuppressionDB, -15)
    }

    /// On a weak echo path (a handset: the canceller measures 30 dB of ERL) the controller's light
    /// choice takes the residual estimate off once in double talk; on a loudspeaker's (6 dB) the
    /// same choice keeps the talker whole.
    func testAWeakPathTakesTheResidualOffInDoubleTalk() throws {
        for (gain, overestimate) in [(Float(0.0316), Float(1)), (Float(0.5), Float(0))] {
            let control = try EchoLabEchoControl(sampleRate: 48_000, frameSize: 480, intensity: .intensityAdaptive)
            var random = SeededRandom(seed: 3)
            let far = (0..<3 * 48_000).map { _ in 0.1 * random.nextGaussian() }
            var output = [Float](repeating: 0, count: 480)
            for start in stride(from: 0, to: far.count, by: 480) {
                try control.analyzeRender(Array(far[start..<(start + 480)]))
                try control.processCapture((start..<(start + 480)).map { $0 >= 960 ? gain * far[$0 - 960] : 0 }, into: &output)
            }
            XCTAssertEqual(control.canceller.erlDB ?? 0, -20 * log10(Double(gain)), accuracy: 1)
            control.setSuppression(farEndOnlyDB: -20, doubleTalkDB: -10)
            XCTAssertEqual(control.canceller.settings.doubleTalkOverestimate, overestimate, "gain \(gain)")
        }
    }
}
