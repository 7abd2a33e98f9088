import Foundation

/// Per-frame classification: is the far end active (at the mic, i.e. after the bulk delay), and
/// is the near end silent? ERL and ERLE are only meaningful in far-end single talk: with the
/// near end talking, mic power is not echo power and the canceller may rightly keep it.
/// Frames are classified one at a time, in order, from the sums of squares of their two hops
/// (each sample is squared once, not twice); only the counts are kept.
struct ActivityGate {
    let method: ActivityGateMethod
    private let activeMeanSquare: Double
    private let silentMeanSquare: Double
    private let frameSize: Int
    private(set) var frames = 0
    private(set) var farEndActiveFrames = 0
    private(set) var singleTalkFrames = 0
    /// Frames whose reference is active but whose echo stays under what else the mic holds while
    /// the near end is silent: the far end played, and no echo of it was there to measure.
    private(set) var echoUnderNoiseFrames = 0

    /// Per-frame near-end decisions made before the stream (`EchoPathGate`), when there are no tracks.
    private let nearEndActivity: FrameBits?
    /// Why those decisions decide nothing (`EchoPathGate.limitation`): then no frame is judged —
    /// none is single talk, so none is scored, and none is double talk either (no talker was
    /// heard: a loopback recorded late made every far-end frame "double talk" here).
    private let limitation: ActivityGateLimitation?
    /// The offline gate's fitted echo and residual per frame (`.echoPathFit` only): where the
    /// near end is silent, the far end counts as active at the mic only where the fitted echo
    /// stands above the residual — the rule an echo track gets. Without it a recording whose mic
    /// holds no echo at all (a headset's) read the reference over the mic's noise as an ERL of
    /// 33 dB and a quieter output as an ERLE.
    private let fittedEcho: ResidualLevels?
    /// The fitted echo stands above the residual in so few frames that they are chance
    /// (`ResidualLevels.echoStandsAboveOnlyByChance`): then it stands above it in none.
    private let fittedEchoIsChance: Bool
    /// The near-end estimate's floor (its track, or mic − echo): the 2 % quantile of its frames'
    /// levels (the tap-free gate's `ResidualLevels.floorQuantile`, here over 0.25 dB bins, as
    /// frames arrive) — the warm-up's frames all at once (`seedNearEndFloor`), then each as it is
    /// classified. A track that holds the room's noise (a simulated call's near end does) at or
    /// above the silence level has it taken off (`SteadyNoise`): −50 dBFS of noise otherwise read
    /// as a talker in every frame, and a call's echo metrics all went unmeasured.
    private var nearEndFloor = NoiseFloorEstimate(quantile: ResidualLevels.floorQuantile)
    /// Frames the floor was seeded with (the rest it took as they were classified).
    private(set) var seededFrames = 0
    /// With a near-end track but no echo track (a recording scored with its clean near-end
    /// speech): the floor of mic − track — which holds the echo and the noise the track lacks —
    /// over the frames where the far end is silent, so the noise alone (the same quantile, seeded
    /// the same way). While the near end is silent, the far end counts as active at the mic only
    /// where mic − track holds more than twice that floor (its echo above the noise): the rule an
    /// echo track gets, which a mic without echo otherwise escaped (ERL 34 dB, the reference over
    /// the noise). A far end that never pauses leaves no floor, and every frame its echo.
    private var micLessNearEndFloor = NoiseFloorEstimate(quantile: ResidualLevels.floorQuantile)

    /// The near end is judged from its own track when given, else from mic − echo, else from the
    /// offline echo-path fit's decisions when given, else not at all.
    init(hasEcho: Bool, hasNearEnd: Bool, nearEndActivity: FrameBits? = nil, limitation: ActivityGateLimitation? = nil,
         fittedEcho: ResidualLevels? = nil, frameSize: Int, configuration: EchoMetricsConfiguration) {
        method = hasNearEnd && !configuration.nearEndTrackIsMicLessEcho ? .nearEndTrack
            : hasEcho ? .micMinusEcho : nearEndActivity != nil ? .echoPathFit : .farEndOnly
        self.nearEndActivity = nearEndActivity
        self.limitation = method == .echoPathFit ? limitation : nil
        self.fittedEcho = method == .echoPathFit ? fittedEcho : nil
        fittedEchoIsChance = method == .echoPathFit && fittedEcho?.echoStandsAboveOnlyByChance() == true
        activeMeanSquare = pow(10, configuration.farEndActiveDBFS / 10)
        silentMeanSquare = pow(10, configuration.nearEndSilentDBFS / 10)
        self.frameSize = frameSize
    }

    /// The near-end estimate's energies of the first frames, before any of them is classified;
    /// with a near-end track but no echo track, mic − track's and the aligned reference's too.
    mutating func seedNearEndFloor(frameEnergies: [Double], micLessNearEnd: [(farEnd: Double, micLessNearEnd: Double)] = []) {
        precondition(frames == 0 && seededFrames == 0, "the floor is seeded once, before the first frame")
        precondition(micLessNearEnd.isEmpty || micLessNearEnd.count == frameEnergies.count, "the same frames seed both floors")
        for energy in frameEnergies { nearEndFloor.add(power: energy / Double(frameSize)) }
        seededFrames = frameEnergies.count
        for frame in micLessNearEnd where frame.farEnd / Double(frameSize) < activeMeanSquare {
            micLessNearEndFloor.add(power: frame.micLessNearEnd / Double(frameSize))
        }
    }

    /// Classifies the next frame from its energies (sums of squares over the frame): the
    /// delay-aligned reference, and the near-end estimate (ignored for `.farEndOnly` and
    /// `.echoPathFit`, which reads its decision for frame `frames`, the frame being classified).
    /// `echo`, with an echo track (its energy, and what else the mic holds: the near-end estimate's,
    /// or mic − echo's where a recording's clean near-end track lacks the noise): while the near
    /// end is silent, the far end counts as active at the mic only where its echo stands above
    /// what else the mic holds (the noise) — an echo
    /// under the noise is no echo to cancel, and the "ERLE" of such frames measured how the
    /// canceller treated the noise. The tap-free gate applies the same rule to its fitted echo
    /// and residual (`fittedEcho`).
    /// Returns whether it is far-end single talk.
    /// `micLessNearEndEnergy`, with a near-end track and no echo track: mic − track's energy,
    /// judged against its floor instead.
    mutating func classify(farEndEnergy: Double, nearEndEnergy: Double, echo: (energy: Double, beside: Double)? = nil,
                           micLessNearEndEnergy: Double? = nil) -> Bool {
        let frame = frames
        frames += 1
        let farEndPlays = farEndEnergy / Double(frameSize) >= activeMeanSquare
        let nearEndActive: Bool
        switch method {
        case .farEndOnly: nearEndActive = false
        case .echoPathFit:
            if limitation != nil {
                if farEndPlays { farEndActiveFrames += 1 }
                lastTalk = .unjudged
                return false
            }
            nearEndActive = nearEndActivity?[frame] ?? false
        case .nearEndTrack, .micMinusEcho:
            let meanSquare = nearEndEnergy / Double(frameSize)
            if frame >= seededFrames { nearEndFloor.add(power: meanSquare) }
            nearEndActive = SteadyNoise.talkerMeanSquare(meanSquare, floor: nearEndFloor.power, silentMeanSquare: silentMeanSquare)
                >= silentMeanSquare
        }
        var echoAboveItsFloor: Bool?
        if let micLessNearEndEnergy {
            let meanSquare = micLessNearEndEnergy / Double(frameSize)
            if frame >= seededFrames && !farEndPlays { micLessNearEndFloor.add(power: meanSquare) }
            echoAboveItsFloor = micLessNearEndFloor.power.map { meanSquare > 2 * $0 }
        }
        let echoAudible = nearEndActive
            || echo.map { $0.energy > $0.beside } ?? echoAboveItsFloor
            ?? fittedEcho.map { !fittedEchoIsChance && $0.echoStandsAboveResidual(frame) } ?? true
        guard farEndPlays, echoAudible else {
            if farEndPlays { echoUnderNoiseFrames += 1 }
            lastTalk = nearEndActive ? .nearEndSingleTalk : .silence
            return false
        }
        farEndActiveFrames += 1
        guard !nearEndActive else {
            lastTalk = .doubleTalk
            return false
        }
        lastTalk = .farEndSingleTalk
        singleTalkFrames += 1
        return true
    }

    /// Who talked in the frame `classify` last saw.
    enum Talk {
        case silence, farEndSingleTalk, nearEndSingleTalk, doubleTalk
        /// A `limitation` left the frame undecided: no scorer's stretch takes it (its talk run
        /// is silence), and it is no quiet frame either.
        case unjudged

        var run: TalkRun.Talk {
            switch self {
            case .silence, .unjudged: .silence
            case .farEndSingleTalk: .farEndSingleTalk
            case .nearEndSingleTalk: .nearEndSingleTalk
            case .doubleTalk: .doubleTalk
            }
        }
    }
    private(set) var lastTalk = Talk.silence

    func summary() -> ActivityGateSummary {
        ActivityGateSummary(method: method, frames: frames, farEndActiveFrames: farEndActiveFrames,
                            singleTalkFrames: singleTalkFrames,
                            doubleTalkFrames: limitation == nil ? farEndActiveFrames - singleTalkFrames : 0,
                            limitation: limitation, echoUnderNoiseFrames: echoUnderNoiseFrames)
    }
}
