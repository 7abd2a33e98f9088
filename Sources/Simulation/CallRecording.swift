/// The signals of one call, tick by tick, as the taps write them:
/// - `mic`: what entered the send voice processor (the physical mic or the custom mic's audio);
/// - `reference`: what the echo canceller was given as reference;
/// - `echo`: echo alone at the physical microphone; `nearEnd`: near-end talker + noise there;
/// - `played`: what the loudspeaker emitted; `sent`: what was sent to the peer.
/// Preallocated for the expected length, so recording does not reallocate per tick.
public struct CallRecording: Sendable {
    public var mic: [Float] = []
    public var reference: [Float] = []
    public var echo: [Float] = []
    public var nearEnd: [Float] = []
    public var played: [Float] = []
    public var sent: [Float] = []

    public static let tapNames = ["mic", "reference", "echo", "near", "played", "sent"]

    init(reserving capacity: Int) {
        for keyPath in Self.keyPaths { self[keyPath: keyPath].reserveCapacity(capacity) }
    }

    static var keyPaths: [WritableKeyPath<CallRecording, [Float]>] { [\.mic, \.reference, \.echo, \.nearEnd, \.played, \.sent] }

    /// (tap name, samples) in the order of `tapNames`.
    public var taps: [(name: String, samples: [Float])] {
        zip(Self.tapNames, Self.keyPaths).map { ($0, self[keyPath: $1]) }
    }
}

/// One line of the call's event log.
public struct CallEvent: Hashable, Sendable {
    public var frame: Int64          // sample index at the engine rate
    public var kind: String
    public var detail: String
    public init(frame: Int64, kind: String, detail: String) {
        self.frame = frame
        self.kind = kind
        self.detail = detail
    }
}

/// Which devices and modes were in use from `frame` on; the lint reads this timeline.
public struct DeviceState: Hashable, Sendable {
    public var frame: Int64
    /// nil: the default (physical) microphone.
    public var customMic: String?
    public var customMicIsRealMicrophone: Bool
    /// nil: the default speaker.
    public var customSpeaker: String?
    public var customSpeakerAltersPlayout: Bool
    public var customSpeakerDrivesLoudspeaker: Bool
    public var echoCancellerMode: EchoCancellerMode
    public var userReferenceStarted: Bool
    public var muted: Bool

    /// A real microphone feeds the call (default mic, or a pass-through custom mic).
    public var realMicrophoneInUse: Bool { customMic == nil || customMicIsRealMicrophone }
    /// Something plays into the room (default speaker, or a custom speaker that drives it).
    public var loudspeakerInUse: Bool { customSpeaker == nil || customSpeakerDrivesLoudspeaker }
}
