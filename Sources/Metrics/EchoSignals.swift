/// The buffers one echo measurement looks at: mono Float32 at one sample rate, time-aligned as
/// recorded (sample n of each is the same instant). Lengths may differ; the analysis uses the
/// shortest common length.
public struct EchoSignals: Sendable {
    public var sampleRate: Int
    /// Far end: what the loudspeaker played.
    public var reference: [Float]
    /// Capture entering the canceller (echo + near end + noise).
    public var mic: [Float]
    /// Canceller output.
    public var processed: [Float]
    /// Echo alone at the mic, when known (simulations). Used for ERL and the near-end gate.
    public var echo: [Float]?
    /// Near-end talker alone at the mic, when known. Gives the most exact double-talk gate.
    public var nearEnd: [Float]?

    public init(sampleRate: Int, reference: [Float], mic: [Float], processed: [Float],
                echo: [Float]? = nil, nearEnd: [Float]? = nil) {
        self.sampleRate = sampleRate
        self.reference = reference
        self.mic = mic
        self.processed = processed
        self.echo = echo
        self.nearEnd = nearEnd
    }

    /// Samples every given signal has; everything past it is ignored.
    public var commonLength: Int {
        var length = min(reference.count, mic.count, processed.count)
        if let echo { length = min(length, echo.count) }
        if let nearEnd { length = min(length, nearEnd.count) }
        return length
    }
}
