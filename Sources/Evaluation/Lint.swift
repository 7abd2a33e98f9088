import EchoLabJSON
import Simulation

/// The AEC rules of PlanetKit's custom audio device guide ("Key considerations"), checked against
/// the device timeline of a call. Each finding covers the stretch of the call where the rule is
/// broken; the report puts the measured consequence beside it.
public enum LintRule: String, CaseIterable, Sendable {
    /// Case 1: a custom source that is not a real microphone (file, stream, TTS) with AEC still on.
    /// Nothing echoes into a file, so the canceller can only damage it.
    case aecOnNonMicrophoneSource = "aec-on-non-microphone-source"
    /// Case 1, sink side: a custom speaker that plays nothing into the room (recording) with AEC on.
    case aecOnWithoutLoudspeaker = "aec-on-without-loudspeaker"
    /// Case 2: a custom speaker that changes what is played (mixing) without the user AEC
    /// reference, while a real microphone is in use: the canceller cannot know the added audio.
    case alteredPlayoutWithoutReference = "altered-playout-without-reference"
    /// AEC disabled while a real microphone and loudspeaker are in use: the peer hears itself.
    case aecDisabledWithRealDevices = "aec-disabled-with-real-devices"
    /// The user AEC reference is started but (almost) nothing is put: the canceller's reference
    /// is silence, so nothing is cancelled — and every echo metric goes quiet with it.
    case userReferenceNotFed = "user-reference-not-fed"
    /// The loudspeaker is driven past full scale: it clips, a nonlinearity no linear canceller
    /// models, so the echo it leaves grows with the clipping.
    case loudspeakerClipping = "loudspeaker-clipping"
    /// The microphone saturates (echo or near end too loud for its range): the canceller sees a
    /// clipped mix it cannot subtract the echo from.
    case micClipping = "mic-clipping"
    /// The echo reaches the mic later after the reference than the canceller's filter reaches
    /// (`EchoReach`): it cannot model the echo at all, and the peer hears it.
    case echoDelayBeyondFilter = "echo-delay-beyond-filter"

    public var advice: String {
        switch self {
        case .aecOnNonMicrophoneSource:
            "the custom mic is not a real microphone but AEC is on: call setAcousticEchoCanceller(mode: .disabled) after setting it"
        case .aecOnWithoutLoudspeaker:
            "the custom speaker plays nothing into the room but AEC is on: call setAcousticEchoCanceller(mode: .disabled) after setting it"
        case .alteredPlayoutWithoutReference:
            "the custom speaker changes what is played without the user AEC reference: call startUserAcousticEchoCancellerReference() and put what you play"
        case .aecDisabledWithRealDevices:
            "AEC is disabled while a real microphone and loudspeaker are in use: call setAcousticEchoCanceller(mode: .intensityRecommended)"
        case .userReferenceNotFed:
            "the user AEC reference is started but nothing (or too little) is put: call putUserAcousticEchoCancellerReference with what you play, or stop it"
        case .loudspeakerClipping:
            "the loudspeaker is driven past full scale and clips: lower the playout level (the far end or what the app mixes in)"
        case .micClipping:
            "the microphone saturates: the echo or the near end is too loud for its range; lower the echo path's or the talker's level"
        case .echoDelayBeyondFilter:
            "the echo arrives later than the canceller's filter reaches: " + Self.delayRemedy
        }
    }

    static let delayRemedy = "feed the reference when it is played (not when it is received), or use a backend that reaches further"

    func isBroken(by state: DeviceState) -> Bool {
        let aecOn = state.echoCancellerMode != .disabled
        switch self {
        case .aecOnNonMicrophoneSource: return aecOn && !state.realMicrophoneInUse
        case .aecOnWithoutLoudspeaker: return aecOn && state.realMicrophoneInUse && !state.loudspeakerInUse
        case .alteredPlayoutWithoutReference:
            return aecOn && state.realMicrophoneInUse && state.customSpeaker != nil && state.customSpeakerAltersPlayout && !state.userReferenceStarted
        case .aecDisabledWithRealDevices: return !aecOn && state.realMicrophoneInUse && state.loudspeakerInUse
        case .userReferenceNotFed: return aecOn && state.userReferenceStarted
        case .loudspeakerClipping, .micClipping, .echoDelayBeyondFilter:
            return false     // signal rules: see `Linter.clippingFindings`, `Linter.delayFindings`
        }
    }
}

/// One broken rule over a stretch of the call.
public struct LintFinding: Hashable, Sendable {
    public var rule: LintRule
    public var frames: Range<Int>
    public var message: String
}

public enum Linter {
    /// A rule must stay broken this long to be a finding. An app switches a device and the AEC
    /// mode in two calls, and the engine hands capture over only once the new source has primed
    /// (up to 200 ms): overlaps shorter than that are transitions, not configurations.
    public static let minimumDurationSeconds = 0.25

    /// Findings in time order (then rule order) over `0..<endFrame`, at least
    /// `minimumDurationSeconds` long.
    /// `referenceSamplesRead`: real samples the engine took from the user reference (the
    /// pipeline counter); the not-fed rule holds when that is under half of the started stretch.
    public static func findings(states: [DeviceState], endFrame: Int, sampleRate: Int = 48_000,
                                referenceSamplesRead: Int64 = .max) -> [LintFinding] {
        let minimum = Int(minimumDurationSeconds * Double(sampleRate))
        let all = allFindings(states: states, endFrame: endFrame)
        let started = all.filter { $0.rule == .userReferenceNotFed }.reduce(0) { $0 + $1.frames.count }
        let starved = referenceSamplesRead < Int64(started / 2)
        return all.filter { $0.frames.count >= minimum && ($0.rule != .userReferenceNotFed || starved) }
    }

    /// Clipping is a fact of the signal, not of the device timeline: any clipped sample is a
    /// finding, over the stretch from the first to the last tick that clipped.
    public static func clippingFindings(_ clipped: ClippedSamples) -> [LintFinding] {
        var findings: [LintFinding] = []
        if let stretch = clipped.loudspeakerStretch, clipped.playout + clipped.loudspeaker > 0 {
            findings.append(LintFinding(rule: .loudspeakerClipping, frames: Int(stretch.lowerBound)..<Int(stretch.upperBound),
                                        message: LintRule.loudspeakerClipping.advice))
        }
        if let stretch = clipped.micStretch, clipped.mic > 0 {
            findings.append(LintFinding(rule: .micClipping, frames: Int(stretch.lowerBound)..<Int(stretch.upperBound),
                                        message: LintRule.micClipping.advice))
        }
        return findings
    }

    /// The stretches (at least `minimumDurationSeconds`) where a canceller runs whose reach
    /// (`EchoReach`) falls short of the echo's bulk delay, `delayMilliseconds` (nil: unknown, no
    /// finding; `delayIsLowerBound`: the scenario's echo path delay, where none was measured).
    public static func delayFindings(states: [DeviceState], endFrame: Int, sampleRate: Int, delayMilliseconds: Double?,
                                     delayIsLowerBound: Bool = false, backend: EchoCancellerBackend, filterOverride: Int?) -> [LintFinding] {
        guard let delay = delayMilliseconds else { return [] }
        // A stretch per reach: a switch between two modes that both fall short is two findings.
        let short = stretches(states, endFrame: endFrame) { state -> Double? in
            let reach = EchoReach.milliseconds(for: EchoControlMode(backend: backend, intensity: state.echoCancellerMode),
                                               filterOverride: filterOverride)
            return reach.flatMap { delay > $0 ? $0 : nil }
        }
        return short.map { frames, reach in
            LintFinding(rule: .echoDelayBeyondFilter, frames: frames,
                        message: "the echo arrives \(delayIsLowerBound ? "at least " : "")\(RunEvaluator.format(delay)) ms after the reference"
                            + (delayIsLowerBound ? " (the scenario's echo path delay: none was measured)" : "")
                            + ", beyond the \(RunEvaluator.format(reach)) ms \(backend.name) reaches: "
                            + LintRule.delayRemedy)
        }.filter { $0.frames.count >= Int(minimumDurationSeconds * Double(sampleRate)) }
    }

    static func allFindings(states: [DeviceState], endFrame: Int) -> [LintFinding] {
        let findings = LintRule.allCases.flatMap { rule in
            stretches(states, endFrame: endFrame) { rule.isBroken(by: $0) ? true : nil }
                .map { LintFinding(rule: rule, frames: $0.frames, message: rule.advice) }
        }
        return findings.sorted { ($0.frames.lowerBound, LintRule.allCases.firstIndex(of: $0.rule)!) < ($1.frames.lowerBound, LintRule.allCases.firstIndex(of: $1.rule)!) }
    }

    /// The device timeline's stretches (non-empty) over which `key` stays the same non-nil value,
    /// each state lasting until the next one (the last until `endFrame`).
    static func stretches<Key: Equatable>(_ states: [DeviceState], endFrame: Int,
                                          key: (DeviceState) -> Key?) -> [(frames: Range<Int>, key: Key)] {
        var out: [(frames: Range<Int>, key: Key)] = []
        var open: (start: Int, key: Key)?
        for (index, state) in states.enumerated() {
            let from = Int(state.frame)
            let current = key(state)
            if let stretch = open, current != stretch.key {
                if from > stretch.start { out.append((stretch.start..<from, stretch.key)) }
                open = nil
            }
            if open == nil, let current { open = (from, current) }
            if index == states.count - 1, let stretch = open, endFrame > stretch.start {
                out.append((stretch.start..<endFrame, stretch.key))
            }
        }
        return out
    }
}
