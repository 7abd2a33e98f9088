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
    /// The custom speaker that put the user AEC reference was reset and the reference was left
    /// started (PlanetKit: "call stopUserAcousticEchoCancellerReference() after ending the use of
    /// a custom audio sink"): the default speaker plays while the canceller's reference is silence.
    case userReferenceNotStopped = "user-reference-not-stopped"
    /// A custom speaker is set but the app pulls (almost) nothing of what the engine hands it (its
    /// timer never started, or stopped): the peer is not heard, and the engine drops its audio.
    case customSpeakerNotPulled = "custom-speaker-not-pulled"
    /// The custom mic pushes more at once than the engine's input buffer holds (a second): the
    /// engine drops what does not fit, and the peer hears gaps in the near end.
    case customMicOverrun = "custom-mic-overrun"
    /// The app's custom speaker writes more at once than the loudspeaker's buffer holds (a
    /// second): what does not fit is dropped, the user hears gaps, and what plays comes that much
    /// later after the engine's reference.
    case customSpeakerOverrun = "custom-speaker-overrun"
    /// The engine refused audio the app gave it or asked it for — a custom mic's, a custom
    /// speaker's, the user reference's — in a format it cannot take (no channels, a sample rate
    /// it cannot convert): that audio is lost.
    case customDeviceFormatRejected = "custom-device-format-rejected"
    /// The loudspeaker is driven past full scale: it clips, a nonlinearity no linear canceller
    /// models, so the echo it leaves grows with the clipping.
    case loudspeakerClipping = "loudspeaker-clipping"
    /// The microphone saturates (echo or near end too loud for its range): the canceller sees a
    /// clipped mix it cannot subtract the echo from.
    case micClipping = "mic-clipping"
    /// The echo reaches the mic later after the reference than the canceller's filter reaches
    /// (`EchoReach`): it cannot model the echo at all, and the peer hears it.
    case echoDelayBeyondFilter = "echo-delay-beyond-filter"

    /// The rules that find the canceller's reference left silent while the app's speaker plays
    /// (started and not fed, or not stopped after the speaker was reset): ERL and ERLE, measured
    /// against that reference, see nothing of the far end there.
    public static let silentReference: [LintRule] = [.userReferenceNotFed, .userReferenceNotStopped]

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
        case .userReferenceNotStopped:
            "the custom speaker was reset but the user AEC reference is still started, so the canceller's reference is silence: "
                + "call stopUserAcousticEchoCancellerReference() after resetting the custom speaker (resetCustomSpeakerToDefaultSpeaker())"
        case .customSpeakerNotPulled:
            "the custom speaker is set but pulls (almost) nothing of the peer's audio the engine hands it: start its playout "
                + "(the timer that pulls every period) when you set it, and reset it to the default speaker when you stop it"
        case .customMicOverrun:
            "the custom mic pushes more at once than the engine's input buffer holds (one second): push each period's audio as "
                + "it is captured, in 10 or 20 ms frames, not in long bursts"
        case .customSpeakerOverrun:
            "the custom speaker plays more at once than the loudspeaker's buffer holds (one second): pull and play the peer's "
                + "audio every period as the loudspeaker takes it, in periods well under a second, not in long bursts"
        case .customDeviceFormatRejected:
            "the engine refused audio in a format it cannot take: give each PCMBuffer the sample rate and channel count its "
                + "samples have (a channel count above 0, a rate the engine converts: 8 to 192 kHz)"
        case .loudspeakerClipping:
            "the loudspeaker is driven past full scale and clips: lower the playout level (the far end or what the app mixes in)"
        case .micClipping:
            "the microphone saturates: the echo or the near end is too loud for its range; lower the echo path's or the talker's level"
        case .echoDelayBeyondFilter:
            // Who feeds the reference decides the remedy: the finding's message names it and the
            // backends that reach; the rule alone cannot.
            "the echo arrives later than the canceller's filter reaches: where the app puts the user AEC reference, put it when it "
                + "is played (not when it is received); with a custom speaker, start the reference and put what it plays; "
                + "with the default speaker, use a backend that reaches further or a route with less output latency"
        }
    }

    /// `afterSpeakerReset`: the state's user reference has stayed started since a custom speaker
    /// it served was reset (`Linter.referenceOutlivesSpeaker`).
    func isBroken(by state: DeviceState, afterSpeakerReset: Bool) -> Bool {
        let aecOn = state.echoCancellerMode != .disabled
        switch self {
        case .aecOnNonMicrophoneSource: return aecOn && !state.realMicrophoneInUse
        case .aecOnWithoutLoudspeaker: return aecOn && state.realMicrophoneInUse && !state.loudspeakerInUse
        case .alteredPlayoutWithoutReference:
            return aecOn && state.realMicrophoneInUse && state.customSpeaker != nil && state.customSpeakerAltersPlayout && !state.isUserReferenceStarted
        case .aecDisabledWithRealDevices: return !aecOn && state.realMicrophoneInUse && state.loudspeakerInUse
        case .userReferenceNotFed: return aecOn && state.isUserReferenceStarted && !afterSpeakerReset
        case .userReferenceNotStopped: return aecOn && afterSpeakerReset
        case .customSpeakerNotPulled: return state.customSpeaker != nil
        // Judged by each device's own counters (`Linter.findings`) over the stretches it was set.
        case .customMicOverrun: return state.customMic != nil
        case .customSpeakerOverrun: return state.customSpeaker != nil && state.customSpeakerDrivesLoudspeaker
        case .customDeviceFormatRejected: return state.customMic != nil || state.customSpeaker != nil || state.isUserReferenceStarted
        case .loudspeakerClipping, .micClipping, .echoDelayBeyondFilter:
            return false     // signal rules: see `Linter.clippingFindings`, `Linter.delayFindings`
        }
    }
}

/// What an app can do about an echo later than the canceller reaches, by who feeds the reference.
enum DelayRemedy: Equatable {
    /// The app puts the user AEC reference: putting it late (when received, not when played)
    /// adds its own buffering to the delay.
    case appPutsReference
    /// A custom speaker plays the peer without the user reference: the engine's reference is
    /// what it hands the app, and the app's buffering comes after it.
    case customSpeakerWithoutReference
    /// The default speaker: the engine feeds the reference as it hands the audio to the output,
    /// so the delay is the output's latency and the room's; no app-fed reference exists.
    case engineFeedsReference

    init(_ state: DeviceState) {
        if state.isUserReferenceStarted {
            self = .appPutsReference
        } else if state.customSpeaker != nil && state.customSpeakerDrivesLoudspeaker {
            self = .customSpeakerWithoutReference
        } else {
            self = .engineFeedsReference
        }
    }

    /// `further`: backends that reach the delay ("name reaches N ms"); `route`: the call's route.
    func text(further: [String], route: String?) -> String {
        let backends = further.isEmpty ? "use a backend that reaches further"
            : "use a backend that reaches further (\(further.joined(separator: ", ")))"
        switch self {
        case .appPutsReference:
            return "feed the reference when it is played (not when it is received), or " + backends
        case .customSpeakerWithoutReference:
            return "start the user AEC reference and put what the custom speaker plays when it plays it "
                + "(startUserAcousticEchoCancellerReference(), putUserAcousticEchoCancellerReference), or " + backends
        case .engineFeedsReference:
            return "the engine feeds the reference itself as the default speaker plays, so the delay is the output's and the room's: "
                + backends + (route.map { ", or a route with less output latency than \($0)" } ?? "")
        }
    }
}

/// The devices whose own counters judge a rule over a stretch (`Linter.allFindings`): a stretch per
/// such device, so a switch of another device does not cut it in two.
struct DeviceKey: Equatable {
    var mic: Int?, speaker: Int?, reference = false

    /// The devices `rule` is judged by, as set in `state`; none for the rules of how the call was
    /// set up.
    init(_ state: DeviceState, for rule: LintRule) {
        switch rule {
        case .customSpeakerNotPulled, .customSpeakerOverrun: speaker = state.customSpeakerIndex
        case .customMicOverrun: mic = state.customMicIndex
        case .customDeviceFormatRejected:
            mic = state.customMicIndex
            speaker = state.customSpeakerIndex
            reference = state.isUserReferenceStarted
        default: break
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
    /// `counters`: the call's pipeline counters (`SimulatedCall.counters`), which the rules about
    /// what a device did rather than how it was set judge by. The not-fed rule holds where the
    /// engine took real reference audio for under half of the started stretch; the not-pulled rule over a speaker's stretches where it dropped audio,
    /// pulling under half of what the engine handed it (`isUnpulled`, each speaker by its own
    /// counters); the overrun rules over a custom mic's stretches where its input buffer overran,
    /// and a custom speaker's where the loudspeaker's buffer it played into did; the format rule
    /// over a stretch whose custom mic, custom speaker or user reference had frames refused
    /// (`DeviceFaults`: each device by its own counters).
    public static func findings(states: [DeviceState], endFrame: Int, sampleRate: Int = 48_000,
                                counters: PipelineCounters) -> [LintFinding] {
        let minimum = Int(minimumDurationSeconds * Double(sampleRate))
        let all = allFindings(states: states, endFrame: endFrame)
        let started = all.filter { $0.rule == .userReferenceNotFed }.reduce(0) { $0 + $1.frames.count }
        let starved = counters.userReference.read < Int64(started / 2)
        return all.filter { finding in
            guard finding.frames.count >= minimum else { return false }
            switch finding.rule {
            case .userReferenceNotFed: return starved
            case .customSpeakerNotPulled:
                return speakerPlayout(at: finding.frames.lowerBound, states: states, counters.speakerPlayouts)
                    .map { isUnpulled($0, sampleRate: sampleRate) } ?? false
            case .customMicOverrun: return DeviceFaults(at: finding.frames.lowerBound, states: states, counters: counters).mic.overruns > 0
            case .customSpeakerOverrun:
                return DeviceFaults(at: finding.frames.lowerBound, states: states, counters: counters).loudspeaker.overruns > 0
            case .customDeviceFormatRejected:
                return DeviceFaults(at: finding.frames.lowerBound, states: states, counters: counters).rejectedFrames.contains { $0.frames > 0 }
            default: return true
            }
        }
    }

    /// The devices set at `frame` and their own counters.
    struct DeviceFaults {
        /// The custom mic's uplink buffer (empty on the default mic).
        var mic = BufferCounters()
        /// The loudspeaker's faults while the custom speaker was set (empty on the default speaker).
        var loudspeaker = BufferCounters()
        /// Frames refused, per device in use: the custom mic's, the custom speaker's (its pulls and
        /// its plays), the user reference's (the call's one reference).
        var rejectedFrames: [(device: String, frames: Int64)] = []

        init(at frame: Int, states: [DeviceState], counters: PipelineCounters) {
            guard let state = states.last(where: { $0.frame <= Int64(frame) }) else { return }
            if let index = state.customMicIndex, counters.micUplinks.indices.contains(index) {
                mic = counters.micUplinks[index]
                rejectedFrames.append(("the custom mic's", mic.rejectedFrames))
            }
            if let index = state.customSpeakerIndex {
                if counters.speakerLoudspeakers.indices.contains(index) { loudspeaker = counters.speakerLoudspeakers[index] }
                let pulled = counters.speakerPlayouts.indices.contains(index) ? counters.speakerPlayouts[index].rejectedFrames : 0
                rejectedFrames.append(("the custom speaker's", pulled + loudspeaker.rejectedFrames))
            }
            if state.isUserReferenceStarted { rejectedFrames.append(("the user reference's", counters.userReference.rejectedFrames)) }
        }
    }

    /// The playout counters of the custom speaker set at `frame`.
    static func speakerPlayout(at frame: Int, states: [DeviceState], _ speakerPlayouts: [BufferCounters]) -> BufferCounters? {
        guard let index = states.last(where: { $0.frame <= Int64(frame) })?.customSpeakerIndex, speakerPlayouts.indices.contains(index) else { return nil }
        return speakerPlayouts[index]
    }

    /// A speaker the app did not pull: handed more than the longest period a timer may have
    /// (`unpulledSeconds`), it dropped audio (its FIFO ran full) and the app pulled under half.
    /// A speaker set for less than its period pulls once, at once, and finds nothing yet: its
    /// timer runs, and seven 950 ms stints of a 1000 ms timer read as unpulled without the bound.
    static func isUnpulled(_ playout: BufferCounters, sampleRate: Int) -> Bool {
        playout.written > Int64(unpulledSeconds * Double(sampleRate)) && playout.dropped > 0 && playout.read < playout.written / 2
    }

    /// A device timer's longest period (1 s, `period_ms`) and the shortest finding (0.25 s).
    static let unpulledSeconds = 1.25

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
    /// finding; `delayIsLowerBound`: the scenario's echo path delay, where none was measured;
    /// `customSpeakerBufferingMilliseconds`: what the app's custom speaker added to it on average,
    /// where that is part of it — the delay is then about the sum, not at least it).
    /// `route`: the call's route (the hardware model's; nil without one), named in the advice
    /// where the engine feeds the reference itself.
    public static func delayFindings(states: [DeviceState], endFrame: Int, sampleRate: Int, delayMilliseconds: Double?,
                                     delayIsLowerBound: Bool = false, customSpeakerBufferingMilliseconds: Double? = nil,
                                     backend: EchoCancellerBackend, filterOverride: Int?, route: String? = nil,
                                     minimumDurationSeconds: Double = Linter.minimumDurationSeconds) -> [LintFinding] {
        guard let delay = delayMilliseconds else { return [] }
        struct Short: Equatable {
            var reach: Double
            var intensity: EchoCancellerMode
            var remedy: DelayRemedy
        }
        // A stretch per reach and reference feed: a switch between two modes that both fall short
        // is two findings.
        let short = stretches(states, endFrame: endFrame) { state -> Short? in
            let reach = EchoReach.milliseconds(for: EchoControlMode(backend: backend, intensity: state.echoCancellerMode),
                                               filterOverride: filterOverride)
            return reach.flatMap { delay > $0 ? Short(reach: $0, intensity: state.echoCancellerMode, remedy: DelayRemedy(state)) : nil }
        }
        return short.map { frames, short in
            LintFinding(rule: .echoDelayBeyondFilter, frames: frames,
                        message: "the echo arrives " + Self.delayText(delay, isLowerBound: delayIsLowerBound,
                                                                      customSpeakerBufferingMilliseconds: customSpeakerBufferingMilliseconds)
                            + ", beyond the \(RunEvaluator.format(short.reach)) ms \(backend.name) reaches: "
                            + short.remedy.text(further: furtherReaching(than: delay, intensity: short.intensity, except: backend), route: route))
        }.filter { $0.frames.count >= Int(minimumDurationSeconds * Double(sampleRate)) }
    }

    /// "41.0 ms after the reference" where measured; where not, "at least 800.0 ms after the
    /// reference (the scenario's echo path delay: none was measured)", or with a custom speaker's
    /// buffering in it, "about 940.0 ms after the reference (the scenario's echo path delay, 40.0
    /// ms, and the custom speaker's buffering, 900.0 ms on average: none was measured)".
    static func delayText(_ delay: Double, isLowerBound: Bool, customSpeakerBufferingMilliseconds buffering: Double?) -> String {
        let f = RunEvaluator.format
        guard isLowerBound else { return "\(f(delay)) ms after the reference" }
        guard let buffering else { return "at least \(f(delay)) ms after the reference (the scenario's echo path delay: none was measured)" }
        return "about \(f(delay)) ms after the reference (the scenario's echo path delay, \(f(delay - buffering)) ms, and the custom "
            + "speaker's buffering, \(f(buffering)) ms on average: none was measured)"
    }

    /// The built-in backends other than `backend` whose reach at `intensity` covers `delay`, as
    /// "name reaches N ms".
    static func furtherReaching(than delay: Double, intensity: EchoCancellerMode, except backend: EchoCancellerBackend) -> [String] {
        EchoCancellerBackend.builtIns.compactMap { other in
            guard other != backend, let reach = EchoReach.milliseconds(for: EchoControlMode(backend: other, intensity: intensity)),
                  reach >= delay else { return nil }
            return "\(other.name) reaches \(RunEvaluator.format(reach)) ms"
        }
    }

    static func allFindings(states: [DeviceState], endFrame: Int) -> [LintFinding] {
        let afterReset = referenceOutlivesSpeaker(states)
        let findings = LintRule.allCases.flatMap { rule in
            // A stretch per device for the rules that judge each by its own counters.
            stretches(states, endFrame: endFrame) { index, state -> DeviceKey? in
                guard rule.isBroken(by: state, afterSpeakerReset: afterReset[index]) else { return nil }
                return DeviceKey(state, for: rule)
            }
                .map { LintFinding(rule: rule, frames: $0.frames, message: rule.advice) }
        }
        return findings.sorted { ($0.frames.lowerBound, LintRule.allCases.firstIndex(of: $0.rule)!) < ($1.frames.lowerBound, LintRule.allCases.firstIndex(of: $1.rule)!) }
    }

    /// Per state: whether the user reference has stayed started, on the default speaker, since a
    /// custom speaker was reset while it was started (the app never stopped it after the reset).
    static func referenceOutlivesSpeaker(_ states: [DeviceState]) -> [Bool] {
        var outlives = false
        return states.indices.map { index in
            let state = states[index]
            if !state.isUserReferenceStarted || state.customSpeaker != nil {
                outlives = false
            } else if index > 0, states[index - 1].isUserReferenceStarted, states[index - 1].customSpeaker != nil {
                outlives = true
            }
            return outlives
        }
    }

    /// The device timeline's stretches (non-empty) over which `key` stays the same non-nil value,
    /// each state lasting until the next one (the last until `endFrame`).
    static func stretches<Key: Equatable>(_ states: [DeviceState], endFrame: Int,
                                          key: (DeviceState) -> Key?) -> [(frames: Range<Int>, key: Key)] {
        stretches(states, endFrame: endFrame) { _, state in key(state) }
    }

    /// `stretches(_:endFrame:key:)` with the state's index in `states` given to `key`.
    static func stretches<Key: Equatable>(_ states: [DeviceState], endFrame: Int,
                                          key: (Int, DeviceState) -> Key?) -> [(frames: Range<Int>, key: Key)] {
        var out: [(frames: Range<Int>, key: Key)] = []
        var open: (start: Int, key: Key)?
        for (index, state) in states.enumerated() {
            let from = Int(state.frame)
            let current = key(index, state)
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
