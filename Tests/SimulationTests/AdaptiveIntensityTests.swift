import XCTest
@testable import Simulation

/// The adaptive intensity's decision list stays bounded on a call that switches for hours.
final class AdaptiveIntensityTests: XCTestCase {
    func testDecisionListKeepsTheFirstAndTheLatestWithinItsBound() {
        var applied: [(Int, Int)] = []
        let adaptive = AdaptiveIntensity(framesPerWindow: 4, samplesPerFrame: 480) { applied.append(($0, $1)) }
        // Every window alternates between strong echo (ERL 0 dB → −60) and weak echo (ERL 30 dB
        // → −20), so every window is a new decision.
        let windows = AdaptiveIntensity.maximumDecisions * 3
        for window in 0..<windows {
            let capture: Float = window % 2 == 0 ? 0.1 : 0.0001
            for _ in 0..<4 { adaptive.observe(reference: 0.1, capture: capture, linearOutput: nil) }
        }
        XCTAssertEqual(applied.count, windows)
        XCTAssertEqual(adaptive.decisionCount, windows)
        XCTAssertEqual(adaptive.decisions.count, AdaptiveIntensity.maximumDecisions)
        XCTAssertEqual(adaptive.decisions.first?.frame, 4 * 480)
        XCTAssertEqual(adaptive.decisions.first?.suppressionDB, -60)
        // The last slot holds the latest decision: the last window (odd: weak echo → −20).
        XCTAssertEqual(adaptive.decisions.last?.frame, Int64(windows * 4 * 480))
        XCTAssertEqual(adaptive.decisions.last?.suppressionDB, -20)
        XCTAssertEqual(adaptive.decisions[adaptive.decisions.count - 2].frame, Int64((AdaptiveIntensity.maximumDecisions - 1) * 4 * 480))
    }
}
