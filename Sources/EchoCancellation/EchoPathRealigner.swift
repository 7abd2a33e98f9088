import AudioCore

/// How far the echo moved when the echo path jumped but kept its acoustics — a device's buffer
/// grew, a driver dropped a block: the lag, to the sample, at which the mic best matches the echo
/// estimate of the last filter that had the path (the canceller's anchor). Moving those weights
/// by the lag restores the filter at once; to learn the moved path again takes the filters
/// seconds, and a 15 ms jump is under the frame the bulk delay estimate resolves (and that
/// estimate averages over a second).
///
/// A search is due once the main filter has been worse than no filter, as soon as the mic window
/// it matches lies wholly after that moment (the filters may have moved on meanwhile: the anchor
/// has not). Then it rests half a second, so double talk or a path that really changed costs a
/// search now and then, not one a frame.
struct EchoPathRealigner {
    let frameSize: Int
    /// The largest jump looked for, either way (samples).
    let maxShift: Int
    /// How much mic is matched (samples).
    let window: Int
    /// Frames of mic kept, and of estimate a search needs: the window and the lags either side.
    let capacityFrames: Int
    private var micRing: [Float]
    /// The ring slot the next frame goes to: the oldest.
    private var slot = 0
    private var storedFrames = 0
    private var micLine: [Float]
    /// Frames since the main filter was first seen lost, while a search is due.
    private var framesSinceLost: Int?
    private var rest = 0
    private let restFrames: Int
    /// A match at least this good (the moved estimate leaves under 10 % of the mic), and this much
    /// better than the anchor's own alignment, is a jump. Drift, searched after the filter lost
    /// its hold on it for a moment, matched 0.90–0.94 and moving there cost its ERLE 10 dB.
    static let minimumMatch: Float = 0.95
    static let minimumGain: Float = 0.3

    init(frameSize: Int, sampleRate: Int) {
        self.frameSize = frameSize
        maxShift = 30 * sampleRate / 1000
        let frames = (50 * sampleRate / 1000 + frameSize - 1) / frameSize
        window = frames * frameSize
        capacityFrames = frames + 2 * ((maxShift + frameSize - 1) / frameSize)
        micRing = [Float](repeating: 0, count: capacityFrames * frameSize)
        micLine = [Float](repeating: 0, count: micRing.count)
        restFrames = max(1, 500 * sampleRate / 1000 / frameSize)
    }

    /// Whether a search is due or waits: the anchor should not learn from a filter that may be lost.
    var isWaiting: Bool { framesSinceLost != nil }

    /// Keeps one frame of the mic.
    mutating func add(mic: [Float]) {
        VectorMath.copy(mic, into: &micRing, at: slot * frameSize, count: frameSize)
        slot = slot + 1 == capacityFrames ? 0 : slot + 1
        storedFrames = min(storedFrames + 1, capacityFrames)
    }

    /// One frame's verdict on the main filter (`lost`: its error has outgrown the mic while the
    /// far end talks); true when a search is due now.
    mutating func searchIsDue(lost: Bool) -> Bool {
        if rest > 0 { rest -= 1; return false }
        if lost && framesSinceLost == nil { framesSinceLost = 0 }
        guard let frames = framesSinceLost.map({ $0 + 1 }) else { return false }
        framesSinceLost = frames
        // The mic window ends `maxShift` before the newest sample and must begin after the
        // filter was first lost: `window + maxShift` samples ago at least.
        guard storedFrames == capacityFrames, frames * frameSize >= window + maxShift else { return false }
        framesSinceLost = nil
        rest = restFrames
        return true
    }

    /// The lag within `maxShift` whose normalised correlation of the mic and the shifted
    /// `estimate` (the anchor's, `capacityFrames` frames oldest first, ending with the newest
    /// mic frame's) is highest, that correlation, and lag 0's.
    mutating func bestLag(estimate: [Float]) -> (lag: Int, match: Float, aligned: Float) {
        let total = capacityFrames * frameSize
        precondition(estimate.count >= total, "estimate shorter than the mic kept")
        // Oldest first: the ring from `slot` on, then up to it.
        let head = total - slot * frameSize
        VectorMath.copy(micRing, from: slot * frameSize, into: &micLine, count: head)
        if head < total { VectorMath.copy(micRing, into: &micLine, at: head, count: total - head) }
        // Mic samples [start, start + window) against estimate samples [start − lag, …).
        let start = total - maxShift - window
        let micEnergy = Double(FrameLoops.dot(micLine, from: start, micLine, from: start, count: window))
        guard micEnergy > 0 else { return (0, 0, 0) }
        var echoEnergy = Double(FrameLoops.dot(estimate, from: start + maxShift, estimate, from: start + maxShift, count: window))
        var best = 0, bestMatch: Float = -1, aligned: Float = 0
        for lag in -maxShift...maxShift {
            let from = start - lag
            if lag > -maxShift {
                // The estimate's window slid one sample earlier.
                let entering = Double(estimate[from]), leaving = Double(estimate[from + window])
                echoEnergy = max(0, echoEnergy + entering * entering - leaving * leaving)
            }
            guard echoEnergy > 0 else { continue }
            let match = Float(Double(FrameLoops.dot(micLine, from: start, estimate, from: from, count: window))
                              / (micEnergy * echoEnergy).squareRoot())
            if lag == 0 { aligned = match }
            if match > bestMatch { bestMatch = match; best = lag }
        }
        return (best, bestMatch, aligned)
    }
}
