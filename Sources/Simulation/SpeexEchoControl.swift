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
        let n = frameSize
        VectorMath.convert(capture, into: &captureInt, count: n)
        VectorMath.convert(reference, into: &referenceInt, count: n)
        canceller.cancel(capture: captureInt, reference: referenceInt, output: &outputInt)
        if let observer {
            VectorMath.convert(outputInt, into: &output, count: n)   // the linear stage's output
            observer(VectorMath.meanSquare(reference, count: n), VectorMath.meanSquare(capture, count: n),
                     VectorMath.meanSquare(output, count: n))
        }
        suppressor.process(&outputInt)
        VectorMath.convert(outputInt, into: &output, count: n)
    }

    public var divergenceResets: Int { canceller.divergenceResets }

    /// Changes residual suppression in place (the filter keeps what it learned).
    func updateSuppression(_ suppressionDB: Int, doubleTalk: Int) {
        guard suppressionDB != settings.suppressionDB || doubleTalk != settings.doubleTalkSuppressionDB else { return }
        settings.suppressionDB = suppressionDB
        settings.doubleTalkSuppressionDB = doubleTalk
        suppressor.linkEchoSuppression(to: canceller, suppressDB: suppressionDB, suppressActiveDB: doubleTalk)
    }

}
