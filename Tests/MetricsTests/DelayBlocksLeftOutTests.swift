import AudioCore
import Metrics
import XCTest

/// The delay estimate leaves out blocks whose mic window touches a stretch excluded from the echo
/// (a file or generator as the mic, a mute) and takes the next far-end blocks instead — the same
/// blocks however the audio is cut into appends (eval appends 10 ms ticks, `metrics` blocks of its
/// own): a cap on blocks still waiting for their mic window made the choice depend on how far
/// ahead the audio had arrived.
final class DelayBlocksLeftOutTests: XCTestCase {
    func testTheBlocksLeftOutAndTheEstimateDoNotDependOnAppendSizes() throws {
        let rate = 48_000, count = 14 * rate, delay = 2_400
        let (reference, echo) = TestSignals.farEndScene(seconds: 14, delaySamples: delay)
        // The app's own file as the mic for the first 5 s, then the room; a 100 ms mute at 7.5 s.
        let file = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 180), sampleRate: rate, count: count, seed: 7)
        let fileStretch = 0..<(5 * rate), mute = (7 * rate + rate / 2)..<(7 * rate + rate / 2 + rate / 10)
        let mic = (0..<count).map { fileStretch.contains($0) ? file[$0] : mute.contains($0) ? 0 : echo[$0] }
        let processed = mic.map { $0 * 0.1 }
        func estimate(appendingBy size: Int) -> EchoMetrics {
            let stream = EchoAnalysisStream(sampleRate: rate, includesEcho: false, includesNearEnd: false)
            stream.excludeFromEcho(fileStretch)
            stream.excludeFromEcho(mute)
            var start = 0
            while start < count {
                let n = min(size, count - start)
                stream.append(reference: Array(reference[start..<(start + n)]), mic: Array(mic[start..<(start + n)]),
                              processed: Array(processed[start..<(start + n)]), echo: nil, nearEnd: nil, count: n)
                start += n
            }
            return stream.finish().whole
        }
        let byTicks = estimate(appendingBy: 480)
        XCTAssertEqual(try XCTUnwrap(byTicks.delayMilliseconds), 50, accuracy: 0.01, "the room's delay, not the file's")
        XCTAssertEqual(try XCTUnwrap(byTicks.erlDB), 6, accuracy: 0.1)
        for size in [8_192, 48_000, count] {
            let other = estimate(appendingBy: size)
            XCTAssertEqual(other.delayMilliseconds?.bitPattern, byTicks.delayMilliseconds?.bitPattern, "appended by \(size)")
            XCTAssertEqual(other.erlDB?.bitPattern, byTicks.erlDB?.bitPattern, "appended by \(size)")
            XCTAssertEqual(other.gate, byTicks.gate, "appended by \(size)")
        }
    }
}
