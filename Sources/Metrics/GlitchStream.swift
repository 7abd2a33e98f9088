/// Incremental click and gap detection, same definitions and results as `GlitchDetector.analyze`
/// (which is built on it), whatever the block sizes. Holds a few milliseconds of context, not
/// the signal: a click at n is decided once half the click context after n has arrived.
public final class GlitchStream {
    private var clicks: ClickFinder
    private var gaps: GapFinder
    private var finished = false

    public init(detector: GlitchDetector) {
        clicks = ClickFinder(detector: detector)
        gaps = GapFinder(detector: detector)
    }

    /// Appends `block[0..<count]`.
    public func append(_ block: [Float], count: Int) {
        append(block, from: 0, count: count)
    }

    /// Appends `signal[offset..<offset+count]`, for batch callers feeding slices of one buffer.
    func append(_ signal: [Float], from offset: Int, count: Int) {
        precondition(!finished, "GlitchStream: append after finish")
        precondition(count >= 0 && offset >= 0 && offset + count <= signal.count, "GlitchStream: block shorter than count")
        clicks.append(signal, from: offset, count: count)
        gaps.append(signal, from: offset, count: count)
    }

    /// Samples appended so far.
    public var sampleCount: Int { clicks.count }

    /// Ends the stream: decides the last samples (their context is cut at the end) and reports.
    /// No append may follow; finishing again gives the same report.
    public func finish() -> GlitchReport {
        if !finished {
            clicks.finish()
            gaps.finish()
            finished = true
        }
        return GlitchReport(events: clicks.events, gaps: gaps.gaps)
    }
}
