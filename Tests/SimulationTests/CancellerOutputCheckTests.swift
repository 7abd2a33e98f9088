import AudioInterop
@testable import Simulation
import XCTest

/// A canceller's output frame that is no audio fails its run, whatever the backend: NaN, an
/// infinity, or ±2^20 (+120 dBFS) and beyond — the limits a decoded input is held to.
final class CancellerOutputCheckTests: XCTestCase {
    func testAFrameThatIsNoAudioIsNamedAndAudioPasses() throws {
        let control = try XCTUnwrap(EchoControlFactory.make(EchoControlMode(backend: .speex, intensity: .intensityRecommended),
                                                            sampleRate: 48_000, frameSize: 480))
        var frame = [Float](repeating: 0.5, count: 480)
        frame[479] = 1_048_575   // just under 2^20: loud, still audio
        XCTAssertNoThrow(try control.checkOutput(frame, frame: 0))
        for (sample, value) in [(3, Float.nan), (100, Float.infinity), (479, -1_048_576)] {
            var bad = [Float](repeating: 0, count: 480)
            bad[sample] = value
            XCTAssertThrowsError(try control.checkOutput(bad, frame: 250)) { error in
                guard case .outputNotAudio(let mode, _, let at, 250, nil)? = error as? EchoControlError else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(mode, "speex:intensityRecommended")
                XCTAssertEqual(at, sample)
                XCTAssertTrue("\(error)".contains("of its 10 ms frame 250 (t = 2.50 s)"), "\(error)")
            }
        }
        // Only the frame's own samples count: what lies past frameSize is not this frame's.
        var longer = [Float](repeating: 0, count: 960)
        longer[700] = .nan
        XCTAssertNoThrow(try control.checkOutput(longer, frame: 0))
    }
}
