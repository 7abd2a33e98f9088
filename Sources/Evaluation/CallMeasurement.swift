import AudioCore
import Foundation
import EchoLabJSON
import Metrics
import Simulation

/// Measures a call while it runs, in bounded memory: streaming echo metrics over (reference,
/// mic, sent, echo at the mic, near end) — ERL is the acoustic one, reference over the echo
/// tap — streaming click/gap detection on the sent audio, and per-tick energies of `sent − mic`
/// and `mic` so the lint can state what a canceller did to a stretch of the call. Every signal
/// is lined up with `sent` first — delayed by the send path's latency (`TickSignals.sendLatency`:
/// speex one frame, WebRTC 7 ms, AECM 20 ms) — so a canceller is scored on what it removed, not
/// on its delay (scored as they are, speex's ERLE on a double-talk call read 4.7 dB for 6.5).
public final class CallMeasurement: CallTap {
    public let sampleRate: Int
    private let analysis: EchoAnalysisStream
    /// Clicks and gaps in `sent`.
    private let glitches: GlitchStream
    /// Where the input — the room's sound at the mic (echo and near end), or a file's or
    /// generator's own audio as the mic — was itself digital silence, lined up with `sent`, and
    /// its own clicks: `sent`'s gaps and clicks there are the input's, not the pipeline's. The
    /// room's only where the tracks are the room (the tick's `captureIsContinuous`); a file's always.
    private var inputSilence: InputSilence
    /// The room's digital silence as the tracks hold it in every tick the room reaches `sent`,
    /// broken capture or not: beside a capture restart's priming (the tracks prime with the mic)
    /// it tells the room's own pause that follows from a dropout (`finish(segments:ownedSilence:)`).
    private var trackSilence: InputSilence
    private var notTracksUntil = 0
    private let inputGlitches: GlitchStream
    /// How near an input's click or the edge of its silence a sent click is the input's (the
    /// click finder's context, 5 ms).
    private let inputMargin: Int
    private var roomSound: [Float] = []
    /// The send path's input (the capture lined up with `sent`) where it held digital silence,
    /// and the ticks of `sent` whose capture was not echo alone (a near talker at or above the
    /// near-end silence level, no echo at all, or none reaching `sent`): a gap in `sent` outside
    /// both is the send path zeroing live echo over no talker — AECM sends exact zeros where it
    /// suppresses echo hard — judged by the ERLE, not a dropout (`leavingOutLiveEchoZeroed`).
    private var sendInputSilence: InputSilence
    private var notEchoAlone: [Range<Int>] = []
    /// A near-end track's tick at or above this mean square holds a talker (`nearEndSilentDBFS`:
    /// the room's noise alone stays under it).
    private let talkerMeanSquare: Float
    /// Until this sample of `sent`, what is sent holds capture in which no echo reached `sent`
    /// (a file mic, a silenced tick): a capture lands `sendLatency` after its tick.
    private var echoNotSentUntil = 0
    /// Until this sample of `sent`, what is sent still holds capture that was not the room's (a
    /// file mic, a silenced tick): a capture reaches `sent` `sendLatency` after its tick.
    private var notRoomUntil = 0
    /// The same for capture that was not a file's or generator's own audio, whole (the room's, an
    /// engine's fill, a switch's blend, a silenced tick).
    private var notSourceUntil = 0
    /// Per tick: Σ(sent−mic)², Σmic² (spilled to disk beyond a few minutes: memory stays flat).
    private let tickEnergies = SpillingRows<Double>(width: 2)
    private(set) var tickFrames = 0
    /// The recent input signals (rings of a power-of-two size) and each as it lines up with this
    /// tick's `sent`.
    private var history: AlignmentHistory
    /// The tracks lined up with a device mic an app forwards as its custom mic.
    private var forwardedMic = ForwardedMicAlignment()
    /// How late the room's sound reached the last tick whose capture it is known in: 0 through the
    /// device mic itself, a forwarded device mic's lag once found (`ForwardedMicAlignment`); nil
    /// before the first. A switch between the two moves the echo's delay by the forwarding app's
    /// latency, as a route change moves it: searched again where the new lag is found.
    private var echoLag: Int?
    /// A lag that moves by more than this is a new echo path (a forwarded mic's buffer that gained
    /// a frame moves it by a tick's 10 ms; a rate-converting mic's matches move by a sample or two).
    private static let echoLagChangeMilliseconds = 2
    /// Keeps the aligned tracks for scorers (a run with `--scorer` only).
    var alignedTracks: AlignedTrackRecorder?
    /// The activity gate's talk runs and the analysis frame's size, once `finish` has run: where
    /// scorers cut the call into stretches.
    private(set) var talkRuns: [TalkRun] = []
    private(set) var analysisFrameSize = 0

    /// Nothing is reserved up front: the per-tick rows spill to disk, so a day-long call keeps
    /// the memory of a short one. `sendLatencyIsFixed`: the ticks' `sendLatency` never changes (the
    /// scenario switches no voice-processing mode, `Scenario.sendLatencyIsFixed`); with no
    /// latency then, nothing is kept for lining up.
    ///
    /// The echo and near-end tracks are the room's sound at the mic in the ticks that say so
    /// (`TickSignals.captureIsContinuous`: every tick of a call without hardware; with the hardware
    /// modelled, not where an audio unit's interruption, a stream priming or a route change
    /// silences or breaks the tracks with the mic, a dropout of the pipeline's own). The tick
    /// tells, not the call when the measurement was made: hardware set on a call after its meter
    /// had every tick read as the room. There `sent`'s gaps and clicks where the room itself was
    /// silent or clicked are the input's, and not counted. A file's or generator's own pauses
    /// and clicks, where that mic alone is sent, are its own with or without the hardware: no
    /// device stands between the file and what the app pushes (a text-to-speech mic read 26 gaps
    /// with an audio session modelled and none without, its sent.wav bit for bit the same).
    public init(sampleRate: Int, configuration: EchoMetricsConfiguration = .default,
                sendLatencyIsFixed: Bool = false) {
        self.sampleRate = sampleRate
        history = AlignmentHistory(latencyIsFixed: sendLatencyIsFixed)
        var configuration = configuration
        // The call's near-end track is its talker and its room's noise: all the mic holds besides
        // the echo. (mic − echo is not that where a custom mic resampled or a file stood in for it.)
        configuration.nearEndTrackHoldsTheNoise = true
        analysis = EchoAnalysisStream(sampleRate: sampleRate, configuration: configuration, includesEcho: true, includesNearEnd: true)
        let detector = GlitchDetector(sampleRate: sampleRate)
        glitches = GlitchStream(detector: detector)
        inputSilence = InputSilence(detector: detector)
        trackSilence = InputSilence(detector: detector)
        sendInputSilence = InputSilence(detector: detector)
        talkerMeanSquare = Float(pow(10, configuration.nearEndSilentDBFS / 10))
        // One entry per stretch of talk or of no echo (a few a second of speech): reserved, so a
        // tick does not allocate as they come (an hour's speech may still grow it, by doubling).
        notEchoAlone.reserveCapacity(1024)
        inputGlitches = GlitchStream(detector: detector)
        inputMargin = detector.contextSamples
    }

    public func record(_ tick: TickSignals) throws {
        var tick = tick
        let lining = forwardedMic.line(up: tick)
        // A switch between the device mic and a pass-through of it (a mute or a file mic between
        // them aside) moves the echo by the app's latency: a new echo path from the tick the new
        // lag is found in (a switch's blend and a pass-through's priming hold no lag).
        var echoPathChanged = tick.echoPathChanged
        let lag: Int? = switch lining {
        case .notForwarded: tick.echoReachesSent && tick.nearEndInMic && !tick.sentIsSilenced ? 0 : nil
        case .unaligned: nil
        case .shifted: forwardedMic.lag
        }
        if let lag {
            if let echoLag, abs(lag - echoLag) * 1000 > Self.echoLagChangeMilliseconds * sampleRate { echoPathChanged = true }
            echoLag = lag
        }
        if case .shifted(let holdsCapture) = lining {
            // A forwarded device mic: the tracks at the lag it holds them are the room's sound in
            // this tick's capture. The near end there is the talker (measured where the tracks hold
            // the capture sample for sample) and tells the talk apart; the echo there is what the
            // ERL pairs with the reference at the delay searched on this capture (left at the
            // room's, a call that started on a pass-through read 6.9 dB for a 6 dB path).
            tick = TickSignals(frame: tick.frame, count: tick.count, mic: tick.mic, reference: tick.reference, echo: forwardedMic.echo,
                               nearEnd: forwardedMic.nearEnd, played: tick.played, sent: tick.sent, sendLatency: tick.sendLatency,
                               nearEndInMic: holdsCapture, echoReachesSent: true, sentIsSilenced: tick.sentIsSilenced,
                               micIsCustomMicAudio: tick.micIsCustomMicAudio, echoPathChanged: echoPathChanged,
                               captureIsContinuous: tick.captureIsContinuous)
        }
        // This tick's capture reaches sent `sendLatency` later (as its tracks are lined up below);
        // exclusions are given before the frames there are scored.
        let start = Int(tick.frame) + tick.sendLatency, inSent = start..<(start + tick.count)
        // The room's new path reaches sent with this tick's capture: its delay is searched again.
        if echoPathChanged { analysis.searchDelayAgain(from: start) }
        if sendLatencies.last?.latency != tick.sendLatency { sendLatencies.append((Int(tick.frame), tick.sendLatency)) }
        if tick.sentIsSilenced {
            // Silence is sent from this tick on, and this tick's capture lands `sendLatency` later:
            // neither stretch holds anything to measure. First, so the ranges stay ascending.
            let silenced = Int(tick.frame)..<(start + tick.count)
            analysis.excludeFromEcho(silenced)
            analysis.excludeFromNearEndPreservation(silenced)
            // What was sent as silence is this tick's stretch of the sent stream alone: the
            // capture it held goes out after the unmute.
            analysis.markNotSent(Int(tick.frame)..<(Int(tick.frame) + tick.count))
            SilentCapture.append(Int(tick.frame)..<(Int(tick.frame) + tick.count), to: &silencedSent)
        }
        if !tick.nearEndInMic { analysis.excludeFromNearEndPreservation(inSent) }
        if !tick.echoReachesSent {
            analysis.excludeFromEcho(inSent)
            analysis.markNotSent(inSent)
        }
        // A real mic's capture of digital silence while the room at it held sound holds neither
        // its echo nor its talker: the app muted by pushing zeros (or the mic primed, or ran dry).
        // Measured against the tracks, such a stretch read a made-up ERL and ERLE (−7 dB). Only a
        // stretch silent all through is called a mute (`SilentCapture.mutes`).
        if tick.echoReachesSent, !tick.sentIsSilenced, Self.isDigitalSilence(tick.mic, count: tick.count) {
            let silenced = !Self.isDigitalSilence(tick.echo, count: tick.count) || !Self.isDigitalSilence(tick.nearEnd, count: tick.count)
            if silenced {
                analysis.excludeFromEcho(inSent)
                analysis.markNotSent(inSent)
                if tick.nearEndInMic { analysis.excludeFromNearEndPreservation(inSent) }
            }
            silentCapture.note(inSent, silencedSound: silenced)
        }
        let mic: [Float], echo: [Float], nearEnd: [Float]
        if history.line(up: tick) {
            mic = history.mic
            echo = history.echo
            nearEnd = history.nearEnd
            analysis.append(reference: history.reference, mic: mic, processed: tick.sent, echo: history.echo,
                            nearEnd: history.nearEnd, count: tick.count)
            alignedTracks?.append(reference: history.reference, mic: mic, output: tick.sent, echo: history.echo,
                                      nearEnd: history.nearEnd, count: tick.count)
            noteInputSound(echo: history.echo, nearEnd: history.nearEnd, mic: mic, of: tick)
        } else {
            mic = tick.mic
            echo = tick.echo
            nearEnd = tick.nearEnd
            analysis.append(reference: tick.reference, mic: mic, processed: tick.sent, echo: tick.echo,
                            nearEnd: tick.nearEnd, count: tick.count)
            alignedTracks?.append(reference: tick.reference, mic: mic, output: tick.sent, echo: tick.echo,
                                      nearEnd: tick.nearEnd, count: tick.count)
            noteInputSound(echo: tick.echo, nearEnd: tick.nearEnd, mic: mic, of: tick)
        }
        sendInputSilence.append(mic, count: tick.count)
        // Whose capture this tick of `sent` holds is known `sendLatency` late: a tick whose capture
        // no echo reaches marks `sent` from now until it has landed (as `noteInputSound` does).
        if !(tick.echoReachesSent && !tick.sentIsSilenced) {
            echoNotSentUntil = max(echoNotSentUntil, Int(tick.frame) + tick.sendLatency + tick.count)
        }
        // Zeros over a talker cut him, whatever the echo under him (the near-end track holds the
        // room's noise too, under the silence level): only echo alone is a canceller's to suppress.
        if Int(tick.frame) < echoNotSentUntil || VectorMath.sumOfSquares(echo, count: tick.count) == 0
            || VectorMath.sumOfSquares(nearEnd, count: tick.count) >= talkerMeanSquare * Float(tick.count) {
            SilentCapture.append(Int(tick.frame)..<(Int(tick.frame) + tick.count), to: &notEchoAlone)
        }
        if !playedSound { playedSound = !Self.isDigitalSilence(tick.played, count: tick.count) }
        glitches.append(tick.sent, count: tick.count)
        let (error, power) = Self.energies(tick.sent, mic, count: tick.count)
        tickEnergies.append(error, power)
        tickFrames = tick.count
        // Checked once a tick (two loads): a temporary folder that filled up mid-call stops the
        // call with its reason instead of failing later.
        if let failure = spillError { throw failure }
    }

    /// Why the call's metric rows could not be written to the temporary folder or read back, if
    /// they could not. Checked again once the run's figures are read: a figure read after a failed
    /// read back is not the call's.
    public var spillError: SpillError? {
        .first(analysis.spillError, tickEnergies.spillError)
    }

    /// The input's sound this tick, lined up with `sent`: the room's at the mic (echo plus near
    /// end, which holds the room's noise) where the room is what is sent; a file's or generator's
    /// own audio (`mic`) where that mic alone is — its pauses are the file's, as a text-to-speech
    /// far end's are the room's; elsewhere (a silenced tick, the engine's fill, a switch) sound,
    /// so that no gap there is taken for the input's.
    private func noteInputSound(echo: [Float], nearEnd: [Float], mic: [Float], of tick: TickSignals) {
        if roomSound.count < tick.count { roomSound = [Float](repeating: 0, count: tick.count) }   // once: ticks keep their size
        // A silenced tick (muted, or the audio unit stopped: its tracks read zeros too) is the
        // pipeline's silence, never the room's. The flags are the tick's capture's, which lands in
        // `sent` `sendLatency` later: until then this tick's `sent` is still the earlier capture's.
        let landsUntil = Int(tick.frame) + tick.sendLatency + tick.count
        // With the hardware modelled the tracks are the room's sound as sent only where the input
        // device passed it on unbroken (`TickSignals.captureIsContinuous`): a dropout, a stream
        // priming or a route change is in the tracks too, and is the pipeline's. Counted everywhere,
        // a talker's plosives on a route would read as the pipeline's clicks.
        let roomIsInTracks = tick.captureIsContinuous
        if !(roomIsInTracks && tick.echoReachesSent && tick.nearEndInMic && !tick.sentIsSilenced) { notRoomUntil = max(notRoomUntil, landsUntil) }
        // A file or generator: the room does not reach what is sent (a passthrough's capture is
        // the device mic's, whose zeros may be the app's own dropout).
        if !(tick.micIsCustomMicAudio && !tick.echoReachesSent) { notSourceUntil = max(notSourceUntil, landsUntil) }
        if !(tick.echoReachesSent && tick.nearEndInMic && !tick.sentIsSilenced) { notTracksUntil = max(notTracksUntil, landsUntil) }
        if Int(tick.frame) >= notSourceUntil {
            inputSilence.append(mic, count: tick.count)
            trackSilence.appendSound(count: tick.count)
            inputGlitches.append(mic, count: tick.count)
            return
        }
        VectorMath.add(echo, nearEnd, into: &roomSound, count: tick.count)
        if Int(tick.frame) >= notTracksUntil {
            trackSilence.append(roomSound, count: tick.count)
        } else {
            trackSilence.appendSound(count: tick.count)
        }
        guard Int(tick.frame) >= notRoomUntil else {
            inputSilence.appendSound(count: tick.count)
            // Clicks are looked for in the room's sound only; here it is not what was sent.
            VectorMath.fill(&roomSound, count: tick.count)
            inputGlitches.append(roomSound, count: tick.count)
            return
        }
        inputSilence.append(roomSound, count: tick.count)
        inputGlitches.append(roomSound, count: tick.count)
    }

    /// Where a real mic captured digital silence (samples of `sent`), and which of it silenced
    /// the room's sound (left out of the echo and near-end figures): an app's own mute.
    package private(set) var silentCapture = SilentCapture()
    /// The send path's latency from each tick it changed at (capture frame, samples).
    private var sendLatencies: [(frame: Int, latency: Int)] = []
    /// The stretches of sent the pipeline silenced on purpose (muted, the audio unit stopped or
    /// interrupted), merged, in time order: their silence is no gap. Counted as gaps, they were
    /// pipeline issues only where the canceller's output around them was loud enough to frame a
    /// dropout (an interruption read a gap in disabled and aec3, none in speex, webrtc and echolab).
    private var silencedSent: [Range<Int>] = []

    /// The send path's latency at capture frame `frame`: where a capture then is in `sent`.
    package func sendLatency(at frame: Int) -> Int {
        sendLatencies.last { $0.frame <= frame }?.latency ?? sendLatencies.first?.latency ?? 0
    }

    /// Whether the loudspeaker played anything but digital silence.
    package private(set) var playedSound = false

    private static func isDigitalSilence(_ block: [Float], count: Int) -> Bool {
        for index in 0..<min(count, block.count) where block[index] != 0 { return false }
        return true
    }

    /// Ends the measurement. `sent`'s gaps and clicks where the input itself (the room, or a
    /// file or generator as the mic) was digitally silent or clicked are left out (the room
    /// only where the tracks are the room's): the input's, not the pipeline's.
    /// The silence a gap in sent that meets a silenced stretch belongs to is the stretch's, not a
    /// dropout. `ownedSilence` (samples of `sent`, in time order): stretches whose silence another
    /// part of the report owns (a capture restart's priming, `RunEvaluator.restartFills`): a gap
    /// within one, or within one and the input's own silence beside it, is no dropout.
    public func finish(segments: [Range<Int>], ownedSilence: [Range<Int>] = []) -> (analysis: EchoAnalysis, glitches: GlitchReport) {
        let finished = analysis.finish(segments: segments)
        talkRuns = finished.talkRuns
        analysisFrameSize = finished.frameSize
        let sent = leavingOutLiveEchoZeroed(glitches.finish().leavingOut(gapsMeeting: silencedSent), segments: segments)
        inputSilence.finish()
        trackSilence.finish()
        // A priming, with the room's silence the tracks hold right around it (they prime with the
        // mic, then the talker's pause goes on): the restart's and the room's, no dropout.
        let margin = inputMargin
        let owned = ownedSilence.isEmpty ? [] : GlitchReport.union([], ownedSilence + trackSilence.runs.filter { run in
            ownedSilence.contains { $0.lowerBound <= run.upperBound + margin && run.lowerBound <= $0.upperBound + margin }
        }, margin: margin)
        return (finished, sent.discounting(inputSilence, inputClicks: inputGlitches.finish().events, margin: inputMargin,
                                           alsoSilent: owned))
    }

    /// `report` without the gaps the send path made of live echo: the capture held sound all
    /// through the gap, echo and no talker (within `inputMargin`: `sendInputSilence`,
    /// `notEchoAlone`), and no transition lies at it — a segment's start (a mode change
    /// restarts the canceller, a switch or a route change moves the audio) or a change of the
    /// send path's latency (it moves `sent`). AECM sends exact zeros for up to ~150 ms where it
    /// suppresses echo hard: counted as gaps, they would make its runs "runs with pipeline issues",
    /// and moving a scenario's echo path by 1 ms would move the count by 2 and fail the gate.
    /// Zeros over a near talker, a silent echo or a file's audio stay gaps.
    private func leavingOutLiveEchoZeroed(_ report: GlitchReport, segments: [Range<Int>]) -> GlitchReport {
        sendInputSilence.finish()
        let margin = inputMargin
        // A transition's audio lands up to the send path's latency and a tick after it.
        let settle = (sendLatencies.map(\.latency).max() ?? 0) + 2 * max(tickFrames, 1)
        let transitions = (sendLatencies.dropFirst().map { ($0.frame + $0.latency)..<($0.frame + $0.latency + 1) }
            + segments.dropFirst().map { $0.lowerBound..<($0.lowerBound + settle) }).sorted { $0.lowerBound < $1.lowerBound }
        // Each list is in time order, as the gaps are: one pass with a moving start per list.
        var starts = [0, 0, 0]
        func meets(_ gap: Range<Int>, _ ranges: [Range<Int>], _ list: Int) -> Bool {
            while starts[list] < ranges.count && ranges[starts[list]].upperBound + margin <= gap.lowerBound { starts[list] += 1 }
            var index = starts[list]
            while index < ranges.count && ranges[index].lowerBound < gap.upperBound + margin {
                if ranges[index].upperBound + margin > gap.lowerBound { return true }
                index += 1
            }
            return false
        }
        let captureSilence = sendInputSilence.runs
        let kept = report.gaps.filter { gap in
            meets(gap, captureSilence, 0) || meets(gap, notEchoAlone, 1) || meets(gap, transitions, 2)
        }
        return GlitchReport(events: report.events, gaps: kept)
    }

    /// 10·log10(Σ(sent−mic)² / Σmic²) over the ticks covering `range`; nil when sent equals mic there.
    func sentErrorDB(in range: Range<Int>) -> Double? {
        guard tickFrames > 0 else { return nil }
        let first = range.lowerBound / tickFrames, last = min(tickEnergies.count, (range.upperBound + tickFrames - 1) / tickFrames)
        guard first < last else { return nil }
        // Summed in tick order from 0, as over arrays.
        var error = 0.0, power = 0.0
        tickEnergies.forEachRow(in: first..<last) { row, at in
            error += row[at]
            power += row[at + 1]
        }
        return Decibels.powerRatio(error, power)
    }

    /// Σ(sent−mic)² and Σmic² of one tick: four Float lanes (vectorisable; a tick is short enough
    /// for Float), added up in Double by the caller's per-tick sums. The spans are checked once;
    /// in the four-wide loop `i + 3 < count`, so its reads skip the check (`unchecked`).
    private static func energies(_ sentSamples: [Float], _ micSamples: [Float], count: Int) -> (Double, Double) {
        let sent = sentSamples.span.extracting(0..<count), mic = micSamples.span.extracting(0..<count)
        var e0: Float = 0, e1: Float = 0, e2: Float = 0, e3: Float = 0
        var p0: Float = 0, p1: Float = 0, p2: Float = 0, p3: Float = 0
        var i = 0
        while i &+ 4 <= count {
            let m0 = mic[unchecked: i], m1 = mic[unchecked: i &+ 1], m2 = mic[unchecked: i &+ 2], m3 = mic[unchecked: i &+ 3]
            let d0 = sent[unchecked: i] - m0, d1 = sent[unchecked: i &+ 1] - m1
            let d2 = sent[unchecked: i &+ 2] - m2, d3 = sent[unchecked: i &+ 3] - m3
            e0 += d0 * d0; e1 += d1 * d1; e2 += d2 * d2; e3 += d3 * d3
            p0 += m0 * m0; p1 += m1 * m1; p2 += m2 * m2; p3 += m3 * m3
            i &+= 4
        }
        while i < count {
            let d = sent[i] - mic[i]
            e0 += d * d
            p0 += mic[i] * mic[i]
            i &+= 1
        }
        return (Double((e0 + e1) + (e2 + e3)), Double((p0 + p1) + (p2 + p3)))
    }
}

/// The tick's input signals delayed by the send path's latency, so they line up with `sent`.
/// Rings of 8192 samples (a latency up to 8192 − a tick); allocates only on the first tick.
/// Block copies (at most two memcpys per signal and direction) rather than a masked index per
/// sample; with no lag the tick's own arrays are used and nothing is copied out. The rings are
/// kept without a lag too, for a mode change that adds one — unless the latency is known to be
/// fixed: an AEC-disabled call then copies nothing (the stores are a visible share of its time).
struct AlignmentHistory {
    private var rings = [[Float]](repeating: [Float](repeating: 0, count: 8192), count: 4)
    private var written = 0
    /// The ticks' latency never changes, so with none the rings would never be read.
    private let latencyIsFixed: Bool
    /// Ticks were let through without being stored (then no later tick may lag).
    private var skippedStores = false
    /// The last tick's signals, delayed; valid when `line(up:)` returned true.
    private(set) var reference: [Float] = []
    private(set) var mic: [Float] = []
    private(set) var echo: [Float] = []
    private(set) var nearEnd: [Float] = []

    init(latencyIsFixed: Bool = false) {
        self.latencyIsFixed = latencyIsFixed
    }

    /// Stores the tick (unless the latency is fixed at 0); returns whether it lags (then the
    /// delayed signals are in `reference`, `mic`, `echo`, `nearEnd`; else they are the tick's
    /// own, bit for bit).
    mutating func line(up tick: TickSignals) -> Bool {
        let n = tick.count
        let lag = min(tick.sendLatency, rings[0].count - n)
        if lag == 0 && latencyIsFixed {
            skippedStores = true
            written += n
            return false
        }
        precondition(!skippedStores, "a call said to keep its send latency fixed at 0 changed it to \(lag) samples")
        // Once, on the call's first tick (ticks keep their size), each its own storage: made on
        // the first tick with a lag, a canceller switched on mid-call allocated there, and the
        // four names sharing one array copied it on their first loads.
        if mic.count < n {
            reference = [Float](repeating: 0, count: n)
            mic = [Float](repeating: 0, count: n)
            echo = [Float](repeating: 0, count: n)
            nearEnd = [Float](repeating: 0, count: n)
        }
        // The rings are kept up to date even without a lag: a mode change mid-call may add one.
        Self.store(tick.reference, ring: &rings[0], written: written, count: n)
        Self.store(tick.mic, ring: &rings[1], written: written, count: n)
        Self.store(tick.echo, ring: &rings[2], written: written, count: n)
        Self.store(tick.nearEnd, ring: &rings[3], written: written, count: n)
        if lag > 0 {
            Self.load(ring: rings[0], written: written, lag: lag, count: n, into: &reference)
            Self.load(ring: rings[1], written: written, lag: lag, count: n, into: &mic)
            Self.load(ring: rings[2], written: written, lag: lag, count: n, into: &echo)
            Self.load(ring: rings[3], written: written, lag: lag, count: n, into: &nearEnd)
        }
        written += n
        return lag > 0
    }

    /// Appends `signal[0..<count]` to `ring` at position `written` (in two parts at the wrap).
    private static func store(_ signal: [Float], ring: inout [Float], written: Int, count: Int) {
        let size = ring.count, start = written & (size - 1)
        let head = min(count, size - start)
        ring[start..<(start + head)] = signal[0..<head]
        if head < count { ring[0..<(count - head)] = signal[head..<count] }
    }

    /// Writes into `output` the `count` samples stored `lag` before position `written` (silence
    /// before the call's start).
    private static func load(ring: [Float], written: Int, lag: Int, count: Int, into output: inout [Float]) {
        let size = ring.count
        var first = written - lag, at = 0
        if first < 0 {
            at = min(count, -first)
            for i in 0..<at { output[i] = 0 }
            first = 0
        }
        while at < count {
            let start = first & (size - 1), length = min(count - at, size - start)
            output[at..<(at + length)] = ring[start..<(start + length)]
            at += length
            first += length
        }
    }
}

/// Where a call's real mic captured digital silence, in samples of `sent`.
package struct SilentCapture: Sendable {
    /// Every such stretch, the room silent or not.
    package private(set) var stretches: [Range<Int>] = []
    /// The part of them where the room held sound they silenced.
    package private(set) var silencedSound: [Range<Int>] = []

    mutating func note(_ range: Range<Int>, silencedSound silenced: Bool) {
        Self.append(range, to: &stretches)
        if silenced { Self.append(range, to: &silencedSound) }
    }

    /// Appends `range` to `list`, extending its last range where the two meet.
    static func append(_ range: Range<Int>, to list: inout [Range<Int>]) {
        if let last = list.last, last.upperBound == range.lowerBound {
            list[list.count - 1] = last.lowerBound..<range.upperBound
        } else {
            list.append(range)
        }
    }

    /// Whether the mic captured digital silence all through `range` and silenced the room's sound
    /// somewhere in it: muted by the app, not a silent room.
    package func mutes(_ range: Range<Int>) -> Bool {
        RunEvaluator.isCovered(range, by: stretches) && silencedSound.contains { $0.overlaps(range) }
    }
}
