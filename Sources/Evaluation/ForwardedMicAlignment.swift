import AudioCore
import Simulation

/// Lines the near-end and echo tracks up with a device microphone that an app forwards as its
/// custom mic (a pass-through): what the call captures is then the room's sound as the device mic
/// heard it some tens of milliseconds earlier — the app's timer, its buffers, the engine's
/// priming — so the tracks, the room at the mic *now*, no longer line up with it. Unaligned, the
/// talker's words landed in frames the track called far-end single talk (ERLE 4.4 dB where the
/// canceller took 10.7 off the echo), and the near end was not judged at all.
///
/// Every tick's tracks are kept (a ring of about 0.7 s); a tick whose capture is a forwarded
/// microphone is looked up in it: the least lag at which echo + near end hold the capture to 40 dB
/// (a 16-bit device format's rounding passes), found by search, checked every tick after, and
/// searched for near the old one (a buffer that gained or lost a frame) where it fails. The
/// tracks of every tick of the stretch are the ring's at that lag — the echo too, since the delay
/// is searched on the capture; where they hold the capture sample for sample, the near end is in
/// it and measured. A mic that converts rate holds them only where its resampler passes all the
/// room holds (passthrough-jittery's 44.1 kHz: some ticks; a 16 kHz mic under full-band noise:
/// none): elsewhere the tracks are moved but the near end stays unmeasured.
struct ForwardedMicAlignment {
    private var echoRing: [Float]
    private var nearRing: [Float]
    private var written = 0
    /// The lag found (samples), kept while each tick's capture matches at it.
    private(set) var lag: Int?
    /// Ticks to wait before searching again after a search found nothing (a search reads the
    /// whole ring: not every tick of a custom mic that never matches).
    private var searchBackOff = 0
    /// The next back-off: doubled after each search that found nothing, up to `searchInterval`.
    /// A stretch's first ticks (a switch's blend, the mic's priming) match nothing; waiting the
    /// whole interval after them left a pass-through's first half second unaligned.
    private var nextBackOff = 1
    /// This tick's near-end and echo tracks at the lag; valid when `line(up:)` returned `.shifted`.
    private(set) var nearEnd: [Float] = []
    private(set) var echo: [Float] = []

    /// The ring's size: a forwarded mic's lag up to this less a tick is found.
    static let ringSize = 32_768
    /// A match leaves at most this much of the capture's power unexplained (−40 dB: a 16-bit
    /// format's rounding of −60 dBFS noise leaves −41 dB; a resampler's filter far more).
    static let matchResidual: Float = 1e-4
    /// The most ticks between searches that found nothing (half a second of 10 ms ticks).
    static let searchInterval = 50

    init() {
        echoRing = [Float](repeating: 0, count: Self.ringSize)
        nearRing = [Float](repeating: 0, count: Self.ringSize)
    }

    /// What `line(up:)` made of a tick.
    enum Lining: Equatable {
        /// Not a forwarded mic's tick (the device mic itself, a file, a silenced send): as it is.
        case notForwarded
        /// A forwarded mic's, with no lag found yet: as it is.
        case unaligned
        /// The near-end track at the stretch's lag is in `nearEnd`; `holdsCapture`: the tracks
        /// hold this tick's capture sample for sample (to 40 dB), so the near end is in it.
        case shifted(holdsCapture: Bool)
    }

    /// Keeps the tick's tracks; for a tick whose capture is a forwarded microphone (the echo
    /// reaches what is sent, the near end does not line up with it), lines the near-end track up
    /// with it. A lag found is kept for the stretch (until the capture is no forwarded mic's, or
    /// another lag holds it): a tick it does not hold sample for sample (a resampling mic's, a
    /// near talker through its filter) still has its track moved by it, but says the near end is
    /// not in it.
    mutating func line(up tick: TickSignals) -> Lining {
        let n = tick.count
        // Once, on the call's first tick (ticks keep their size): a switch to a forwarded mic
        // mid-call allocates nothing.
        if nearEnd.count < n {
            nearEnd = [Float](repeating: 0, count: n)
            echo = [Float](repeating: 0, count: n)
        }
        Self.store(tick.echo, ring: &echoRing, written: written, count: n)
        Self.store(tick.nearEnd, ring: &nearRing, written: written, count: n)
        written += n
        guard tick.echoReachesSent, !tick.nearEndInMic, !tick.sentIsSilenced, n < Self.ringSize else {
            lag = nil
            searchBackOff = 0
            nextBackOff = 1
            return .notForwarded
        }
        let power = VectorMath.sumOfSquares(tick.mic, count: n)
        if let known = lag, matches(tick.mic, count: n, lag: known, limit: Self.matchResidual * power) {
            load(lag: known, count: n)
            return .shifted(holdsCapture: true)
        }
        // A silent capture (a device starting, priming) matches every lag: nothing to search.
        var found: Int?
        if power > 1e-10 * Float(n) {   // −100 dBFS
            // Near the lag it had (a buffer that gained or lost a frame), every tick: a few
            // hundred lags. The whole ring where nothing matched: after 1, 2, 4 … ticks in a
            // stretch, then every half second.
            if let known = lag {
                found = search(tick.mic, count: n, power: power, lags: max(0, known - 2 * n)...(known + 2 * n))
            }
            if found == nil, searchBackOff == 0 {
                found = search(tick.mic, count: n, power: power, lags: 0...Int.max)
                if found == nil {
                    searchBackOff = nextBackOff
                    nextBackOff = min(2 * nextBackOff, Self.searchInterval)
                }
            } else if found == nil {
                searchBackOff -= 1
            }
        }
        if let found { lag = found }
        guard let lag else { return .unaligned }
        load(lag: lag, count: n)
        return .shifted(holdsCapture: found != nil)
    }

    /// Whether echo + near end `lag` samples before this tick's end hold `mic`, leaving at most
    /// `limit` of its sum of squares unexplained (a lag is left as soon as it passes that). A
    /// silent capture matches any lag it had (nothing tells them apart), so a pause keeps the lag.
    private func matches(_ mic: [Float], count n: Int, lag: Int, limit: Float) -> Bool {
        // Before the call's first sample the ring holds silence (unwritten, or not yet wrapped).
        guard lag + n <= Self.ringSize else { return false }
        let start = written - n - lag
        var residual: Float = 0
        for i in 0..<n {
            let at = (start + i) & (Self.ringSize - 1)
            let difference = mic[i] - (echoRing[at] + nearRing[at])
            residual += difference * difference
            if residual > limit { return false }
        }
        return true
    }

    /// The least lag in `lags` at which echo + near end hold `mic` (of `power`, its sum of
    /// squares); nil where none does.
    private func search(_ mic: [Float], count n: Int, power: Float, lags: ClosedRange<Int>) -> Int? {
        let longest = min(Self.ringSize - n, written, lags.upperBound), limit = Self.matchResidual * power
        guard longest >= lags.lowerBound else { return nil }
        for candidate in lags.lowerBound...longest where matches(mic, count: n, lag: candidate, limit: limit) { return candidate }
        return nil
    }

    private mutating func load(lag: Int, count n: Int) {
        // As in `matches`: a position before the call's start reads the ring's silence.
        let start = written - n - lag
        for i in 0..<n {
            let at = (start + i) & (Self.ringSize - 1)
            nearEnd[i] = nearRing[at]
            echo[i] = echoRing[at]
        }
    }

    private static func store(_ signal: [Float], ring: inout [Float], written: Int, count: Int) {
        let start = written & (ringSize - 1)
        let head = min(count, ringSize - start)
        ring[start..<(start + head)] = signal[0..<head]
        if head < count { ring[0..<(count - head)] = signal[head..<count] }
    }
}
