import AudioCore

/// The one buffer a shipped device exchanges with the engine, in the format its options ask for
/// (Float32 or Int16, mono or duplicated to N channels, at the app's rate). Allocated once.
struct AppFrameBuffer {
    let options: AppDeviceOptions
    var mono: [Float]
    var float: PCMBuffer<Float>
    var int16: PCMBuffer<Int16>

    init(options: AppDeviceOptions) {
        self.options = options
        let frames = options.framesPerPeriod
        mono = [Float](repeating: 0, count: frames)
        float = PCMBuffer(frameCount: options.sampleType == .float32 ? frames : 0, sampleRate: options.sampleRate, channelCount: options.channelCount)
        int16 = PCMBuffer(frameCount: options.sampleType == .int16 ? frames : 0, sampleRate: options.sampleRate, channelCount: options.channelCount)
    }

    var frameCount: Int { mono.count }

    /// Copies `mono` into the typed buffer, every channel the same.
    mutating func packMono() {
        let channels = options.channelCount
        switch options.sampleType {
        case .float32:
            for i in 0..<mono.count { for c in 0..<channels { float.samples[i * channels + c] = mono[i] } }
        case .int16:
            for i in 0..<mono.count { for c in 0..<channels { int16.samples[i * channels + c] = Int16(engineValue: mono[i]) } }
        }
    }

    /// Averages the typed buffer's channels back into `mono`.
    mutating func unpackMono() {
        let channels = options.channelCount
        let gain = 1 / Float(channels)
        for i in 0..<mono.count {
            var sum: Float = 0
            switch options.sampleType {
            case .float32: for c in 0..<channels { sum += float.samples[i * channels + c] }
            case .int16: for c in 0..<channels { sum += int16.samples[i * channels + c].engineValue }
            }
            mono[i] = sum * gain
        }
    }

    func send(to mic: CustomMic) {
        switch options.sampleType {
        case .float32: mic.sendAudio(float)
        case .int16: mic.sendAudio(int16)
        }
    }

    /// Pulls one period from the speaker into `mono`; returns the bytes of real call audio.
    @discardableResult
    mutating func pull(from speaker: CustomSpeaker) -> Int {
        let bytes: Int
        switch options.sampleType {
        case .float32: bytes = speaker.playAudio(into: &float)
        case .int16: bytes = speaker.playAudio(into: &int16)
        }
        unpackMono()
        return bytes
    }

    /// Captures one period from the microphone; false while it delivers nothing yet (nothing to push).
    mutating func capture(from microphone: Microphone) -> Bool {
        switch options.sampleType {
        case .float32: microphone.capture(into: &float)
        case .int16: microphone.capture(into: &int16)
        }
        return microphone.isDelivering
    }

    func play(on loudspeaker: Loudspeaker) {
        switch options.sampleType {
        case .float32: loudspeaker.play(float)
        case .int16: loudspeaker.play(int16)
        }
    }

    func putReference(to call: SimulatedCall) {
        switch options.sampleType {
        case .float32: call.putUserAcousticEchoCancellerReference(float)
        case .int16: call.putUserAcousticEchoCancellerReference(int16)
        }
    }
}
