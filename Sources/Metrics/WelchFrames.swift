import Foundation

/// Frame layout of the Welch analysis: frames of `frameSize` samples every `hop = frameSize/2`
/// samples from sample 0, kept only when wholly inside the analysed length (a signal shorter than
/// one frame has no frames, hence nil metrics).
struct WelchFrames: Sendable, Equatable {
    let frameSize: Int
    let hop: Int
    let count: Int

    init(length: Int, frameSize: Int) {
        self.frameSize = frameSize
        hop = frameSize / 2
        count = length >= frameSize ? (length - frameSize) / hop + 1 : 0
    }

    func start(of frame: Int) -> Int { frame * hop }

    /// Frames lying wholly inside `range` (so a segment never borrows samples from its neighbour).
    func frames(inside range: Range<Int>) -> Range<Int> {
        guard count > 0, range.upperBound - range.lowerBound >= frameSize else { return 0..<0 }
        let first = max(0, (range.lowerBound + hop - 1) / hop)
        let end = min(count, (range.upperBound - frameSize) / hop + 1)
        return first..<max(first, end)
    }

    /// Periodic Hann window: with 50 % overlap the shifted windows sum to a constant, so every
    /// sample weighs the same in the Welch average.
    static func hannWindow(size: Int) -> [Float] {
        (0..<size).map { index in
            Float(0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(size)))
        }
    }
}
