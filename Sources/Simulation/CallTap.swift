/// One engine tick's signals, handed to every `CallTap` as the call runs (see `CallRecording`
/// for what each signal is). The arrays are the engine's own blocks: read them during `record`,
/// do not keep them.
public struct TickSignals {
    /// Index of the tick's first sample at the engine rate.
    public let frame: Int64
    public let count: Int
    public let mic: [Float]
    public let reference: [Float]
    public let echo: [Float]
    public let nearEnd: [Float]
    public let played: [Float]
    public let sent: [Float]
    /// Samples by which `sent` lags `mic` in this tick: the send path's processing latency
    /// (the canceller's and the noise suppressor's), so a measurement can line the two up.
    public let sendLatency: Int
    /// Whether `mic` holds `nearEnd` sample for sample: the device mic fed the send path directly
    /// for the whole tick. False while a custom mic is the source (a file or generator sends its
    /// own audio; a passthrough device sends the device mic after its own buffering and rate
    /// conversion, so the acoustic near end no longer lines up with what is sent).
    public let nearEndInMic: Bool
    /// Whether the echo at the device mic reaches the send path in this whole tick: the device
    /// mic feeds it, directly or through a custom mic that is a real microphone (a passthrough).
    /// False while a file or generator is the source: nothing of the room is sent, so there is
    /// no echo to cancel or to measure.
    public let echoReachesSent: Bool
    /// Whether the call sends silence in this tick (muted, or the audio unit stopped): nothing
    /// reaches the peer, so there is neither echo nor near end to measure in `sent` here — a
    /// muted stretch's "ERLE" measured the mute, not the canceller.
    public let sentIsSilenced: Bool
    /// Whether `mic` is, sample for sample, what the custom mic feeding it delivered: a custom
    /// mic is the source for the whole tick and the engine filled none of it in (priming, an
    /// underrun) or cross-faded it at a switch. Where a file or generator is that mic, its own
    /// pauses are in `mic` as they are in the file, and a measurement tells them from a dropout.
    public let micIsCustomMicAudio: Bool
    /// Whether the echo's path changed at this tick (a route change, another input data source, or
    /// the hardware's formats granted anew, which move its latency): what reaches the mic from it on
    /// has a delay of its own.
    public let echoPathChanged: Bool
    /// Whether the room's sound came through to `mic` unbroken: true without the hardware modelled;
    /// with it, where the input device filled nothing in, dropped nothing and was not made anew
    /// about this tick (`CallHardware.captureIsContinuous`). There `echo` and `nearEnd`, which pass
    /// through the same device, hold the room's sound as captured.
    public let captureIsContinuous: Bool

    public init(frame: Int64, count: Int, mic: [Float], reference: [Float], echo: [Float], nearEnd: [Float],
                played: [Float], sent: [Float], sendLatency: Int = 0, nearEndInMic: Bool = true, echoReachesSent: Bool = true,
                sentIsSilenced: Bool = false, micIsCustomMicAudio: Bool = false, echoPathChanged: Bool = false,
                captureIsContinuous: Bool = true) {
        self.echoPathChanged = echoPathChanged
        self.captureIsContinuous = captureIsContinuous
        self.sentIsSilenced = sentIsSilenced
        self.micIsCustomMicAudio = micIsCustomMicAudio
        self.frame = frame
        self.count = count
        self.mic = mic
        self.reference = reference
        self.echo = echo
        self.nearEnd = nearEnd
        self.played = played
        self.sent = sent
        self.sendLatency = sendLatency
        self.nearEndInMic = nearEndInMic
        self.echoReachesSent = echoReachesSent
    }

    /// The signal a tap name refers to (`CallRecording.tapNames`).
    public func signal(named name: String) -> [Float] { self[Signal(tapName: name)] }

    /// One of a tick's signals, for consumers that resolve their tap names once. A switch, not a
    /// key path: applying a `KeyPath` per tap per tick took generic-metadata lookups and
    /// retains that cost more than copying the samples.
    public enum Signal: Sendable {
        case mic, reference, echo, nearEnd, played, sent

        /// The signal of a tap name (`CallRecording.tapNames`; `sent` for any other).
        public init(tapName: String) {
            switch tapName {
            case "mic": self = .mic
            case "reference": self = .reference
            case "echo": self = .echo
            case "near": self = .nearEnd
            case "played": self = .played
            default: self = .sent
            }
        }
    }

    @inlinable
    public subscript(signal: Signal) -> [Float] {
        switch signal {
        case .mic: mic
        case .reference: reference
        case .echo: echo
        case .nearEnd: nearEnd
        case .played: played
        case .sent: sent
        }
    }
}

/// Something that consumes a call tick by tick: WAV writers, streaming metrics, an in-memory
/// recording. Streaming keeps a call's memory independent of its length. An error stops the call.
public protocol CallTap: AnyObject {
    func record(_ tick: TickSignals) throws
}
