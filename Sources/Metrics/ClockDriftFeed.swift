import AudioInterop

/// Feeds the tap-free gate a loopback resampled to the mic's clock, for a recording whose
/// loopback and mic ran on two clocks (`EchoPathGate.clockDriftPPM`).
///
/// Why: the gate fits the echo path per block of 2.7 s and calls a frame double talk where the
/// mic's residual after the fitted echo stands within 30 dB of it. Drift moves the echo by a
/// fraction of a sample within a block — at 20 ppm, 2.6 samples a block — and at 8 kHz that is
/// enough phase to leave far more than −30 dB of the echo: pure echo read 426 of 1033 frames as
/// double talk at 20 ppm, 1013 at 100 ppm, and the near end "lost". Resampled by the drift the
/// gate measured, the loopback keeps its place in the mic, and the gate sees one path.
struct ClockDriftFeed {
    private(set) var gate: EchoPathGate
    private let resampler: Resampler
    private let samples: Int
    /// Samples not yet handed to the gate: `reference[referenceHead...]`, `mic[micHead...]`. The
    /// resampled loopback runs ahead of the mic, or behind, by the drift (a day at 500 ppm: 2 M
    /// samples); the heads move instead of the arrays, which are compacted once the heads pass
    /// `compaction`, so a long call moves each sample a bounded number of times.
    private var reference: [Float] = []
    private var referenceHead = 0
    private var mic: [Float] = []
    private var micHead = 0
    private static let compaction = 1 << 16
    private var scratch = [Float](repeating: 0, count: 8192)

    /// `driftPPM`: how much faster the mic's clock runs than the loopback's; `samples`: the
    /// analysed length, which the gate receives in full (the resampled loopback's end padded with
    /// silence where it falls short).
    init(gate: EchoPathGate, sampleRate: Int, driftPPM: Double, samples: Int) throws {
        self.gate = gate
        self.samples = samples
        resampler = try Resampler(inputRate: sampleRate, outputRate: sampleRate, quality: .best, clockRatio: 1 + driftPPM * 1e-6)
    }

    /// A drift (ppm, either sign) in this range has the tap-free gate run again over the loopback
    /// resampled by it: from a tenth of the 10–100 ppm two clocks drift by (one clock's estimate
    /// stays far under it) to where the estimate still holds (at 1000 ppm it read 2600).
    static let resampledDrift = 1.0...500.0
    /// A pass after the first is run again, by what its gate still measures, while that is this
    /// much or more: a first estimate can be a third off (100 ppm read 134), and 5 ppm left over
    /// still reads as double talk on a far end to 24 kHz.
    static let residualDriftPPM = 0.2
    /// At most this many passes over the resampled loopback (each a pass of the gate).
    static let passes = 5

    /// Where `gate` (a first pass over reference and mic, finished) measured a drift in
    /// `resampledDrift`, gates again over the loopback resampled by it — `feed` hands a new
    /// feed every block of the call, from the start — and again by what each pass still measures
    /// while that is `residualDriftPPM` or more (a first estimate can be a third off: the peak of
    /// a path fitted over a block the echo slides through is only roughly placed). The pass kept
    /// is the best — one that could judge its frames (no `limitation`), then the most frames whose
    /// echo its paths explain, then the fewest near-end frames — and only where it is better than
    /// the gate over the loopback as recorded (a drift that is real explains the echo better); of
    /// two as good, the later. `gate` and `activity` become its. Returns the drift it resampled
    /// by, nil where none was kept.
    static func compensate(_ gate: inout EchoPathGate, activity: inout FrameBits, sampleRate: Int,
                           configuration: EchoMetricsConfiguration, samples: Int,
                           feed: (inout ClockDriftFeed) throws -> Void) throws -> Double? {
        // Lower is better: a gate that could judge its frames (no `limitation`), then more frames
        // whose echo the fitted paths explain, then fewer near-end frames.
        func rank(_ gate: EchoPathGate, _ activity: FrameBits) -> (Int, Int, Int) {
            (gate.limitation == nil ? 0 : 1, -gate.explainedFrames, activity.setCount)
        }
        let recorded = rank(gate, activity)
        var kept: (gate: EchoPathGate, activity: FrameBits, drift: Double)?
        var last = gate, total = 0.0
        for pass in 0..<passes {
            guard let measured = last.clockDriftPPM else { break }
            let next = total + measured
            guard resampledDrift.upperBound >= abs(next),
                  pass == 0 ? resampledDrift.contains(abs(next)) : abs(measured) >= residualDriftPPM else { break }
            var resampled = try ClockDriftFeed(gate: EchoPathGate(sampleRate: sampleRate, configuration: configuration, micOffset: gate.micOffset),
                                               sampleRate: sampleRate, driftPPM: next, samples: samples)
            try feed(&resampled)
            let decided = try resampled.finish()
            last = resampled.gate
            total = next
            let ranked = rank(last, decided)
            if ranked < recorded && (kept.map { ranked <= rank($0.gate, $0.activity) } ?? true) { kept = (last, decided, next) }
        }
        guard let kept else { return nil }
        gate = kept.gate
        activity = kept.activity
        return kept.drift
    }

    /// The next `count` samples of both signals, from `from` in each.
    mutating func append(reference block: [Float], mic micBlock: [Float], from: Int = 0, count: Int) throws {
        try resample(block, from: from, count: count, end: false)
        mic.append(contentsOf: micBlock[from..<(from + count)])
        feed()
    }

    /// Flushes the resampler and decides the frames.
    mutating func finish() throws -> FrameBits {
        try resample([], from: 0, count: 0, end: true)
        let short = (mic.count - micHead) - (reference.count - referenceHead)
        if short > 0 { reference.append(contentsOf: repeatElement(0, count: short)) }
        feed()
        return gate.finish()
    }

    private mutating func resample(_ block: [Float], from: Int, count: Int, end: Bool) throws {
        var consumed = 0
        repeat {
            let (used, produced) = try resampler.process(block, inputOffset: from + consumed, inputFrames: count - consumed, into: &scratch,
                                                         outputCapacity: scratch.count, endOfInput: end)
            // Past the analysed length, the loopback is of no use to the gate.
            if reference.count - referenceHead + gate.received < samples { reference.append(contentsOf: scratch[0..<produced]) }
            consumed += used
            if used == 0 && produced == 0 { break }
        } while consumed < count || end
    }

    private mutating func feed() {
        let available = min(reference.count - referenceHead, mic.count - micHead)
        let count = min(available, max(0, samples - gate.received))
        guard count > 0 else { return }
        gate.append(reference: reference, from: referenceHead, mic: mic, from: micHead, count: count)
        referenceHead += count
        micHead += count
        if referenceHead >= Self.compaction { reference.removeFirst(referenceHead); referenceHead = 0 }
        if micHead >= Self.compaction { mic.removeFirst(micHead); micHead = 0 }
    }
}
