import AudioCore
import AudioInterop
import VirtualTime

/// The simulated world of one call: what the peer says, the local talker, the noise at the mic
/// and the loudspeaker → microphone path.
public struct CallWorld: Hashable, Sendable {
    public var farEnd: SignalSource?
    public var nearEnd: SignalSource?
    public var noise: NoiseSettings?
    public var echoPath: EchoPathSettings

    public init(farEnd: SignalSource? = nil, nearEnd: SignalSource? = nil, noise: NoiseSettings? = nil,
                echoPath: EchoPathSettings = EchoPathSettings()) {
        self.farEnd = farEnd
        self.nearEnd = nearEnd
        self.noise = noise
        self.echoPath = echoPath
    }
}

/// Errors raised while a call runs.
public enum CallError: DescribedError {
    case input(String)
    case alreadyStarted
    /// `run(for:)` before `start()`: nothing would tick, and the clock would move on without the call.
    case notStarted
    /// `start()` or `run(for:)` after `end()`.
    case ended

    public var description: String {
        switch self {
        case .input(let message): message
        case .alreadyStarted: "the call is already running"
        case .notStarted: "the call has not started: call start() before run(for:)"
        case .ended: "the call has ended: a call runs once, from start() to end()"
        }
    }
}

/// One call on the virtual clock: the simulated SDK engine (receive path, playout, capture, send
/// voice processor) and the room around it, ticking every 10 ms at 48 kHz.
///
/// Each tick, at the `process` phase (after the instant's transitions, render pulls and capture
/// pushes have run):
/// 1. the receive path takes 10 ms of the far end (the downlink);
/// 2. playout: the default speaker plays it; a custom speaker gets it in its playout FIFO;
///    the loudspeaker emits the default playout plus whatever the app played on `loudspeaker`;
/// 3. the room: echo = echo path(loudspeaker), plus the near-end talker and noise, at the mic;
/// 4. capture: the physical mic, or the custom mic's buffered pushes. A switch of source is
///    make-before-break: the old source keeps feeding until the new one has primed (200 ms at
///    most), then one tick crossfades — no gap, no repeated audio;
/// 5. the echo canceller's reference: the downlink, or the app's user reference while started;
/// 6. the send voice processor (AEC → NS → AGC), mute, and the taps.
public final class SimulatedCall {
    public static let sampleRate = AudioFormat.engine.sampleRate
    /// One engine tick: 10 ms at 48 kHz.
    public static let tickFrames = sampleRate / 100
    public static let tickDuration = VirtualDuration.milliseconds(10)
    /// The ticks a call of `duration` runs (`run(for:)`): one every 10 ms from its start, the
    /// last one before its end.
    public static func tickCount(for duration: VirtualDuration) -> Int {
        Int((duration.nanoseconds + tickDuration.nanoseconds - 1) / tickDuration.nanoseconds)
    }
    /// The ticks the engine waits for a new capture source to prime before it switches anyway
    /// (meanwhile the old one feeds the call).
    public static let switchTimeoutTicks = 20

    public let scheduler: Scheduler
    public let audioManager = AudioManager()
    public let sendVoiceProcessor: SendVoiceProcessor
    /// The real loudspeaker, for apps that drive it themselves.
    public let loudspeaker = Loudspeaker()
    /// The real microphone, for apps that capture it themselves.
    public let microphone = Microphone()
    public private(set) var isMuted = false
    public private(set) var isUserReferenceStarted = false
    public private(set) var events: [CallEvent] = []
    public private(set) var deviceStates: [DeviceState] = []
    /// Every tick in memory (when `recordsTaps`); for tests and short calls. Long runs stream
    /// through `taps` instead.
    public private(set) var recording: CallRecording
    public let recordsTaps: Bool
    /// Decoded inputs shared with the other calls of a corpus (nil: every file is streamed): the
    /// far and near ends and a file microphone that does not loop read from it.
    let decodedAudio: DecodedAudioCache?
    /// How long the call is expected to run (nil: not said), for what is reserved or decoded ahead.
    let expectedDuration: VirtualDuration?
    /// Consumers of every tick, in order (WAV writers, streaming metrics).
    public var taps: [CallTap] = []
    /// The audio session, route and hardware I/O (nil: the engine meets the room directly at
    /// 48 kHz, as without the scenario's hardware keys). Set before `start()`.
    public var hardware: CallHardware? {
        didSet {
            hardware?.log = { [unowned self] in logEvent(kind: $0, detail: $1) }
            hardware?.callEchoPathDelayFrames = echoPath.delayFrames
        }
    }

    /// The loudspeaker → mic path of the call's world (a route of its hardware model, where it
    /// has one, brings its own): what a meter reports the ERL against.
    public let echoPathSettings: EchoPathSettings
    private let farEnd: BlockSource?
    private let nearEnd: BlockSource?
    private var noise: SignalGenerator?
    private let echoPath: AcousticEchoPath
    /// The same path through the corpus's echo record (nil: no cache handed in).
    private let recordedEchoPath: RecordedEchoPath?
    private var userReference = CadenceBuffer(capacity: SimulatedCall.sampleRate)
    private let userReferenceConditioner = InputConditioner(engineRate: SimulatedCall.sampleRate)
    private var ignoredReferenceFrames: Int64 = 0
    private var tickTimer: RepeatingTimer?
    private var failure: Error?
    private var clipped = ClippedSamples()
    /// The loudspeaker's faults while each custom speaker was set (`PipelineCounters.speakerLoudspeakers`),
    /// and its counts when last looked at.
    private var speakerLoudspeakers: [BufferCounters] = []
    private var loudspeakerSeen = (overruns: 0, dropped: Int64(0), rejected: Int64(0))
    /// The loudspeaker's underruns and drops and the playout's drops, summed, when last counted.
    private var customSpeakerDisturbances: Int64 = 0
    private var customSpeakerDelay: CustomSpeakerDelay = {
        var delay = CustomSpeakerDelay()
        delay.tickFrames = SimulatedCall.tickFrames
        return delay
    }()
    public private(set) var tickCount: Int64 = 0
    /// `hardware.echoPathChangeCount` as the last tick saw it.
    private var echoPathChangeCountSeen = 0

    // The capture source the engine reads now (nil: physical mic) and a pending switch.
    private var activeMic: CustomMic?
    private var pendingTicks = 0
    private var retiredMics: [CustomMic] = []
    private var lastDeviceStateKey: DeviceStateKey?

    // Per-tick blocks, allocated once.
    private var downlink: [Float]
    private var drive: [Float]
    private var emission: [Float]
    private var echo: [Float]
    private var near: [Float]
    private var noiseBlock: [Float]
    private var physical: [Float]
    private var capture: [Float]
    private var incoming: [Float]
    private var reference: [Float]
    private var sent: [Float]
    private let fadeIn: [Float]
    /// The loudspeaker's drive as a pull render graph (as the custom speakers' playouts are): the
    /// downlink, played by the default speaker, mixed with what the app played on the loudspeaker
    /// itself. With a custom speaker the downlink goes to the app instead, and its bus is disabled.
    private let downlinkBus: BusInputNode
    private let appSoundBus: BusInputNode
    private let loudspeakerMixer: MixerNode
    private let loudspeakerGraph: RenderGraph

    public init(world: CallWorld, voiceProcessing: VoiceProcessingSettings = VoiceProcessingSettings(),
                recordsTaps: Bool = true, expectedDuration: VirtualDuration? = nil, decodedAudio: DecodedAudioCache? = nil,
                echoPaths: EchoPathCache? = nil, latencies: EchoControlLatencies? = nil) throws {
        try world.validateSignals()
        try voiceProcessing.validate()
        echoPathSettings = world.echoPath
        let rate = Self.sampleRate, n = Self.tickFrames
        scheduler = Scheduler()
        self.decodedAudio = decodedAudio
        self.expectedDuration = expectedDuration
        farEnd = try world.farEnd.map { try BlockSource($0, sampleRate: rate, cache: decodedAudio) }
        nearEnd = try world.nearEnd.map { try BlockSource($0, sampleRate: rate, cache: decodedAudio) }
        noise = world.noise.map { SignalGenerator(kind: .whiteNoise(levelDBFS: $0.levelDBFS), sampleRate: rate, seed: $0.seed) }
        let echoPath = try AcousticEchoPath.make(world.echoPath, sampleRate: rate, blockSize: n)
        self.echoPath = echoPath
        // The ticks a call of `expectedDuration` runs (the last one partly): what the echo record
        // and the taps reserve, so neither grows mid-call.
        let expectedSamples = expectedDuration.map { Self.tickCount(for: $0) * n }
        recordedEchoPath = echoPaths.map { RecordedEchoPath(path: echoPath, cache: $0, expectedSamples: expectedSamples) }
        sendVoiceProcessor = SendVoiceProcessor(frameSize: n, sampleRate: rate, backend: voiceProcessing.backend,
                                                filterOverride: voiceProcessing.filterMilliseconds,
                                                latencies: latencies ?? EchoControlLatencies())
        try sendVoiceProcessor.setAcousticEchoCanceller(mode: voiceProcessing.echoCancellerMode)
        try sendVoiceProcessor.setNoiseSuppressor(mode: voiceProcessing.noiseSuppressor)
        try sendVoiceProcessor.setAutoGainControl(mode: voiceProcessing.autoGainControl)
        self.recordsTaps = recordsTaps
        recording = CallRecording(capacity: recordsTaps ? expectedSamples ?? n : 0)
        // Each its own storage: one array assigned to all shared it, and the first write to each
        // copied it — on the first tick, and for `incoming` at the first mic switch, mid-call.
        func block() -> [Float] { [Float](repeating: 0, count: n) }
        downlink = block(); drive = block(); emission = block(); echo = block(); near = block(); noiseBlock = block()
        physical = block(); capture = block(); incoming = block(); reference = block(); sent = block()
        fadeIn = (0..<n).map { Float($0 + 1) / Float(n + 1) }
        downlinkBus = BusInputNode(maximumFrames: n)
        appSoundBus = BusInputNode(maximumFrames: n)
        loudspeakerMixer = MixerNode(inputs: [.init(downlinkBus), .init(appSoundBus)], maximumFrames: n)
        loudspeakerGraph = RenderGraph(output: loudspeakerMixer)
        audioManager.onChange = { [unowned self] in logEvent(kind: "device", detail: $0) }
        audioManager.engineReads = { [unowned self] in $0 === activeMic }
        // Modes set before the call starts (here, or by the app before `start()`) are its
        // configuration, not events.
        sendVoiceProcessor.onChange = { [unowned self] in if tickTimer != nil { logEvent(kind: $0, detail: $1) } }
    }

    /// The current frame (sample index at 48 kHz) on the virtual clock.
    public var currentFrame: Int64 { scheduler.now.nanoseconds * Int64(Self.sampleRate) / 1_000_000_000 }

    /// Appends a line to the event log at the current instant.
    public func logEvent(kind: String, detail: String) {
        events.append(CallEvent(frame: currentFrame, kind: kind, detail: detail))
    }

    /// Logs an event now, placed before those logged since the log held `count` events (what an
    /// action applied just now logged of itself): the order a scenario's timeline logs them in,
    /// its action first.
    package func logEvent(kind: String, detail: String, beforeEventsFrom count: Int) {
        events.insert(CallEvent(frame: currentFrame, kind: kind, detail: detail), at: min(max(0, count), events.count))
    }

    // MARK: - Application API (PlanetKit's call session)

    public func startUserAcousticEchoCancellerReference() {
        appStartedUserReference = true
        startUserReference()
    }

    /// Whether the app started the user reference itself (this API: a scenario's `user_reference`
    /// or a timeline `start_user_reference`) rather than a shipped device that puts it
    /// (`AppDrivenSpeaker.putsReference`). Only the app stops such a reference: PlanetKit's guide
    /// calls stopUserAcousticEchoCancellerReference() after resetting the custom speaker, and an
    /// app that forgets it leaves the canceller on a reference nobody puts.
    private var appStartedUserReference = false

    func startUserReference() {
        guard !isUserReferenceStarted else { return }
        isUserReferenceStarted = true
        userReference.reset()
        logEvent(kind: "aec", detail: "start user AEC reference")
    }

    /// Gives the canceller what the loudspeaker really plays (Float32 or Int16, any size, rate and
    /// channel count). Ignored (returns false) unless the user reference is started.
    @discardableResult
    public func putUserAcousticEchoCancellerReference<Sample: PCMSample>(_ audioBuffer: PCMBuffer<Sample>) -> Bool {
        guard isUserReferenceStarted else {
            ignoredReferenceFrames += Int64(audioBuffer.frameCount)
            return false
        }
        userReferenceConditioner.append(audioBuffer, to: &userReference)
        return true
    }

    public func stopUserAcousticEchoCancellerReference() {
        appStartedUserReference = false
        stopUserReference()
    }

    /// A shipped device that started the reference stops it when it stops, unless the app
    /// started it too (`appStartedUserReference`): then it stays started until the app stops it.
    func stopUserReferenceOfDevice() {
        guard !appStartedUserReference else { return }
        stopUserReference()
    }

    private func stopUserReference() {
        guard isUserReferenceStarted else { return }
        isUserReferenceStarted = false
        userReference.reset()
        logEvent(kind: "aec", detail: "stop user AEC reference")
    }

    public func mute() { if !isMuted { isMuted = true; logEvent(kind: "call", detail: "mute") } }
    public func unmute() { if isMuted { isMuted = false; logEvent(kind: "call", detail: "unmute") } }

    // MARK: - Running

    /// Starts the engine's 10 ms tick at the current instant.
    public func start() throws {
        guard endCounters == nil else { throw CallError.ended }
        guard tickTimer == nil else { throw CallError.alreadyStarted }
        let timer = RepeatingTimer(scheduler: scheduler, periodFrames: Int64(Self.tickFrames), sampleRate: Self.sampleRate, phase: .process)
        timer.setEventHandler { [unowned self] in
            do { try tick() } catch {
                failure = error
                tickTimer?.cancel()
            }
        }
        timer.schedule()
        tickTimer = timer
    }

    /// Runs the call for `duration` of virtual time: every event in `[now, now + duration)`, so
    /// `duration / 10 ms` ticks, and the clock ends exactly at `now + duration`; the tick due at
    /// that instant belongs to the next `run`.
    public func run(for duration: VirtualDuration) throws {
        guard endCounters == nil else { throw CallError.ended }
        guard tickTimer != nil else { throw CallError.notStarted }
        scheduler.run(before: scheduler.now + duration)
        if let failure { throw failure }
    }

    /// Stops the engine, detaches the devices and returns the pipeline counters. Events still
    /// scheduled (app timers) are dropped and logged. An app that measures with `CallMeter` reads
    /// the counters from its report, and may ignore them here.
    @discardableResult
    public func end() -> PipelineCounters {
        tickTimer?.cancel()
        tickTimer = nil
        audioManager.releaseRetiredMics(except: nil)
        recording.trim()
        recordedEchoPath?.finish()
        hardware?.finishRecords()
        let leftovers = scheduler.drain()
        if leftovers > 0 { logEvent(kind: "teardown", detail: "\(leftovers) scheduled events dropped at the end of the call") }
        // The counters are final now; then let go of every device (a custom mic or speaker still
        // in use hears `didStopCapturing` / `didStopPlaying`, once), so nothing the devices hold
        // (timers, resamplers, files) keeps the call's FFT plans and canceller state alive.
        let final = counters
        endCounters = final
        audioManager.detachAll()
        // The processor may outlive the call (app code can hold it): it must not call back.
        sendVoiceProcessor.onChange = nil
        activeMic = nil
        retiredMics.removeAll()
        taps.removeAll()
        return final
    }

    /// The counters `end()` returned, once the call has ended (its devices are gone by then).
    private var endCounters: PipelineCounters?

    /// Counters so far; after `end()`, the final ones.
    public var counters: PipelineCounters {
        endCounters ?? liveCounters
    }

    private var liveCounters: PipelineCounters {
        var c = PipelineCounters()
        c.ticks = tickCount
        let mics = retiredMics + [activeMic, audioManager.customMic].compactMap { $0 } + audioManager.attachedMics
        var seen = Set<ObjectIdentifier>()
        for mic in mics where seen.insert(ObjectIdentifier(mic)).inserted {
            c.uplink.add(mic.buffer)
            c.uplink.rejectedFrames += mic.conditioner.rejectedFrames
            c.ignoredFrames += mic.ignoredFrames
        }
        for speaker in audioManager.attachedSpeakers {
            var own = BufferCounters()
            own.add(speaker.playout)
            own.underruns += speaker.conditioner.underruns
            own.primingSamples += speaker.conditioner.primingSamples
            own.rejectedFrames += speaker.conditioner.rejectedFrames
            c.speakerPlayouts.append(own)
            c.playout.add(own)
        }
        c.userReference.add(userReference)
        c.userReference.rejectedFrames += userReferenceConditioner.rejectedFrames
        c.ignoredFrames += ignoredReferenceFrames
        c.loudspeaker.add(loudspeaker.buffer)
        c.loudspeaker.rejectedFrames += loudspeaker.conditioner.rejectedFrames
        c.clippedSamples = clipped
        c.cancellerResets = sendVoiceProcessor.cancellerResets
        c.customSpeakerDelay = customSpeakerDelay
        c.micUplinks = audioManager.attachedMics.map { mic in
            var own = BufferCounters()
            own.add(mic.buffer)
            own.rejectedFrames += mic.conditioner.rejectedFrames
            return own
        }
        c.speakerLoudspeakers = audioManager.attachedSpeakers.indices.map { $0 < speakerLoudspeakers.count ? speakerLoudspeakers[$0] : BufferCounters() }
        return c
    }

    private func tick() throws {
        let n = Self.tickFrames
        // 1. Receive path.
        if let farEnd { try farEnd.read(into: &downlink, count: n) }
        try hardware?.receive(&downlink, count: n, frame: tickCount * Int64(n),
                              customMicSet: audioManager.customMic != nil, customSpeakerSet: audioManager.customSpeaker != nil,
                              customMicIsSource: audioManager.customMic.map { !$0.isRealMicrophone } ?? false)
        // Played out through a device, the far end cannot exceed full scale (nor can the
        // canceller's reference, which is this same downlink).
        let playoutClipped = VectorMath.saturate(&downlink, count: n)
        // 2. Playout and the loudspeaker.
        let speaker = audioManager.customSpeaker
        speaker?.playout.write(downlink, count: n)
        noteCustomSpeakerDelay(speaker: speaker)
        loudspeaker.emit(into: &emission, count: n)   // idle (nothing counted) until the app plays
        noteLoudspeakerFaults(speaker: speaker)
        downlinkBus.set(downlink, count: n)
        appSoundBus.set(emission, count: n)
        loudspeakerMixer.setEnabled(speaker == nil, forInput: 0)
        try loudspeakerGraph.render(into: &drive, frames: n)
        let tickStart = tickCount * Int64(n)
        let loudspeakerClipped = VectorMath.saturate(&drive, count: n)
        if playoutClipped + loudspeakerClipped > 0 {
            clipped.playout += Int64(playoutClipped)
            clipped.loudspeaker += Int64(loudspeakerClipped)
            clipped.loudspeakerStretch = (clipped.loudspeakerStretch?.lowerBound ?? tickStart)..<(tickStart + Int64(n))
        }
        try hardware?.play(&drive, count: n)          // through the output device
        // 3. The room.
        if let path = hardware?.echoPath {
            path.process(drive, into: &echo)
        } else if let recordedEchoPath {
            recordedEchoPath.process(drive, into: &echo)
        } else {
            echoPath.process(drive, into: &echo)
        }
        if let nearEnd { try nearEnd.read(into: &near, count: n) } else { VectorMath.fill(&near, count: n) }
        hardware?.hear(talker: near, count: n)        // what a restart of the input stream can cut
        if noise != nil {
            noise!.fill(&noiseBlock, count: n)
            VectorMath.accumulate(noiseBlock, into: &near, count: n)
        }
        VectorMath.add(echo, near, into: &physical, count: n)
        // The microphone's ADC saturates at full scale.
        let micClipped = VectorMath.saturate(&physical, count: n)
        if micClipped > 0 {
            clipped.mic += Int64(micClipped)
            clipped.micStretch = (clipped.micStretch?.lowerBound ?? tickStart)..<(tickStart + Int64(n))
        }
        try hardware?.capture(&physical, echo: &echo, nearEnd: &near, count: n)   // through the input device
        if microphone.isOpen { microphone.fifo.write(physical, count: n) }
        // 4. Capture, switching sources make-before-break.
        let deviceMicBefore = activeMic == nil, microphoneBefore = activeMic?.isRealMicrophone ?? true
        let captureIsCustomMicAudio = readCapture()
        let nearEndInMic = deviceMicBefore && activeMic == nil
        // A tick switched between sources carries some of each: the room reaches it only when both do.
        let echoReachesSent = microphoneBefore && (activeMic?.isRealMicrophone ?? true)
        hardware?.gate(&capture, count: n, customMicInUse: activeMic != nil, customMicDelivered: captureIsCustomMicAudio)
        // 5. Reference.
        if isUserReferenceStarted {
            userReference.read(into: &reference, count: n)
        } else {
            VectorMath.copy(downlink, into: &reference, count: n)
        }
        // 6. Send voice processing, whose input and reference are full-scale PCM.
        clipped.capture += Int64(VectorMath.saturate(&capture, count: n))
        clipped.reference += Int64(VectorMath.saturate(&reference, count: n))
        try sendVoiceProcessor.process(capture: capture, reference: reference, sent: &sent)
        let sentIsSilenced = isMuted || hardware?.isFlowing == false
        if sentIsSilenced { VectorMath.fill(&sent, count: n) }
        if recordsTaps {
            recording.record(mic: capture, reference: reference, echo: echo, nearEnd: near, played: drive, sent: sent, frames: n)
        }
        if !taps.isEmpty {
            let signals = TickSignals(frame: tickCount * Int64(n), count: n, mic: capture, reference: reference, echo: echo,
                                      nearEnd: near, played: drive, sent: sent, sendLatency: sendVoiceProcessor.latencySamples,
                                      nearEndInMic: nearEndInMic, echoReachesSent: echoReachesSent, sentIsSilenced: sentIsSilenced,
                                      micIsCustomMicAudio: captureIsCustomMicAudio && !sentIsSilenced,
                                      echoPathChanged: tickCount > 0 && hardware.map { $0.echoPathChangeCount != echoPathChangeCountSeen } ?? false,
                                      captureIsContinuous: hardware?.captureIsContinuous ?? true)
            for tap in taps { try tap.record(signals) }
        }
        echoPathChangeCountSeen = hardware?.echoPathChangeCount ?? 0
        noteDeviceState()
        tickCount += 1
    }

    /// Reads this tick's capture; true where it is all a custom mic's own audio (`TickSignals.micIsCustomMicAudio`).
    private func readCapture() -> Bool {
        let n = Self.tickFrames
        let wanted = audioManager.customMic
        // A mic replaced before the engine ever read it, or left in the last switch, stops now.
        audioManager.releaseRetiredMics(except: activeMic)
        if wanted === activeMic {
            pendingTicks = 0                          // a switch abandoned before it happened
            return read(from: activeMic, into: &capture)
        }
        if tickCount == 0 {
            // Selected before the call started: nothing to hand over from, use it from the start
            // (its priming is the call's startup latency; the physical mic is never opened).
            activeMic = wanted
            if let wanted { logEvent(kind: "capture", detail: "starts on \(wanted.deviceName)") }
            return read(from: activeMic, into: &capture)
        }
        let ready = wanted.map { $0.buffer.canRead(count: n) } ?? true
        pendingTicks += 1
        if !ready && pendingTicks <= Self.switchTimeoutTicks {
            return read(from: activeMic, into: &capture)     // keep the old source until the new one is ready
        }
        _ = read(from: activeMic, into: &capture)
        _ = read(from: wanted, into: &incoming)
        VectorMath.crossfade(inPlace: &capture, to: incoming, ramp: fadeIn, count: n)
        if let old = activeMic {
            old.buffer.reset()
            old.splicedTicksLeft = 0
            if !retiredMics.contains(where: { $0 === old }) { retiredMics.append(old) }
        }
        logEvent(kind: "capture", detail: "switched from \(activeMic?.deviceName ?? "default mic") to \(wanted?.deviceName ?? "default mic")"
            + (ready ? "" : " (new source not ready after \(pendingTicks * 10) ms)"))
        activeMic = wanted
        pendingTicks = 0
        audioManager.releaseRetiredMics(except: activeMic)
        return false                                  // a blend of two sources
    }

    /// True where `block` is all the custom mic's own audio: none of it filled in, and none read
    /// across audio the app's side lost. An overrun drops the oldest buffered samples, where the
    /// next read starts; frames refused for their format leave a hole where they would have been
    /// written, read once what was buffered before them is: ticks up to there are not the mic's
    /// own audio whole (a splice there is a dropout, not the file's click).
    private func read(from mic: CustomMic?, into block: inout [Float]) -> Bool {
        guard let mic else {
            VectorMath.copy(physical, into: &block, count: Self.tickFrames)
            return false
        }
        let losses = Int64(mic.buffer.overruns) + mic.conditioner.rejectedFrames
        if losses != mic.lossesSeen {
            mic.lossesSeen = losses
            mic.splicedTicksLeft = max(mic.splicedTicksLeft, mic.buffer.count / Self.tickFrames + 1)
        }
        let whole = mic.buffer.read(into: &block, count: Self.tickFrames)
        guard mic.splicedTicksLeft == 0 else {
            mic.splicedTicksLeft -= 1
            return false
        }
        return whole
    }

    /// Counts what the app's custom speaker holds between the engine's reference and the room, once
    /// the engine has written this tick and before the loudspeaker reads it (`CustomSpeakerDelay`).
    /// From the loudspeaker's first played tick: Little's law holds over a stretch whose buffers
    /// hold the same at both ends, which the start — the engine filling its playout buffer while
    /// the app's timer has not yet fired, the loudspeaker priming — is not (its ramp read 892 ms
    /// of a 910 ms lag). Audio that leaves unplayed (dropped at an overrun), or a loudspeaker that
    /// ran dry, breaks the balance the law needs too: the mean starts again after it.
    private func noteCustomSpeakerDelay(speaker: CustomSpeaker?) {
        guard let speaker, speaker.drivesLoudspeaker, !isUserReferenceStarted, loudspeaker.buffer.isPrimed else { return }
        let disturbances = Int64(loudspeaker.buffer.underruns) + loudspeaker.buffer.fifo.droppedSamples + speaker.playout.droppedSamples
        if disturbances != customSpeakerDisturbances {
            customSpeakerDisturbances = disturbances
            customSpeakerDelay.queuedSamples = 0
            customSpeakerDelay.ticks = 0
        } else {
            customSpeakerDelay.queuedSamples += Int64(speaker.playout.count + loudspeaker.buffer.count)
            customSpeakerDelay.ticks += 1
        }
    }

    /// Gives the loudspeaker's overruns, drops and refused frames since the last tick to the custom
    /// speaker set now (what the app played between two ticks was its speaker's). The list grows
    /// only when a speaker is new.
    private func noteLoudspeakerFaults(speaker: CustomSpeaker?) {
        let overruns = loudspeaker.buffer.overruns, dropped = loudspeaker.buffer.fifo.droppedSamples
        let rejected = loudspeaker.conditioner.rejectedFrames
        defer { loudspeakerSeen = (overruns, dropped, rejected) }
        guard overruns != loudspeakerSeen.overruns || dropped != loudspeakerSeen.dropped || rejected != loudspeakerSeen.rejected,
              let speaker, let index = audioManager.attachedSpeakers.firstIndex(where: { $0 === speaker }) else { return }
        while speakerLoudspeakers.count <= index { speakerLoudspeakers.append(BufferCounters()) }
        speakerLoudspeakers[index].overruns += overruns - loudspeakerSeen.overruns
        speakerLoudspeakers[index].dropped += dropped - loudspeakerSeen.dropped
        speakerLoudspeakers[index].rejectedFrames += rejected - loudspeakerSeen.rejected
    }

    /// Records the devices and modes in use when they change. The per-tick check compares
    /// identities and flags only; names are built for the (rare) new entry.
    private func noteDeviceState() {
        let mic = activeMic, speaker = audioManager.customSpeaker
        let key = DeviceStateKey(mic: mic.map(ObjectIdentifier.init), speaker: speaker.map(ObjectIdentifier.init),
                                 mode: sendVoiceProcessor.echoCancellerMode, userReference: isUserReferenceStarted, isMuted: isMuted)
        guard key != lastDeviceStateKey else { return }
        lastDeviceStateKey = key
        deviceStates.append(DeviceState(frame: tickCount * Int64(Self.tickFrames),
                                        customMic: mic?.deviceName, customMicIsRealMicrophone: mic?.isRealMicrophone ?? true,
                                        customSpeaker: speaker?.deviceName, customSpeakerAltersPlayout: speaker?.altersPlayout ?? false,
                                        customSpeakerDrivesLoudspeaker: speaker?.drivesLoudspeaker ?? true,
                                        echoCancellerMode: key.mode, isUserReferenceStarted: key.userReference, isMuted: key.isMuted,
                                        customSpeakerIndex: speaker.flatMap { speaker in audioManager.attachedSpeakers.firstIndex { $0 === speaker } },
                                        customMicIndex: mic.flatMap { mic in audioManager.attachedMics.firstIndex { $0 === mic } }))
    }
}

/// What `noteDeviceState` compares each tick.
struct DeviceStateKey: Equatable {
    var mic: ObjectIdentifier?
    var speaker: ObjectIdentifier?
    var mode: EchoCancellerMode
    var userReference: Bool
    var isMuted: Bool
}

extension BufferCounters {
    /// Another buffer's counts, summed in.
    mutating func add(_ other: BufferCounters) {
        written += other.written
        read += other.read
        dropped += other.dropped
        buffered += other.buffered
        underruns += other.underruns
        overruns += other.overruns
        primingSamples += other.primingSamples
        rejectedFrames += other.rejectedFrames
    }

    mutating func add(_ fifo: SampleFIFO) {
        written += fifo.writtenSamples
        read += fifo.readSamples
        dropped += fifo.droppedSamples
        buffered += Int64(fifo.count)
        underruns += fifo.underruns
        overruns += fifo.overruns
    }

    mutating func add(_ buffer: CadenceBuffer) {
        add(buffer.fifo)
        underruns += buffer.underruns
        primingSamples += buffer.primingSamples
    }
}
