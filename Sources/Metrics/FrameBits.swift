/// One bit per Welch frame, packed 64 to a word: the offline gate's per-frame decisions, handed
/// to the streaming analysis. A day at 48 kHz (8.1 M frames) is 1 MB, so memory stays flat
/// enough for any call EchoLab accepts. Frames past the end read as `false`.
public struct FrameBits: Sendable, Equatable {
    private var words: [UInt64] = []
    /// Frames decided so far.
    public private(set) var count = 0

    public init() {}

    public mutating func append(_ bit: Bool) {
        if count & 63 == 0 { words.append(0) }
        if bit { words[count >> 6] |= 1 << UInt64(count & 63) }
        count += 1
    }

    public subscript(frame: Int) -> Bool {
        guard frame >= 0, frame < count else { return false }
        return words[frame >> 6] & (1 << UInt64(frame & 63)) != 0
    }

    /// Frames whose bit is set.
    public var setCount: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }
}
