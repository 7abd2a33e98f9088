import AudioCore
import AudioInterop

/// The loudspeaker → microphone path, block by block: the drive is clipped (an overdriven
/// loudspeaker, which no linear canceller can model), convolved with the room response,
/// delayed by the bulk delay and scaled by the gain.
///
/// The room response is applied by uniformly partitioned overlap-save convolution (blocks of one
/// engine tick, FFTs of two), so a one-second response costs a few FFTs per tick rather than
/// 48 000 multiply-adds per sample. Everything is preallocated; `process` allocates nothing.
final class AcousticEchoPath {
    let blockSize: Int
    private let gain: Float
    private let clipLevel: Float?
    // Bulk delay: a ring of `delayFrames + blockSize` samples.
    private let delayFrames: Int
    private var delayRing: [Float]
    private var delayWrite = 0
    // Partitioned convolution state (nil when the path has no room response).
    private let convolver: PartitionedConvolver?
    private var roomOutput: [Float]
    private var clipped: [Float]

    init(blockSize: Int, delayFrames: Int, gain: Float, impulseResponse: [Float]?, clipLevel: Float?) {
        precondition(delayFrames >= 0)
        self.blockSize = blockSize
        self.delayFrames = delayFrames
        self.gain = gain
        self.clipLevel = clipLevel
        delayRing = [Float](repeating: 0, count: delayFrames + blockSize)
        convolver = impulseResponse.map { PartitionedConvolver(impulseResponse: $0, blockSize: blockSize) }
        roomOutput = [Float](repeating: 0, count: blockSize)
        clipped = [Float](repeating: 0, count: blockSize)
    }

    /// Echo at the microphone for one block of loudspeaker drive.
    func process(_ drive: [Float], into echo: inout [Float]) {
        if let clipLevel {
            for i in 0..<blockSize { clipped[i] = min(max(drive[i], -clipLevel), clipLevel) }
        } else {
            for i in 0..<blockSize { clipped[i] = drive[i] }
        }
        if let convolver {
            convolver.process(clipped, into: &roomOutput)
        } else {
            for i in 0..<blockSize { roomOutput[i] = clipped[i] }
        }
        // Write the block into the ring, then read the block that is `delayFrames` old.
        let ringCount = delayRing.count
        for i in 0..<blockSize {
            delayRing[(delayWrite + i) % ringCount] = roomOutput[i]
        }
        let readStart = (delayWrite + ringCount - delayFrames) % ringCount
        for i in 0..<blockSize {
            echo[i] = delayRing[(readStart + i) % ringCount] * gain
        }
        delayWrite = (delayWrite + blockSize) % ringCount
    }
}

/// Uniformly partitioned overlap-save convolution with a frequency-domain delay line.
final class PartitionedConvolver {
    private let blockSize: Int
    private let partitions: Int
    private let fft: RealFFT
    private let bins: Int
    private var filterReal: [Float]      // partitions × bins
    private var filterImaginary: [Float]
    private var historyReal: [Float]     // frequency-domain delay line, partitions × bins
    private var historyImaginary: [Float]
    private var newest = 0
    private var window: [Float]          // previous block + current block
    private var spectrumReal: [Float]
    private var spectrumImaginary: [Float]
    private var accumulatorReal: [Float]
    private var accumulatorImaginary: [Float]
    private var timeOutput: [Float]
    private let scale: Float

    init(impulseResponse: [Float], blockSize: Int) {
        self.blockSize = blockSize
        partitions = max(1, (impulseResponse.count + blockSize - 1) / blockSize)
        fft = RealFFT(size: 2 * blockSize)
        bins = fft.binCount
        filterReal = [Float](repeating: 0, count: partitions * bins)
        filterImaginary = filterReal
        historyReal = filterReal
        historyImaginary = filterReal
        window = [Float](repeating: 0, count: 2 * blockSize)
        spectrumReal = [Float](repeating: 0, count: bins)
        spectrumImaginary = spectrumReal
        accumulatorReal = spectrumReal
        accumulatorImaginary = spectrumReal
        timeOutput = [Float](repeating: 0, count: 2 * blockSize)
        scale = 1 / Float(2 * blockSize)
        var padded = [Float](repeating: 0, count: 2 * blockSize)
        for p in 0..<partitions {
            for i in 0..<(2 * blockSize) { padded[i] = 0 }
            for i in 0..<blockSize where p * blockSize + i < impulseResponse.count {
                padded[i] = impulseResponse[p * blockSize + i]
            }
            fft.forward(padded, real: &spectrumReal, imaginary: &spectrumImaginary)
            for k in 0..<bins {
                filterReal[p * bins + k] = spectrumReal[k]
                filterImaginary[p * bins + k] = spectrumImaginary[k]
            }
        }
    }

    func process(_ input: [Float], into output: inout [Float]) {
        for i in 0..<blockSize {
            window[i] = window[blockSize + i]
            window[blockSize + i] = input[i]
        }
        fft.forward(window, real: &spectrumReal, imaginary: &spectrumImaginary)
        newest = (newest + partitions - 1) % partitions
        let base = newest * bins
        for k in 0..<bins {
            historyReal[base + k] = spectrumReal[k]
            historyImaginary[base + k] = spectrumImaginary[k]
            accumulatorReal[k] = 0
            accumulatorImaginary[k] = 0
        }
        for p in 0..<partitions {
            let h = ((newest + p) % partitions) * bins     // input spectrum p blocks old
            let f = p * bins
            for k in 0..<bins {
                let xr = historyReal[h + k], xi = historyImaginary[h + k]
                let hr = filterReal[f + k], hi = filterImaginary[f + k]
                accumulatorReal[k] += xr * hr - xi * hi
                accumulatorImaginary[k] += xr * hi + xi * hr
            }
        }
        fft.inverse(real: accumulatorReal, imaginary: accumulatorImaginary, output: &timeOutput)
        for i in 0..<blockSize { output[i] = timeOutput[blockSize + i] * scale }
    }
}
