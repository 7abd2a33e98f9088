/// A program's stdout as lines, as they arrive: the complete lines in order, and the one being
/// written. What is kept is bounded: a line over `lineLimit` bytes, or more than `bufferLimit`
/// bytes of lines unread (each line counted with an array's own bytes), ends it — the lines before stay, to be read in order, and then `overflow` says
/// why nothing follows. So what a reader finds does not depend on where the pipe split the
/// output, nor on how long a program wrote before it was read.
struct OutputLines {
    enum Overflow: Equatable {
        /// A line (ended or not) over `lineLimit` bytes.
        case longLine
        /// More than `bufferLimit` bytes of lines unread.
        case unread
    }

    let lineLimit: Int
    let bufferLimit: Int
    private var lines: [[UInt8]] = []
    private var partial: [UInt8] = []
    private var unreadBytes = 0
    private(set) var overflow: Overflow?

    /// `bufferLimit` is more than `lineLimit`: the first line always fits.
    init(lineLimit: Int, bufferLimit: Int) {
        precondition(bufferLimit >= lineLimit + 48)
        self.lineLimit = lineLimit
        self.bufferLimit = bufferLimit
    }

    mutating func append(_ bytes: [UInt8]) {
        guard overflow == nil else { return }
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            partial += bytes[start..<newline]
            start = newline + 1
            guard partial.count <= lineLimit else { return end(.longLine) }
            guard unreadBytes + Self.cost(partial) <= bufferLimit else { return end(.unread) }
            unreadBytes += Self.cost(partial)
            lines.append(partial)
            partial = []
        }
        partial += bytes[start...]
        guard !partial.isEmpty else { return }
        if partial.count > lineLimit { end(.longLine) } else if unreadBytes + Self.cost(partial) > bufferLimit { end(.unread) }
    }

    /// The next complete line, if one has arrived.
    mutating func next() -> [UInt8]? {
        guard !lines.isEmpty else { return nil }
        let line = lines.removeFirst()
        unreadBytes -= Self.cost(line)
        return line
    }

    /// What a kept line takes in memory, about: its bytes and an array's own (so that a flood of
    /// empty lines is bounded too).
    private static func cost(_ line: [UInt8]) -> Int { line.count + 48 }

    private mutating func end(_ reason: Overflow) {
        overflow = reason
        partial = []
    }
}
