import XCTest
@testable import Simulation

/// The adaptive intensity's decision list stays bounded on a call that switches for hours.
final class AdaptiveIntensityTests: XCTestCase {
    func testDecisionListKeepsTheFirstAndTheLatestWithinItsBound() {
        var applied: [(Int, Int)] = []
        let adaptive = AdaptiveIntensity(framesPerWindow: 4, samplesPerFrame: 480) { applied.append(($0, $1)) }
        // Every window alternates between far-end single talk (ERL 10 dB → −40) and a
        // conversation (all double talk → −20), so every window is a new decision.
        let windows = AdaptiveIntensity.maximumDecisions * 3
        for window in 0..<windows {
            let talk = TalkState(modelledEchoPower: 0.01, nearEndTalking: window % 2 == 1)
            for _ in 0..<4 { adaptive.observe(reference: 0.1, capture: 0.1, linearOutput: 0.05, talk: talk) }
        }
        XCTAssertEqual(applied.count, windows)
        XCTAssertEqual(adaptive.decisionCount, windows)
        XCTAssertEqual(adaptive.decisions.count, AdaptiveIntensity.maximumDecisions)
        XCTAssertEqual(adaptive.decisions.first?.frame, 4 * 480)
        XCTAssertEqual(adaptive.decisions.first?.suppressionDB, -40)
        // The last slot holds the latest decision: the last window (odd: a conversation → −20).
        XCTAssertEqual(adaptive.decisions.last?.frame, Int64(windows * 4 * 480))
        XCTAssertEqual(adaptive.decisions.last?.suppressionDB, -20)
        XCTAssertEqual(adaptive.decisions[adaptive.decisions.count - 2].frame, Int64((AdaptiveIntensity.maximumDecisions - 1) * 4 * 480))
    }
}

/// What `intensityAdaptive` decides from what it measures: each rule on frames whose ERL,
/// double talk and echo-to-near ratio are known by construction.
final class AdaptiveIntensityDecisionTests: XCTestCase {
    /// Runs `windows` windows of 10 frames through a controller; returns its decisions.
    private func decide(windows: [(reference: Float, capture: Float, linear: Float?, talk: TalkState?)]) -> [AdaptiveDecision] {
        let adaptive = AdaptiveIntensity(framesPerWindow: 10, samplesPerFrame: 480) { _, _ in }
        for window in windows {
            for _ in 0..<10 { adaptive.observe(reference: window.reference, capture: window.capture, linearOutput: window.linear, talk: window.talk) }
        }
        return adaptive.decisions
    }

    func testTheERLChoosesTheSuppression() {
        // ERL 10·log10(0.1 / 0.01) = 10 dB: moderate echo.
        let decisions = decide(windows: [(0.1, 0.01, nil, nil)])
        XCTAssertEqual(decisions.count, 1)
        XCTAssertEqual(decisions[0].erlEstimateDB, 10, accuracy: 1e-6)
        XCTAssertEqual(decisions[0].suppressionDB, -40)
        XCTAssertEqual(decisions[0].doubleTalkSuppressionDB, -15)
        XCTAssertNil(decisions[0].echoToNearDB, "no double talk, no ratio")
    }

    /// An ERL wandering around the 6 dB edge keeps its class; 2 dB past the edge changes it.
    func testAnERLNearAnEdgeDoesNotFlipTheSuppression() {
        let at7 = Float(0.1 / pow(10, 0.7)), at5 = Float(0.1 / pow(10, 0.5)), at1 = Float(0.1 / pow(10, 0.1))
        let wandering = decide(windows: [(0.1, at7, nil, nil), (0.1, at5, nil, nil), (0.1, at7, nil, nil), (0.1, at5, nil, nil)])
        XCTAssertEqual(wandering.map(\.suppressionDB), [-40], "one decision: moderate, kept")
        let falling = decide(windows: [(0.1, at7, nil, nil), (0.1, at1, nil, nil), (0.1, at1, nil, nil)])
        XCTAssertEqual(falling.map(\.suppressionDB), [-40, -60], "ERL 1 dB (weighted with the 7 dB window: under 4) is strong echo")
    }

    /// The rising edge: a weak echo path (headset) is taken only 2 dB past 20 dB, and without a
    /// backend's reading a conversation (over 50 % double talk, measured from the linear output)
    /// takes the light far-end suppression too.
    func testTheWeakEdgeAndAConversationWithoutATalkState() {
        let at21 = Float(0.1 / pow(10, 2.1)), at23 = Float(0.1 / pow(10, 2.3))
        XCTAssertEqual(decide(windows: [(0.1, 0.01, nil, nil), (0.1, at21, nil, nil)]).map(\.suppressionDB), [-40],
                       "ERL 21 dB after 10 dB (weighted: under 22) stays moderate")
        XCTAssertEqual(decide(windows: [(0.1, 0.01, nil, nil)] + Array(repeating: (0.1, at23, nil, nil), count: 8)).map(\.suppressionDB),
                       [-40, -20], "23 dB, window after window, becomes weak once the 10 dB window has faded (the sixth)")
        // 40 windows of the filter taking 20 dB off, then one of double talk only (attenuation 0 dB).
        let adaptive = AdaptiveIntensity(framesPerWindow: 10, samplesPerFrame: 480) { _, _ in }
        for window in 0..<41 {
            for _ in 0..<10 {
                adaptive.observe(reference: 0.1, capture: 0.01, linearOutput: window == 40 ? 0.01 : 0.0001)
            }
        }
        let last = try? XCTUnwrap(adaptive.decisions.last)
        XCTAssertEqual(last?.doubleTalkShare, 1)
        XCTAssertEqual(last?.suppressionDB, -20, "a conversation")
        XCTAssertEqual(last?.doubleTalkSuppressionDB, -5)
    }

    /// A backend's own reading: the ERL is the reference over the echo its filter modelled
    /// (the near talker's power in the capture does not count), double talk is its detector's,
    /// and the echo-to-near ratio is modelled echo over what the linear stage left.
    func testABackendsTalkStateIsMeasuredInstead() {
        let single = TalkState(modelledEchoPower: 0.01, nearEndTalking: false)
        let double = TalkState(modelledEchoPower: 0.01, nearEndTalking: true)
        // Far-end single talk (ERL 10 dB), then a conversation: the near talker 20 dB over the echo.
        let decisions = decide(windows: [(0.1, 0.5, 0.001, single), (0.1, 1.0, 1.0, double)])
        XCTAssertEqual(decisions.first?.erlEstimateDB ?? .nan, 10, accuracy: 1e-6, "not 10·log10(0.1 / 0.5)")
        let conversation = try? XCTUnwrap(decisions.last)
        XCTAssertEqual(conversation?.doubleTalkShare, 1)
        XCTAssertEqual(conversation?.echoToNearDB ?? .nan, -20, accuracy: 1e-6)
        XCTAssertEqual(conversation?.erlEstimateDB ?? .nan, 10, accuracy: 1e-6, "a window of double talk only keeps the ERL")
        XCTAssertEqual(conversation?.suppressionDB, -20, "a conversation: the light far-end suppression")
        XCTAssertEqual(conversation?.doubleTalkSuppressionDB, -5, "relaxed once, though both the share and the ratio ask")
    }

    /// Double talk measured from the linear output (attenuation under 3 dB where it was ≥ 10):
    /// a talker 10 dB over the echo relaxes the double-talk suppression though the share is small.
    func testAQuietEchoUnderTheTalkerRelaxesTheDoubleTalkSuppression() {
        // 40 windows of the filter taking 20 dB off (capture 0.01, linear 0.0001), ERL 10 dB.
        var windows = [(reference: Float, capture: Float, linear: Float?, talk: TalkState?)](repeating: (0.1, 0.01, 0.0001, nil), count: 40)
        // Then a window with 2 double-talk frames among 10 (share 0.2): echo 0.0005 under a talker of 0.01.
        windows.append((0.1, 0.0105, 0.01, nil))
        let adaptive = AdaptiveIntensity(framesPerWindow: 10, samplesPerFrame: 480) { _, _ in }
        for (index, window) in windows.enumerated() {
            for frame in 0..<10 {
                let doubleTalk = index == 40 && frame < 2
                adaptive.observe(reference: window.reference, capture: doubleTalk ? window.capture : 0.01,
                                 linearOutput: doubleTalk ? window.linear : 0.0001)
            }
        }
        let last = try? XCTUnwrap(adaptive.decisions.last)
        XCTAssertEqual(last?.doubleTalkShare ?? .nan, 0.2, accuracy: 1e-9)
        XCTAssertEqual(last?.echoToNearDB ?? .nan, 10 * log10(0.0005 / 0.01), accuracy: 1e-3)
        XCTAssertEqual(last?.suppressionDB, -40)
        XCTAssertEqual(last?.doubleTalkSuppressionDB, -5)
    }
}
