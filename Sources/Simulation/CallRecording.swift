import AudioCore

/// The signals of one call, tick by tick, as the taps write them:
/// - `mic`: what entered the send voice processor (the physical mic or the custom mic's audio);
/// - `reference`: what the echo canceller was given as reference;
/// - `echo`: echo alone at the physical microphone; `nearEnd`: near-end talker + noise there;
/// - `played`: what the loudspeaker emitted; `sent`: what was sent to the peer.
/// Allocated once for the expected length; ticks are copied in at a cursor, so recording never
/// reallocates. (Memory is the cost here: first-touching a 60 s call's six signals is ~70 MB of
/// page faults, a large part of a fast run. Streaming taps and metrics are the way past it.)
public struct CallRecording: Sendable {
    public private(set) var mic: [Float] = []
    public private(set) var reference: [Float] = []
    public private(set) var echo: [Float] = []
    public private(set) var nearEnd: [Float] = []
    public private(set) var played: [Float] = []
    public private(set) var sent: [Float] = []
    /// Samples recorded so far.
    public private(set) var count = 0

    public static let tapNames = ["mic", "reference", "echo", "near", "played", "sent"]
    /// The taps written by default: what a canceller's evaluation needs.
    public static let standardTapNames: Set<String> = ["mic", "reference", "echo", "sent"]

    init(capacity: Int) {
        guard capacity > 0 else { return }
        for keyPath in Self.keyPaths {
            self[keyPath: keyPath] = [Float](repeating: 0, count: capacity)
        }
    }

    static var keyPaths: [WritableKeyPath<CallRecording, [Float]>] { [\.mic, \.reference, \.echo, \.nearEnd, \.played, \.sent] }

    /// Appends one tick of every signal (all `frames` long); grows only if the call runs longer
    /// than it was sized for.
    mutating func record(mic: [Float], reference: [Float], echo: [Float], nearEnd: [Float], played: [Float], sent: [Float], frames: Int) {
        if count + frames > self.mic.count {
            let grown = max(count + frames, self.mic.count * 2)
            for keyPath in Self.keyPaths { self[keyPath: keyPath] += [Float](repeating: 0, count: grown - self[keyPath: keyPath].count) }
        }
        VectorMath.copy(mic, into: &self.mic, at: count, count: frames)
        VectorMath.copy(reference, into: &self.reference, at: count, count: frames)
        VectorMath.copy(echo, into: &self.echo, at: count, count: frames)
        VectorMath.copy(nearEnd, into: &self.nearEnd, at: count, count: frames)
        VectorMath.copy(played, into: &self.played, at: count, count: frames)
        VectorMath.copy(sent, into: &self.sent, at: count, count: frames)
        count += frames
    }

    /// Drops the unused tail of the buffers.
    mutating func trim() {
        for keyPath in Self.keyPaths where self[keyPath: keyPath].count > count {
            self[keyPath: keyPath].removeLast(self[keyPath: keyPath].count - count)
        }
    }

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
    public var isUserReferenceStarted: Bool
    public var isMuted: Bool
    /// The custom speaker's place among the speakers the call attached, in order
    /// (`PipelineCounters.speakerPlayouts`); nil on the default speaker.
    public var customSpeakerIndex: Int? = nil
    /// The custom mic's place among the mics the call attached, in order
    /// (`PipelineCounters.micUplinks`); nil on the default mic.
    public var customMicIndex: Int? = nil

    /// A real microphone feeds the call (default mic, or a pass-through custom mic).
    public var realMicrophoneInUse: Bool { customMic == nil || customMicIsRealMicrophone }
    /// The peer hears the room: a real microphone feeds the call, unmuted.
    public var sendsTheRoom: Bool { realMicrophoneInUse && !isMuted }
    /// Something plays into the room (default speaker, or a custom speaker that drives it).
    public var loudspeakerInUse: Bool { customSpeaker == nil || customSpeakerDrivesLoudspeaker }
}
