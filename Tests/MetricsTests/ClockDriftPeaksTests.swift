@testable import Metrics
import XCTest

/// The drift is read from where the fitted echo path peaks, block after block. These are the peaks
/// of a new user's espeak-ng recording (48 kHz, 40 s, the loopback 100 ppm behind the mic, a near
/// talker in 9 s and the far end silent in 3): the blocks the talker and the pause cover put their
/// peaks anywhere (16382, 0.77, 0.62) or off the line by several samples.
final class ClockDriftPeaksTests: XCTestCase {
    private let peaks: [(block: Int, position: Double)] = [
        (0, 1037.0827834358631), (1, 1025.262510594252), (2, 1011.0758676732261), (3, 997.9084529928073), (4, 979.128081015114),
        (5, 974.677218558082), (6, 959.8048450980106), (7, 950.8376703976988), (8, 925.8764400489977), (9, 917.105332257471),
        (10, 16382.341678843395), (11, 0.7682254083537672), (12, 0.6169141856917588), (13, 870.8382895076313),
    ]

    func testTheMovesAloneDoNotAgree() {
        // Six of thirteen moves lie far from their median: no drift, and 97 % of that
        // recording's single talk was gated as double talk.
        XCTAssertNil(EchoPathGate.agreedMove(peaks))
    }

    func testThePeaksOnOneLineGiveTheDrift() throws {
        let line = try XCTUnwrap(EchoPathGate.peaksOnOneLine(peaks))
        XCTAssertEqual(line.map(\.block), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13])
        // The loopback runs 100 ppm slow against the mic: 13.1 samples a 131072-sample block.
        // A first estimate from peaks placed roughly in blocks the echo slides through reads
        // −95.3 ppm; the passes over the resampled loopback refine it (that recording: −99.0).
        XCTAssertEqual(try XCTUnwrap(EchoPathGate.driftPPM(peaks: peaks, blockLength: 131_072)), -100, accuracy: 5)
    }

    func testPeaksOfNoLineGiveNoDrift() {
        // Five more peaks anywhere: the line holds 6 of the 14, under half.
        var scattered = peaks
        for (index, position) in zip([1, 3, 5, 7, 9], [300.0, 1900, 50, 1400, 700]) { scattered[index].position = position }
        XCTAssertNil(EchoPathGate.driftPPM(peaks: scattered, blockLength: 131_072))
    }
}
