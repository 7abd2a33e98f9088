import AudioCore

/// A physical audio device the default mic or speaker can be switched to.
public struct AudioDevice: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public init(name: String) { self.name = name }
    public static let builtInMicrophone = AudioDevice(name: "built-in microphone")
    public static let builtInSpeaker = AudioDevice(name: "built-in speaker")
    public var description: String { name }
}

/// Errors of device selection, with PlanetKit's codes.
public enum AudioManagerError: DescribedError, Equatable {
    /// 5004: a mic device cannot be selected while a custom mic is in use.
    case customMicInUse
    /// 5005: a speaker device cannot be selected while a custom speaker is in use.
    case customSpeakerInUse

    public var code: Int { self == .customMicInUse ? 5004 : 5005 }

    public var description: String {
        switch self {
        case .customMicInUse: "error 5004: a custom mic is in use; reset it to the default mic before selecting a mic device"
        case .customSpeakerInUse: "error 5005: a custom speaker is in use; reset it to the default speaker before selecting a speaker device"
        }
    }
}

/// PlanetKit's `PlanetKitAudioManager`: which mic and speaker the call uses. Changes apply at the
/// next engine tick; the engine makes the switch without a gap (see `SimulatedCall`).
public final class AudioManager {
    public private(set) var customMic: CustomMic?
    public private(set) var customSpeaker: CustomSpeaker?
    public private(set) var selectedMic: AudioDevice = .builtInMicrophone
    public private(set) var selectedSpeaker: AudioDevice = .builtInSpeaker
    /// Every custom mic ever set, so the call's counters include mics reset before the engine
    /// switched to them (their pushes would otherwise vanish from the uplink counters).
    private(set) var attachedMics: [CustomMic] = []
    /// Every custom speaker ever set, so the playout counters survive a reset to the default speaker.
    private(set) var attachedSpeakers: [CustomSpeaker] = []
    /// Called with a line for the call's event log.
    var onChange: ((String) -> Void)?

    init() {}

    public func setCustomMic(_ mic: CustomMic) {
        // A device belongs to one call: another call's engine reads this one's pushes.
        if mic.isInUse, let other = mic.manager, other !== self {
            onChange?("refused custom mic \(mic.deviceName): another call uses it (a device belongs to one call)")
            return
        }
        mic.manager = self
        if let customMic, customMic !== mic { retire(customMic) }
        retiringMics.removeAll { $0 === mic }     // chosen again before the engine let go: stays in use
        customMic = mic
        if !attachedMics.contains(where: { $0 === mic }) { attachedMics.append(mic) }
        if !mic.isInUse {
            mic.isInUse = true
            mic.buffer.reset()
            mic.splicedTicksLeft = 0   // what was lost was buffered, and is gone with it
            mic.didStartCapturing()
        }
        onChange?("set custom mic \(mic.deviceName)")
    }

    public func resetCustomMicToDefaultMic() {
        guard let customMic else { return }
        retire(customMic)
        self.customMic = nil
        onChange?("reset custom mic to default mic")
    }

    public func setCustomSpeaker(_ speaker: CustomSpeaker) {
        if speaker.isInUse, let other = speaker.manager, other !== self {
            onChange?("refused custom speaker \(speaker.deviceName): another call uses it (a device belongs to one call)")
            return
        }
        speaker.manager = self
        if let customSpeaker, customSpeaker !== speaker { detach(customSpeaker) }
        customSpeaker = speaker
        if !attachedSpeakers.contains(where: { $0 === speaker }) { attachedSpeakers.append(speaker) }
        if !speaker.isInUse {
            speaker.isInUse = true
            speaker.playout.clear()
            speaker.conditioner.restart()
            speaker.didStartPlaying()
        }
        onChange?("set custom speaker \(speaker.deviceName)")
    }

    public func resetCustomSpeakerToDefaultSpeaker() {
        guard let customSpeaker else { return }
        detach(customSpeaker)
        self.customSpeaker = nil
        onChange?("reset custom speaker to default speaker")
    }

    /// Mics replaced or reset that the engine is still reading: the switch is make-before-break,
    /// so the old mic feeds the call until the new source has primed, and takes the app's pushes
    /// until then, or it would run dry under the switch.
    private(set) var retiringMics: [CustomMic] = []

    /// Whether the engine is reading `mic` now (set by the call): only that mic is retired
    /// rather than detached; one it never read, or a call not started, lets go at once.
    var engineReads: (CustomMic) -> Bool = { _ in false }

    private func retire(_ mic: CustomMic) {
        guard engineReads(mic) else { return detach(mic) }
        if !retiringMics.contains(where: { $0 === mic }) { retiringMics.append(mic) }
    }

    /// The engine reads `active` now: every other retiring mic stops (`didStopCapturing`).
    func releaseRetiredMics(except active: CustomMic?) {
        guard !retiringMics.isEmpty else { return }
        retiringMics.removeAll { mic in
            guard mic !== active else { return false }
            detach(mic)
            return true
        }
    }

    /// Forgets every device (at the end of the call): detaches the ones in use and drops the
    /// lists kept for the counters, which the call has read by then.
    func detachAll() {
        releaseRetiredMics(except: nil)
        if let customMic { detach(customMic) }
        if let customSpeaker { detach(customSpeaker) }
        customMic = nil
        customSpeaker = nil
        attachedMics.removeAll()
        attachedSpeakers.removeAll()
        onChange = nil
        engineReads = { _ in false }
    }

    /// Selects a physical mic; an error while a custom mic is in use.
    public func selectMic(_ device: AudioDevice) throws {
        guard customMic == nil else { throw AudioManagerError.customMicInUse }
        selectedMic = device
    }

    /// Selects a physical speaker; an error while a custom speaker is in use.
    public func selectSpeaker(_ device: AudioDevice) throws {
        guard customSpeaker == nil else { throw AudioManagerError.customSpeakerInUse }
        selectedSpeaker = device
    }

    private func detach(_ mic: CustomMic) {
        mic.isInUse = false
        if mic.manager === self { mic.manager = nil }
        mic.didStopCapturing()
        // Kept for its counters only: the engine reads it no more, and it takes no pushes until
        // it is set again, which resets its buffer.
        mic.buffer.releaseStorage()
    }

    private func detach(_ speaker: CustomSpeaker) {
        speaker.isInUse = false
        if speaker.manager === self { speaker.manager = nil }
        speaker.playout.clear()
        speaker.didStopPlaying()
    }
}
