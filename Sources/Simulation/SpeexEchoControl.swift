import AudioCore
import AudioInterop

/// The speex backend: speexdsp's MDF adaptive filter followed by the preprocessor's residual echo
/// suppression (noise suppression and AGC off here: they are separate stages of the send voice
/// processor). Converts Float32 ⇄ Int16 in preallocated buffers, since speex takes Int16 only.
public final class SpeexEchoControl: EchoCanceller {
    public let frameSize: Int
    public private(set) var settings: EchoCancellerSettings
    private let canceller: SpeexEchoCanceller
    private let suppressor: SpeexPreprocessor
    private var captureInt: [Int16]
    private var referenceInt: [Int16]
    private var outputInt: [Int16]
    /// Called once per frame with (reference, capture, linear output) mean squares, for the
    /// adaptive intensity's measurements.
    var observer: ((Float, Float, Float) -> Void)?

    public init(frameSize: Int, sampleRate: Int, settings: EchoCancellerSettings) throws {
        self.frameSize = frameSize
        self.settings = settings
        canceller = try SpeexEchoCanceller(frameSize: frameSize,
                                           filterLength: max(frameSize, settings.filterMilliseconds * sampleRate / 1000),
                                           sampleRate: sampleRate)
        suppressor = try SpeexPreprocessor(frameSize: frameSize, sampleRate: sampleRate)
        suppressor.linkEchoSuppression(to: canceller, suppressDB: settings.suppressionDB,
                                       suppressActiveDB: settings.doubleTalkSuppressionDB)
        captureInt = [Int16](repeating: 0, count: frameSize)
        referenceInt = captureInt
        outputInt = captureInt
    }

    public func process(capture: [Float], reference: [Float], output: inout [Float]) {
        for i in 0..<frameSize {
            captureInt[i] = SampleConversion.int16(fromFloat: capture[i])
            referenceInt[i] = SampleConversion.int16(fromFloat: reference[i])
        }
        canceller.cancel(capture: captureInt, reference: referenceInt, output: &outputInt)
        if let observer {
            var r: Float = 0, c: Float = 0, o: Float = 0
            for i in 0..<frameSize {
                r += reference[i] * reference[i]
                c += capture[i] * capture[i]
                let y = SampleConversion.float(fromInt16: outputInt[i])
                o += y * y
            }
            let n = Float(frameSize)
            observer(r / n, c / n, o / n)
        }
        suppressor.process(&outputInt)
        for i in 0..<frameSize { output[i] = SampleConversion.float(fromInt16: outputInt[i]) }
    }

    /// Changes residual suppression in place (the filter keeps what it learned).
    func updateSuppression(_ suppressionDB: Int, doubleTalk: Int) {
        guard suppressionDB != settings.suppressionDB || doubleTalk != settings.doubleTalkSuppressionDB else { return }
        settings.suppressionDB = suppressionDB
        settings.doubleTalkSuppressionDB = doubleTalk
        suppressor.linkEchoSuppression(to: canceller, suppressDB: suppressionDB, suppressActiveDB: doubleTalk)
    }

    public func reset() { canceller.reset() }
}
