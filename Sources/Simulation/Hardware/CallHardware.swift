import AudioCore

/// One stretch of the call on one route and hardware format.
public struct RouteSegment: Hashable, Sendable {
    public var startFrame: Int64
    /// The route's name; "echo_path" when the scenario's own echo path is in use (no route).
    public var route: String
    public var inputDataSource: InputDataSource
    public var input: HardwareFormat
    public var output: HardwareFormat
    /// Latency the hardware path adds (capture + playout), engine frames; nil until it primed.
    public var addedLatencyFrames: Int64?
}

/// An input stream made anew while it held captured audio: what it held never reached the
/// engine. A route change, formats granted anew or audio flowing again after a stop rebuilds
/// the I/O unit's streams, and the audio in them (about the input's latency: 20 ms at 48 kHz
/// with 512-frame buffers, 80 ms with 2048) is dropped, as a phone's restarted audio unit
/// drops it — a near talker speaking then is cut.
public struct CaptureRestart: Hashable, Sendable {
    public enum Cause: String, Sendable, CaseIterable {
        case routeChange = "route_change"
        case formatsGranted = "formats_granted"
        /// The session stopped audio (deactivated, interrupted, disabled): what the stream held
        /// then is dropped when audio flows again.
        case audioStopped = "audio_stopped"
    }
    /// The engine frame the streams were made anew at (for `audioStopped`, where audio stopped).
    public var frame: Int64
    public var cause: Cause
    /// The room's stretch (engine frames) whose capture was dropped: the last the old stream took in.
    public var discarded: Range<Int64>
    /// The near talker of that stretch, as the room held it (its noise left out: a recording's
    /// own background between words, and the room's, are no talker).
    public var discardedNearEnd: [Float]
}

/// What the hardware model reports for one call (`report.json`'s `hardware`).
public struct HardwareReport: Hashable, Sendable {
    public var clockDriftPPM: Double
    public var usesManualAudio: Bool
    public var segments: [RouteSegment]
    public var session: SessionCounters
    public var issues: [SessionIssue]
    /// I/O callbacks of the input and the output device.
    public var inputCallbacks: Int64
    public var outputCallbacks: Int64
    /// Engine ticks a stream had to fill with silence after running dry, and samples it dropped
    /// running over (a device clock off the engine's).
    public var underruns: Int
    public var droppedFrames: Int64
    /// Of them, the capture stream's own (the mic's, which a drifting input clock runs over or
    /// dry); the rest are the output stream's.
    public var captureUnderruns = 0
    public var captureDroppedFrames: Int64 = 0
    /// The stretches (engine frames) where audio did not flow: inactive, interrupted or, in
    /// manual audio, not enabled. Capture was silence and nothing was played there.
    public var silenced: [Range<Int64>] = []
    /// The input streams made anew while they held captured audio, in call order.
    public var captureRestarts: [CaptureRestart] = []

    /// The format and latency at the start of the call (the first segment).
    public var input: HardwareFormat { segments.first?.input ?? .engine }
    public var output: HardwareFormat { segments.first?.output ?? .engine }
    public var addedLatencyFrames: Int64? { segments.first(where: { $0.addedLatencyFrames != nil })?.addedLatencyFrames }

    /// The route segment in force at `frame`.
    public func segment(at frame: Int64) -> RouteSegment? { segments.last { $0.startFrame <= frame } }

    /// The stretches of `range` where audio flowed (the complement of `silenced` in it).
    public func flowing(in range: Range<Int64>) -> [Range<Int64>] {
        var out: [Range<Int64>] = []
        var from = range.lowerBound
        for gap in silenced where gap.upperBound > from && gap.lowerBound < range.upperBound {
            if gap.lowerBound > from { out.append(from..<gap.lowerBound) }
            from = max(from, gap.upperBound)
        }
        if from < range.upperBound { out.append(from..<range.upperBound) }
        return out
    }
}

/// The call's audio hardware and session: the route (its echo path and ports), the formats the
/// ports granted, the I/O streams between them and the engine, and the session state that lets
/// audio flow or not. `SimulatedCall` calls it at four points of each tick (see there); a call
/// without a `HardwareConfiguration` has none and talks to the room directly.
public final class CallHardware {
    public let configuration: HardwareConfiguration
    public private(set) var route: AudioRoute?
    public private(set) var inputDataSource: InputDataSource
    public private(set) var isActive: Bool
    public private(set) var isInterrupted = false
    public private(set) var isAudioEnabled = false
    public private(set) var inputFormat: HardwareFormat
    public private(set) var outputFormat: HardwareFormat
    /// How many times the path from the loudspeaker's input to the capture changed since the call
    /// started — a route change, another input data source, or formats granted anew (their
    /// latency): a measurement searches the echo's delay again at each (`TickSignals.echoPathChanged`).
    public private(set) var echoPathChangeCount = 0
    /// The room path of the current route; nil: the call's own (the scenario's `echo_path`).
    private(set) var echoPath: AcousticEchoPath?
    /// Whether audio flows this tick (set by `receive`).
    public private(set) var isFlowing = false
    /// Whether this tick's capture came through the input device unbroken (set by `capture`): audio
    /// flowed, the input stream was primed, it filled nothing in and dropped nothing in this tick or
    /// the one before, and no stream, route or echo path was made anew within the time its change
    /// takes to come through (`captureChanges(at:outputRestarts:)`). There
    /// the echo and near-end tracks, passed through the same device, are the room's sound as
    /// captured, and a click in both is the room's own (a talker's plosive), not the pipeline's.
    public private(set) var captureIsContinuous = false
    /// Until this frame the capture is not continuous: what a stream, route or path made anew did
    /// has not yet come through the room and the input.
    private var captureSettlesAt: Int64 = 0
    /// The input stream and its fill and drop counters as the last tick left them.
    private var captureSeen: (stream: ObjectIdentifier, silent: Int64, dropped: Int64)?
    private var lastCaptureWasClean = false

    private let engineRate: Int
    private let tickFrames: Int
    private var pendingPreferences: AudioPreferences
    private var output: HardwareStream
    private var captureMic: HardwareStream
    private var captureEcho: HardwareStream
    private var captureNear: HardwareStream
    private var hasBeenActive: Bool
    /// Manual audio: the last `isAudioEnabled = false` came while the session was active (and no
    /// activation since), for the words of `audioDisabledWhileActive`.
    private var disabledWhileActive = false
    private var silenced: [Range<Int64>] = []
    private var isConnected = false
    private var appRouteBeforeConnect: AudioRoute?
    private var frame: Int64 = 0
    /// One tick, so a stream never writes into the array it reads (which would copy it).
    private var scratch: [Float]
    private var customDeviceInUse = false
    private var segments: [RouteSegment] = []
    private var session = SessionCounters()
    private var issues: [SessionIssue] = []
    private var open: [SessionIssue.Kind: SessionIssue] = [:]
    private var retiredCallbacks: (input: Int64, output: Int64) = (0, 0)
    private var retiredUnderruns = 0
    private var retiredDropped: Int64 = 0
    private var retiredCapture: (underruns: Int, dropped: Int64) = (0, 0)
    /// The room's near talker as the input stream took it in, the last second of it: what a
    /// restart drops is its newest part. Allocated once; `hear(talker:count:)` copies into it.
    private var recentNearEnd: SampleFIFO
    /// The end (engine frames) of the last capture the input stream took in.
    private var capturedUntil: Int64 = 0
    private var captureRestarts: [CaptureRestart] = []
    /// Called with (kind, detail) for the call's event log.
    var log: (String, String) -> Void = { _, _ in }

    /// What the streams of a corpus's calls did (`HardwareStreamRecords`), and the call's length
    /// in ticks to reserve a record for: a call of an eval converts each tick once for all of
    /// its item's modes.
    private let records: HardwareStreamRecords?
    private let expectedTicks: Int?
    /// The streams built before the current ones (a route change builds new ones).
    private var generation = 0

    /// `records`, `expectedTicks`: see `HardwareStreamRecords` (nil: every stream converts).
    public init(configuration: HardwareConfiguration, engineRate: Int = 48_000, tickFrames: Int = 480,
                records: HardwareStreamRecords? = nil, expectedTicks: Int? = nil) throws {
        self.configuration = configuration
        self.engineRate = engineRate
        self.tickFrames = tickFrames
        self.records = records
        self.expectedTicks = expectedTicks
        scratch = [Float](repeating: 0, count: tickFrames)
        recentNearEnd = SampleFIFO(capacity: engineRate)
        // Room for every cause and issue up front: the first interruption an hour in is a tick
        // like any other, and grows nothing.
        session.captureSilenced.reserveCapacity(SilenceCause.allCases.count)
        session.playoutDropped.reserveCapacity(SilenceCause.allCases.count)
        open.reserveCapacity(SessionIssue.Kind.allCases.count)
        issues.reserveCapacity(SessionIssue.Kind.allCases.count)
        silenced.reserveCapacity(64)
        route = configuration.route
        inputDataSource = configuration.inputDataSource
        isActive = configuration.activeAtStart
        hasBeenActive = configuration.activeAtStart
        pendingPreferences = configuration.preferences
        activePreferences = configuration.preferences
        let profile = configuration.route.map(RouteProfile.init(route:))
        inputFormat = (profile?.input ?? .builtIn).grant(configuration.preferences)
        outputFormat = (profile?.output ?? .builtIn).grant(configuration.preferences)
        (output, captureMic, captureEcho, captureNear) = try Self.streams(input: inputFormat, output: outputFormat,
                                                                           drift: configuration.clockDriftPPM, alwaysConverts: configuration.convertsCaptureOnOneClock, engineRate: engineRate,
                                                                           tickFrames: tickFrames, records: records, generation: 0,
                                                                           expectedTicks: expectedTicks)
        if let profile {
            echoPath = try AcousticEchoPath.make(profile.echoPath(for: inputDataSource), sampleRate: engineRate, blockSize: tickFrames)
        }
        segments = [segment(at: 0)]
    }

    private static func streams(input: HardwareFormat, output: HardwareFormat, drift: Double, alwaysConverts: Bool, engineRate: Int, tickFrames: Int,
                                records: HardwareStreamRecords?, generation: Int, expectedTicks: Int?) throws
        -> (HardwareStream, HardwareStream, HardwareStream, HardwareStream) {
        func capture(_ role: HardwareStreamRecords.Role) throws -> HardwareStream {
            try HardwareStream(format: input, engineRate: engineRate, tickFrames: tickFrames, clockDriftPPM: drift, alwaysConverts: alwaysConverts,
                               records: records, role: role, generation: generation, expectedTicks: expectedTicks)
        }
        return (try HardwareStream(format: output, engineRate: engineRate, tickFrames: tickFrames,
                                   records: records, role: .output, generation: generation, expectedTicks: expectedTicks),
                try capture(.mic), try capture(.echo), try capture(.nearEnd))
    }

    private func segment(at frame: Int64) -> RouteSegment {
        RouteSegment(startFrame: frame, route: route?.rawValue ?? "echo_path", inputDataSource: inputDataSource,
                     input: inputFormat, output: outputFormat, addedLatencyFrames: nil)
    }

    /// The engine asks for audio: always, or only while `isAudioEnabled` in manual audio.
    private var engineRunsAudio: Bool { configuration.usesManualAudio ? isAudioEnabled : true }

    // MARK: - Timeline

    /// Applies a session or route action at `frame` (engine samples since the call started).
    public func apply(_ action: HardwareAction, at frame: Int64) throws {
        switch action {
        case .activateSession:
            guard !isActive else { return }
            isActive = true
            hasBeenActive = true
            disabledWhileActive = false
            if let issue = open[.preferencesChangedWhileActive] { close(issue.kind, at: frame) }
            try regrant(at: frame)
        case .deactivateSession:
            isActive = false
        case .setAudioEnabled(let enabled):
            isAudioEnabled = enabled
            disabledWhileActive = !enabled && isActive
        case .interruptionBegin:
            isInterrupted = true
        case .interruptionEnd:
            isInterrupted = false
        case .setPreferred(let preferences):
            pendingPreferences = preferences
            if isActive, open[.preferencesChangedWhileActive] == nil {
                let profile = route.map(RouteProfile.init(route:))
                let wanted = (profile?.input ?? .builtIn).grant(preferences)
                open[.preferencesChangedWhileActive] = SessionIssue(
                    kind: .preferencesChangedWhileActive, frames: frame..<frame, samples: 0,
                    detail: "preferred \(wanted) while active: the device stays at \(inputFormat) until the session is activated again")
            }
        case .routeChange(let newRoute):
            if !isConnected { appRouteBeforeConnect = newRoute }
            if let issue = open[.routeResetAfterConnect] { close(issue.kind, at: frame) }
            try switchRoute(to: newRoute, at: frame)
        case .setInputDataSource(let source):
            // The source in use chosen again changes nothing, as on a phone.
            guard source != inputDataSource else { break }
            inputDataSource = source
            if let route, let echoPath {
                // The same room through another mic: its coupling only (`RouteProfile.echoPath(for:)`).
                echoPath.changeCoupling(to: Float(Decibels.amplitude(fromDB: RouteProfile(route: route).echoPath(for: source).gainDB)))
                echoPathChangeCount += 1
                captureChanges(at: frame, outputRestarts: false)
            }
            segments.append(segment(at: frame))
        }
    }

    private func switchRoute(to newRoute: AudioRoute, at frame: Int64) throws {
        if newRoute != route { echoPathChangeCount += 1 }
        route = newRoute
        let profile = RouteProfile(route: newRoute)
        echoPath = try AcousticEchoPath.make(profile.echoPath(for: inputDataSource), sampleRate: engineRate, blockSize: tickFrames)
        // A route change reconfigures the I/O unit at the formats the new ports grant for the
        // preferences in force (the ones of the last activation).
        inputFormat = profile.input.grant(activePreferences)
        outputFormat = profile.output.grant(activePreferences)
        try rebuildStreams(at: frame, cause: .routeChange)
        segments.append(segment(at: frame))
        log("route", "\(newRoute.rawValue): input \(inputFormat), output \(outputFormat)")
    }

    /// The preferences the current formats were granted for.
    private var activePreferences: AudioPreferences = AudioPreferences()

    private func regrant(at frame: Int64) throws {
        activePreferences = pendingPreferences
        let profile = route.map(RouteProfile.init(route:))
        let newInput = (profile?.input ?? .builtIn).grant(activePreferences)
        let newOutput = (profile?.output ?? .builtIn).grant(activePreferences)
        guard newInput != inputFormat || newOutput != outputFormat else { return }
        inputFormat = newInput
        outputFormat = newOutput
        echoPathChangeCount += 1
        try rebuildStreams(at: frame, cause: .formatsGranted)
        segments.append(segment(at: frame))
        log("session", "granted input \(inputFormat), output \(outputFormat)")
    }

    private func rebuildStreams(at frame: Int64, cause: CaptureRestart.Cause) throws {
        defer { captureChanges(at: frame, outputRestarts: true) }
        noteDiscardedCapture(at: frame, cause: cause)
        retire()
        generation += 1
        (output, captureMic, captureEcho, captureNear) = try Self.streams(input: inputFormat, output: outputFormat,
                                                                           drift: configuration.clockDriftPPM, alwaysConverts: configuration.convertsCaptureOnOneClock, engineRate: engineRate,
                                                                           tickFrames: tickFrames, records: records,
                                                                           generation: generation, expectedTicks: expectedTicks)
    }

    /// Hands what the current streams did to the records (`HardwareStreamRecords`): at the
    /// call's end.
    func finishRecords() {
        for stream in [output, captureMic, captureEcho, captureNear] { stream.finish() }
    }

    /// Records what the input stream still held, the newest of the room's audio it took in.
    /// Audio that stopped flowing left it there: the loss is the stop's.
    private func noteDiscardedCapture(at frame: Int64, cause: CaptureRestart.Cause) {
        let stream = captureNear
        // On the engine's clock every room sample taken in came out, was dropped, or is held,
        // its converters' look-ahead included (HFP's 16 kHz: 120 ms, where the buffers hold
        // 117.6). A device on its own clock makes more or fewer samples than it took in: its
        // buffers then, the look-ahead aside.
        let held = stream.framesIn == 0 ? 0
            : stream.clockDriftPPM == 0 ? Int(max(0, stream.framesIn - stream.framesOut - stream.droppedFrames))
            : stream.bufferedDeviceFrames * engineRate / stream.format.sampleRate + stream.bufferedEngineFrames
        defer { recentNearEnd.clear() }
        let count = min(held, recentNearEnd.count)
        guard count > 0 else { return }
        recentNearEnd.discardOldest(recentNearEnd.count - count)
        var nearEnd = [Float](repeating: 0, count: count)
        _ = recentNearEnd.read(into: &nearEnd, count: count)
        captureRestarts.append(CaptureRestart(frame: isFlowing ? frame : capturedUntil, cause: isFlowing ? cause : .audioStopped,
                                              discarded: (capturedUntil - Int64(count))..<capturedUntil, discardedNearEnd: nearEnd))
    }

    private func retire() {
        finishRecords()
        retiredCallbacks.input += captureMic.callbacks
        retiredCallbacks.output += output.callbacks
        retiredUnderruns += captureMic.underruns + output.underruns
        retiredDropped += captureMic.droppedFrames + output.droppedFrames
        retiredCapture.underruns += captureMic.underruns
        retiredCapture.dropped += captureMic.droppedFrames
    }

    // MARK: - Per tick

    /// Tick step 1: decides whether audio flows this tick; if not, the downlink is not played
    /// (dropped, counted). `customMicSet`, `customSpeakerSet`: a custom mic or speaker is set;
    /// `customMicIsSource`: the custom mic set is no microphone (a file, a stream, TTS: content an
    /// interruption loses).
    func receive(_ downlink: inout [Float], count: Int, frame: Int64, customMicSet: Bool, customSpeakerSet: Bool,
                 customMicIsSource: Bool = false) throws {
        self.frame = frame
        customDeviceInUse = customMicSet || customSpeakerSet
        let flows = isActive && !isInterrupted && engineRunsAudio
        if flows && !isFlowing {
            try rebuildStreams(at: frame, cause: .audioStopped)   // the I/O unit starts: fresh buffers, priming again
            if !isConnected { try connect(at: frame) }
        }
        isFlowing = flows
        track(.audioBeforeActivation, broken: !hasBeenActive && engineRunsAudio, samples: Int64(count), at: frame)
        track(.deactivatedWithCustomDevice, broken: hasBeenActive && !isActive && customDeviceInUse, samples: 0, at: frame)
        if var issue = open[.deactivatedWithCustomDevice] {
            issue.customMicSet = issue.customMicSet || customMicSet
            issue.customSpeakerSet = issue.customSpeakerSet || customSpeakerSet
            if customSpeakerSet { issue.playoutSamples += Int64(count) }   // handed silence below
            open[.deactivatedWithCustomDevice] = issue
        }
        // The OS's interruption is no mistake, but a file or TTS mic that plays on through it loses
        // what it plays: Apple's guide has the app pause on the interruption's begin and resume at its end.
        track(.interruptedWithCustomMic, broken: isActive && isInterrupted && customMicIsSource, samples: 0, at: frame)
        // The CallKit + WebRTC article sets `isAudioEnabled = true` in didActivate; an interruption
        // is the OS's doing, not the app's.
        track(.audioDisabledWhileActive, broken: configuration.usesManualAudio && isActive && !isInterrupted && !isAudioEnabled,
              samples: Int64(count), at: frame)
        guard !flows else { return }
        if let last = silenced.last, last.upperBound == frame {
            silenced[silenced.count - 1] = last.lowerBound..<(frame + Int64(count))
        } else {
            silenced.append(frame..<(frame + Int64(count)))
        }
        VectorMath.fill(&downlink, count: count)
        session.playoutDropped[cause, default: 0] += Int64(count)
    }

    /// The connection is up: audio flows for the first time. Without manual audio the engine
    /// applies its own session configuration now, which puts a speaker route the app chose
    /// before back on the receiver (the CallKit + WebRTC article's speaker button that jumps back).
    private func connect(at frame: Int64) throws {
        isConnected = true
        guard !configuration.usesManualAudio, frame > 0, appRouteBeforeConnect == .speaker, route == .speaker else { return }
        try switchRoute(to: .receiver, at: frame)
        log("session", "the engine configured the session at connection: route reset from speaker to receiver")
        open[.routeResetAfterConnect] = SessionIssue(kind: .routeResetAfterConnect, frames: frame..<frame, samples: 0,
                                                     detail: "the app chose the speaker before the connection came up; the engine reset it to the receiver")
    }

    private var cause: SilenceCause {
        !isActive ? .inactive : (isInterrupted ? .interrupted : .audioDisabled)
    }

    /// Tick step 2: the engine's loudspeaker drive through the output device.
    func play(_ drive: inout [Float], count: Int) throws {
        guard isFlowing else { return VectorMath.fill(&drive, count: count) }
        try pass(output, &drive, count: count)
        noteLatency()
    }

    /// Tick step 3: the near talker alone, before the room's noise joins it (`CaptureRestart`):
    /// kept while audio flows, for the stretch a restart drops.
    func hear(talker: [Float], count: Int) {
        guard isFlowing else { return }
        recentNearEnd.write(talker, count: count)
    }

    /// Tick step 4: the room at the mic (and its echo and near-end parts, kept aligned with it)
    /// through the input device.
    func capture(_ mic: inout [Float], echo: inout [Float], nearEnd: inout [Float], count: Int) throws {
        guard isFlowing else {
            VectorMath.fill(&mic, count: count)
            VectorMath.fill(&echo, count: count)
            VectorMath.fill(&nearEnd, count: count)
            noteCaptureContinuity(clean: false)
            return
        }
        capturedUntil = frame + Int64(count)
        try pass(captureMic, &mic, count: count)
        try pass(captureEcho, &echo, count: count)
        try pass(captureNear, &nearEnd, count: count)
        noteLatency()
        let seen = (stream: ObjectIdentifier(captureMic), silent: captureMic.silentFrames, dropped: captureMic.droppedFrames)
        let unbroken = captureSeen.map { $0.stream == seen.stream && $0.silent == seen.silent && $0.dropped == seen.dropped } ?? false
        captureSeen = seen
        noteCaptureContinuity(clean: unbroken && captureMic.isPrimed && frame >= captureSettlesAt)
    }

    /// A tick is continuous where it and the one before were clean: a fill or a drop at a tick's
    /// end is an edge at the next one's start.
    private func noteCaptureContinuity(clean: Bool) {
        captureIsContinuous = clean && lastCaptureWasClean
        lastCaptureWasClean = clean
    }

    /// The capture is not continuous from `frame` until what changed there has come through:
    /// where the output restarts, its priming and the room (a loudspeaker's resumption is a click
    /// the room carries to the mic, 180 ms later on A2DP); a new path's onset after its bulk delay;
    /// then the input's priming, and two ticks.
    private func captureChanges(at frame: Int64, outputRestarts: Bool) {
        let room = (outputRestarts ? output.primeThreshold : 0) + (echoPath?.delayFrames ?? callEchoPathDelayFrames)
        captureSettlesAt = max(captureSettlesAt, frame + Int64(room + captureMic.primeThreshold + 2 * tickFrames))
    }

    /// The bulk delay of the call's own echo path (the scenario's `echo_path`, in force where no
    /// route is modelled), in engine frames: set by the call that uses this hardware.
    var callEchoPathDelayFrames = 0

    /// Tick step 5: what the engine captures (the default or a custom mic) is silence while
    /// audio does not flow; counted, and a custom mic's audio discarded.
    /// `customMicDelivered`: the tick's capture was all the custom mic's own audio (it pushed it).
    func gate(_ capture: inout [Float], count: Int, customMicInUse: Bool, customMicDelivered: Bool = false) {
        guard !isFlowing else { return }
        VectorMath.fill(&capture, count: count)
        session.captureSilenced[cause, default: 0] += Int64(count)
        if customMicInUse { session.customMicFramesDiscarded += Int64(count) }
        if customDeviceInUse, let issue = open[.deactivatedWithCustomDevice] {
            open[issue.kind]!.samples += customMicInUse ? Int64(count) : 0
        }
        if customMicDelivered, open[.interruptedWithCustomMic] != nil { open[.interruptedWithCustomMic]!.samples += Int64(count) }
    }

    private func pass(_ stream: HardwareStream, _ block: inout [Float], count: Int) throws {
        try stream.process(block, into: &scratch, count: count)
        VectorMath.copy(scratch, into: &block, count: count)
    }

    private func noteLatency() {
        guard segments[segments.count - 1].addedLatencyFrames == nil, captureMic.isPrimed, output.isPrimed else { return }
        segments[segments.count - 1].addedLatencyFrames = output.latencyFrames + captureMic.latencyFrames
    }

    private func track(_ kind: SessionIssue.Kind, broken: Bool, samples: Int64, at frame: Int64) {
        if broken {
            if open[kind] == nil {
                let detail = switch kind {
                case .audioBeforeActivation:
                    configuration.usesManualAudio
                        ? "isAudioEnabled was set before the session was activated: the engine ran audio, and capture and playout were silence"
                        : "the engine ran audio before the session was activated: capture and playout were silence"
                case .audioDisabledWhileActive:
                    disabledWhileActive
                        ? "isAudioEnabled was set to false while the session stayed active (manual audio): no audio flowed either way"
                        : "the session was activated but isAudioEnabled was not set with it (manual audio): no audio flowed either way"
                case .interruptedWithCustomMic:
                    "an interruption held the session while the custom mic, no microphone, kept delivering its audio"
                default:
                    "the session was deactivated while a custom device was still set"
                }
                open[kind] = SessionIssue(kind: kind, frames: frame..<frame, samples: 0, detail: detail)
            }
            open[kind]!.samples += samples
        } else if open[kind] != nil {
            close(kind, at: frame)
        }
    }

    private func close(_ kind: SessionIssue.Kind, at frame: Int64) {
        guard var issue = open.removeValue(forKey: kind) else { return }
        // A mic paused for the interruption, as the advice has it, loses only what it had buffered
        // (a burst and a tick, 30 ms at 20 ms): no finding under a quarter of a second, the
        // lint's shortest.
        guard kind != .interruptedWithCustomMic || issue.samples >= Int64(engineRate / 4) else { return }
        issue.frames = issue.frames.lowerBound..<max(issue.frames.lowerBound, frame)
        issues.append(issue)
    }

    /// The report at `endFrame`; closes every open issue there.
    public func report(endFrame: Int64) -> HardwareReport {
        for kind in SessionIssue.Kind.allCases where open[kind] != nil { close(kind, at: endFrame) }
        let current = (input: captureMic.callbacks, output: output.callbacks)
        return HardwareReport(clockDriftPPM: configuration.clockDriftPPM, usesManualAudio: configuration.usesManualAudio,
                              segments: segments, session: session,
                              issues: issues.sorted { ($0.frames.lowerBound, $0.kind.rawValue) < ($1.frames.lowerBound, $1.kind.rawValue) },
                              inputCallbacks: retiredCallbacks.input + current.input,
                              outputCallbacks: retiredCallbacks.output + current.output,
                              underruns: retiredUnderruns + captureMic.underruns + output.underruns,
                              droppedFrames: retiredDropped + captureMic.droppedFrames + output.droppedFrames,
                              captureUnderruns: retiredCapture.underruns + captureMic.underruns,
                              captureDroppedFrames: retiredCapture.dropped + captureMic.droppedFrames,
                              silenced: silenced, captureRestarts: captureRestarts)
    }

    /// The streams, for tests of conservation.
    var streams: (output: HardwareStream, mic: HardwareStream) { (output, captureMic) }
}
