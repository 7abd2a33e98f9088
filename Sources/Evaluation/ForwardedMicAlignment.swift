import AudioCore
import Simulation

/// Lines the echo and near-end tracks up with a device microphone that an app forwards as its
/// custom mic (a pass-through): what the call captures is then the room's sound as the device
/// mic heard it some tens of milliseconds earlier — the app's timer, its buffers, the engine's
/// priming — so the tracks, the room's sound at the mic *now*, no longer line up with it. Scored
/// unaligned, a near talker's words landed in frames the tracks called far-end single talk, and
/// ERLE read 4.4 dB where the canceller took 10.7 off the echo; the near end was not judged at all.
///
/// Every tick's tracks are kept (a ring of about 0.7 s); a tick whose capture is a forwarded
/// microphone is looked up in it: the least lag at which echo + near end holds the capture to 40 dB
/// (a 16-bit device format's rounding passes), found by search and checked every tick after. The
/// tracks of every tick of the stretch are then the ring's at that lag; where they hold the
/// capture sample for sample, the near end is in it and measured. A mic that converts rate holds
/// them only where its resampler passes all the room holds (passthrough-jittery's 44.1 kHz: some
/// ticks; a 16 kHz mic under full-band noise: none): elsewhere the tracks are moved but the near
/// end stays unmeasured.
struct ForwardedMicAlignment {
    private var echoRing: [Float]
    private var nearRing: [Float]
    private var written = 0
    /// The lag found (samples), kept while each tick's capture matches at it.
    private(set) var lag: Int?
    /// Ticks to wait before searching again after a search found nothing (a search reads the
    /// whole ring: not every tick of a custom mic that never matches).
    private var searchBackOff = 0
    /// This tick's tracks at the lag; valid when `line(up:)` returned true.
    private(set) var echo: [Float] = []
    private(set) var nearEnd: [Float] = []

    /// The ring's size: a forwarded mic's lag up to this less a tick is found.
    static let ringSize = 32_768
    /// A match leaves at most this much of the capture's power unexplained (−40 dB: a 16-bit
    /// format's rounding of −60 dBFS noise leaves −41 dB; a resampler's filter far more).
    static let matchResidual: Float = 1e-4
    /// Ticks between searches that found nothing (half a second of 10 ms ticks).
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
        /// The tracks at the stretch's lag are in `echo` and `nearEnd`; `holdsCapture`: they
        /// hold this tick's capture sample for sample (to 40 dB), so the near end is in it.
        case shifted(holdsCapture: Bool)
    }

    /// Keeps the tick's tracks; for a tick whose capture is a forwarded microphone (the echo
    /// reaches what is sent, the near end does not line up with it), lines the tracks up with it.
    /// A lag found is kept for the stretch (until the capture is no forwarded mic's, or another
    /// lag holds it): a tick it does not hold sample for sample (a resampling mic's, a near talker
    /// through its filter) still has its tracks moved by it, but says the near end is not in it.
    mutating func line(up tick: TickSignals) -> Lining {
        let n = tick.count
        Self.store(tick.echo, ring: &echoRing, written: written, count: n)
        Self.store(tick.nearEnd, ring: &nearRing, written: written, count: n)
        written += n
        guard tick.echoReachesSent, !tick.nearEndInMic, !tick.sentIsSilenced, n < Self.ringSize else {
            lag = nil
            searchBackOff = 0
            return .notForwarded
        }
        if echo.count < n {   // once: ticks keep their size
            echo = [Float](repeating: 0, count: n)
            nearEnd = echo
        }
        if let known = lag, matches(tick.mic, count: n, lag: known) {
            load(lag: known, count: n)
            return .shifted(holdsCapture: true)
        }
        // A silent capture (a device starting, priming) matches every lag: nothing to search.
        let power = VectorMath.sumOfSquares(tick.mic, count: n)
        var found: Int?
        if power > 1e-10 * Float(n) {   // −100 dBFS
            if searchBackOff == 0 {
                found = search(tick.mic, count: n, power: power)
                if found == nil { searchBackOff = Self.searchInterval }
            } else {
                searchBackOff -= 1
            }
        }
        if let found { lag = found }
        guard let lag else { return .unaligned }
        load(lag: lag, count: n)
        return .shifted(holdsCapture: found != nil)
    }

    /// Whether echo + near end `lag` samples before this tick's end hold `mic`: a silent capture
    /// matches any lag it had (nothing tells them apart), so a pause keeps the lag.
    private func matches(_ mic: [Float], count n: Int, lag: Int) -> Bool {
        matches(mic, count: n, lag: lag, limit: Self.matchResidual * VectorMath.sumOfSquares(mic, count: n))
    }

    /// `matches`, given what the residual may reach: a search stops reading a lag past it.
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

    /// The least lag at which echo + near end hold `mic` (of `power`, its sum of squares); nil
    /// where none does.
    private func search(_ mic: [Float], count n: Int, power: Float) -> Int? {
        let longest = min(Self.ringSize - n, written), limit = Self.matchResidual * power
        guard longest >= 0 else { return nil }
        for candidate in 0...longest where matches(mic, count: n, lag: candidate, limit: limit) { return candidate }
        return nil
    }

    private mutating func load(lag: Int, count n: Int) {
        // As in `matches`: a position before the call's start reads the ring's silence.
        let start = written - n - lag
        for i in 0..<n {
            let at = (start + i) & (Self.ringSize - 1)
            echo[i] = echoRing[at]
            nearEnd[i] = nearRing[at]
        }
    }

    private static func store(_ signal: [Float], ring: inout [Float], written: Int, count: Int) {
        let start = written & (ringSize - 1)
        let head = min(count, ringSize - start)
        ring[start..<(start + head)] = signal[0..<head]
        if head < count { ring[0..<(count - head)] = signal[head..<count] }
    }
}
