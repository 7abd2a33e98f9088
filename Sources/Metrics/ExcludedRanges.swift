/// Sample ranges a measurement leaves out, given in ascending order while frames are scored in
/// ascending order: ranges wholly before the frame being asked about are forgotten, so the list
/// stays a few entries long however long the call.
struct ExcludedRanges {
    private var ranges: [Range<Int>] = []
    private var head = 0

    /// Adds `range`; one that touches the previous one extends it.
    mutating func add(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        if head < ranges.count, let last = ranges.last, range.lowerBound <= last.upperBound {
            ranges[ranges.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            return
        }
        // Drop what scoring has passed before growing the array.
        if head > 0 && head * 2 >= ranges.count {
            ranges.removeFirst(head)
            head = 0
        }
        ranges.append(range)
    }

    /// The ranges not yet forgotten that end after `sample`.
    func ranges(reachingPast sample: Int) -> [Range<Int>] {
        ranges[head...].filter { $0.upperBound > sample }
    }

    /// Whether samples `start..<end` lie wholly inside one range; forgets ranges before `start`.
    mutating func covers(_ start: Int, _ end: Int) -> Bool {
        while head < ranges.count, ranges[head].upperBound <= start { head += 1 }
        return head < ranges.count && ranges[head].lowerBound <= start && ranges[head].upperBound >= end
    }

    /// Whether samples `start..<end` touch a range; forgets ranges before `start`.
    mutating func touches(_ start: Int, _ end: Int) -> Bool {
        while head < ranges.count, ranges[head].upperBound <= start { head += 1 }
        return head < ranges.count && ranges[head].lowerBound < end
    }
}
