import AudioInterop

/// Feeds the tap-free gate a loopback resampled to the mic's clock, for a recording whose
/// loopback and mic ran on two clocks (`EchoPathGate.clockDriftPPM`).
///
/// Why: the gate fits the echo path per block of 2.7 s and calls a frame double talk where the
/// mic's residual after the fitted echo stands within 30 dB of it. Drift moves the echo by a
/// fraction of a sample within a block — at 20 ppm, 2.6 samples a block — and at 8 kHz that is
/// enough phase to leave far more than −30 dB of the echo: pure echo read 426 of 1033 frames as
/// double talk at 20 ppm, 1013 at 100 ppm, and the near end "lost". Resampled by the drift the
/// first pass measured, the loopback keeps its place in the mic, and the gate sees one path.
struct ClockDriftFeed {
    private(set) var gate: EchoPathGate
    private let resampler: Resampler
    private let samples: Int
    private var reference: [Float] = []
    private var mic: [Float] = []
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
    /// much or more: the peak's interpolation reads a 100 ppm drift 5 % off, and 5 ppm left over
    /// still reads as double talk on a far end to 24 kHz.
    static let residualDriftPPM = 0.2
    /// At most this many passes over the resampled loopback.
    static let passes = 3

    /// Where `gate` (a first pass over reference and mic, finished) measured a drift in
    /// `resampledDrift`, gates again over the loopback resampled by it — `feed` hands a new
    /// feed every block of the call, from the start — and again by what is left while that is
    /// `residualDriftPPM` or more. `gate` and `activity` become the last pass's; returns the
    /// drift resampled by, nil where there was none.
    static func compensate(_ gate: inout EchoPathGate, activity: inout FrameBits, sampleRate: Int,
                           configuration: EchoMetricsConfiguration, samples: Int,
                           feed: (inout ClockDriftFeed) throws -> Void) throws -> Double? {
        var drift: Double?
        for _ in 0..<passes {
            guard let measured = gate.clockDriftPPM else { break }
            let total = (drift ?? 0) + measured
            guard resampledDrift.upperBound >= abs(total),
                  drift == nil ? resampledDrift.contains(abs(total)) : abs(measured) >= residualDriftPPM else { break }
            var pass = try ClockDriftFeed(gate: EchoPathGate(sampleRate: sampleRate, configuration: configuration),
                                          sampleRate: sampleRate, driftPPM: total, samples: samples)
            try feed(&pass)
            activity = try pass.finish()
            gate = pass.gate
            drift = total
        }
        return drift
    }

    /// The next `count` samples of both signals, as read.
    mutating func append(reference block: [Float], mic micBlock: [Float], count: Int) throws {
        try resample(block, count: count, end: false)
        mic.append(contentsOf: micBlock[0..<count])
        feed()
    }

    /// Flushes the resampler and decides the frames.
    mutating func finish() throws -> FrameBits {
        try resample([], count: 0, end: true)
        if reference.count < mic.count { reference.append(contentsOf: repeatElement(0, count: mic.count - reference.count)) }
        feed()
        return gate.finish()
    }

    private mutating func resample(_ block: [Float], count: Int, end: Bool) throws {
        var consumed = 0
        repeat {
            let (used, produced) = try resampler.process(block, inputOffset: consumed, inputFrames: count - consumed, into: &scratch,
                                                         outputCapacity: scratch.count, endOfInput: end)
            reference.append(contentsOf: scratch[0..<produced])
            consumed += used
            if used == 0 && produced == 0 { break }
        } while consumed < count || end
    }

    private mutating func feed() {
        let count = min(reference.count, mic.count, max(0, samples - gate.received))
        guard count > 0 else { return }
        gate.append(reference: reference, mic: mic, from: 0, count: count)
        reference.removeFirst(count)
        mic.removeFirst(count)
    }
}
