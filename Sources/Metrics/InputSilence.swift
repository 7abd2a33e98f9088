import Foundation

/// Where the input itself held digital silence: runs of at least a gap's length (`GlitchDetector`'s
/// `minimumGapSeconds`) under its silence amplitude, as sample ranges in time order.
///
/// A gap in what is sent is a pipeline's dropout only where the input had sound. A text-to-speech
/// far end or a noise-free file pauses in exact zeros, its echo at the mic with it, and an output
/// that passes them on (AEC off: the input itself) holds a "gap" at every pause that no pipeline
/// made. The runs are events like the gaps they discount, so the list grows only as an input
/// pauses, never with a call's length.
public struct InputSilence: Sendable {
    private let minimumLength: Int
    private let silence: Float
    private(set) var count = 0
    private var runStart: Int?
    /// Runs of at least `minimumLength` samples, in time order.
    public private(set) var runs: [Range<Int>] = []
    /// Where the input starts or stops being what was sent (`appendSound` before or after it),
    /// in time order: a step there is the switch's, whatever an input's click finder saw.
    public private(set) var switches: [Int] = []
    private var isInput = true

    public init(detector: GlitchDetector) {
        minimumLength = detector.minimumGapSamples
        silence = detector.silenceAmplitude
    }

    /// Appends `block[0..<count]` of the input. A block without a silent sample, most of them,
    /// is one vectorised screen.
    public mutating func append(_ block: [Float], count blockCount: Int) {
        precondition(blockCount >= 0 && blockCount <= block.count, "InputSilence: block shorter than count")
        if !isInput { switches.append(count); isInput = true }
        let samples = block.span.extracting(0..<blockCount)
        if runStart == nil && !GapFinder.hasSilence(samples, below: silence) {
            count += blockCount
            return
        }
        for at in 0..<blockCount {
            if abs(samples[at]) < silence {
                if runStart == nil { runStart = count + at }
            } else {
                endRun(at: count + at)
            }
        }
        count += blockCount
    }

    /// Appends `count` samples that are not the input's silence (a stretch where something else
    /// than the input was sent: the engine's fill, a switch's blend, a silenced tick).
    public mutating func appendSound(count blockCount: Int) {
        endRun(at: count)
        if isInput && count > 0 { switches.append(count) }
        isInput = false
        count += blockCount
    }

    /// Ends the input: a run still open counts to the last sample.
    public mutating func finish() {
        endRun(at: count)
    }

    private mutating func endRun(at end: Int) {
        guard let start = runStart else { return }
        runStart = nil
        if end - start >= minimumLength { runs.append(start..<end) }
    }
}

extension GlitchReport {
    /// The report without what the input already held: gaps that a run of the input's own
    /// digital silence covers, and clicks within `margin` samples of such a run's start or end (the
    /// step into or out of exact zeros is a second difference's spike in the input too; inside
    /// the silence a click is the pipeline's) or of one of the
    /// input's own clicks (`inputClicks`, in time order: a talker's plosive passed on) — but not
    /// one within `margin` of where the input starts or stops being what was sent: a click
    /// finder run over the input saw the switch there, not the input.
    ///
    /// `alsoSilent` (in time order): stretches whose silence another part of the report owns (a
    /// capture restart's priming), joined to the input's silence for the gaps alone: a gap
    /// within them, or within one and the input's own silence that follows it (a talker's pause
    /// after the priming), is no dropout; one that runs on into the input's sound still is.
    public func discounting(_ input: InputSilence, inputClicks allInputClicks: [GlitchEvent], margin: Int,
                            alsoSilent: [Range<Int>] = []) -> GlitchReport {
        let runs = input.runs
        let silentRuns = alsoSilent.isEmpty ? runs : Self.union(runs, alsoSilent, margin: margin)
        var firstSwitch = 0
        let inputClicks = allInputClicks.filter { click in
            let switches = input.switches
            while firstSwitch < switches.count && switches[firstSwitch] + margin < click.sampleIndex { firstSwitch += 1 }
            return !(firstSwitch < switches.count && switches[firstSwitch] - margin <= click.sampleIndex)
        }
        // Each list is in time order: one pass with a moving start.
        var first = 0
        let keptGaps = gaps.filter { gap in
            while first < silentRuns.count && silentRuns[first].upperBound <= gap.lowerBound { first += 1 }
            // Covered, within `margin` at either end (a canceller's output falls silent a few
            // samples off its input's): a dropout that merely meets a pause is still one.
            var index = first
            while index < silentRuns.count && silentRuns[index].lowerBound < gap.upperBound {
                if silentRuns[index].lowerBound <= gap.lowerBound + margin && silentRuns[index].upperBound + margin >= gap.upperBound { return false }
                index += 1
            }
            return true
        }
        first = 0
        var firstClick = 0
        // A run that starts or ends where the input starts or stops being what was sent has no
        // step of the input's there: its silence was only where the input's tracking began (a
        // file mic's impulse a few ms after it took over, then its zeros, read as the step into them).
        let switchPoints = Set(input.switches)
        let keptEvents = events.filter { event in
            let n = event.sampleIndex
            while first < runs.count && runs[first].upperBound + margin < n { first += 1 }
            // Near an edge only: a click inside the room's silence cannot be the room's.
            var index = first
            while index < runs.count && runs[index].lowerBound - margin <= n {
                let run = runs[index]
                if abs(n - run.lowerBound) <= margin && !switchPoints.contains(run.lowerBound) { return false }
                if abs(n - run.upperBound) <= margin && !switchPoints.contains(run.upperBound) { return false }
                index += 1
            }
            while firstClick < inputClicks.count && inputClicks[firstClick].sampleIndex + margin < n { firstClick += 1 }
            return !(firstClick < inputClicks.count && inputClicks[firstClick].sampleIndex - margin <= n)
        }
        return GlitchReport(events: keptEvents, gaps: keptGaps)
    }

    /// The input's silent runs with `owned` stretches joined in: a stretch and a run that overlap
    /// or lie within `margin` of each other are one (the input's own runs are joined only where
    /// they overlap, as they are measured).
    package static func union(_ runs: [Range<Int>], _ owned: [Range<Int>], margin: Int) -> [Range<Int>] {
        var joined: [(range: Range<Int>, isOwned: Bool)] = []
        let tagged = runs.map { ($0, false) } + owned.map { ($0, true) }
        for (stretch, isOwned) in tagged.sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) {
            if let last = joined.last, stretch.lowerBound <= last.range.upperBound + (isOwned || last.isOwned ? margin : 0) {
                joined[joined.count - 1] = (last.range.lowerBound..<max(last.range.upperBound, stretch.upperBound), isOwned || last.isOwned)
            } else {
                joined.append((stretch, isOwned))
            }
        }
        return joined.map(\.range)
    }
}
