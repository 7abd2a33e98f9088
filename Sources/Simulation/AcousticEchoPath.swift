import AudioCore
import AudioInterop

/// The loudspeaker → microphone path, block by block: the drive is clipped (an overdriven
/// loudspeaker, which no linear canceller can model), convolved with the room response,
/// delayed by the bulk delay and scaled by the gain.
///
/// The room response is applied by `PartitionedConvolver` (blocks of one engine tick), so a
/// one-second response costs a few FFTs per tick. Everything is preallocated; `process`
/// allocates nothing.
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
        let n = blockSize
        if let clipLevel {
            VectorMath.clip(drive, limit: clipLevel, into: &clipped, count: n)
        } else {
            VectorMath.copy(drive, into: &clipped, count: n)
        }
        if let convolver {
            convolver.process(clipped, into: &roomOutput)
        } else {
            VectorMath.copy(clipped, into: &roomOutput, count: n)
        }
        Self.delay(roomOutput, ring: &delayRing, writeIndex: &delayWrite, delay: delayFrames, gain: gain, into: &echo, count: n)
    }

    /// Writes the block into the ring, then reads the block written `delay` samples earlier, scaled.
    private static func delay(_ input: [Float], ring: inout [Float], writeIndex: inout Int, delay: Int, gain: Float,
                              into output: inout [Float], count: Int) {
        let ringCount = ring.count
        var write = writeIndex
        for i in 0..<count {
            ring[write] = input[i]
            write += 1
            if write == ringCount { write = 0 }
        }
        var read = (writeIndex + ringCount - delay) % ringCount
        for i in 0..<count {
            output[i] = ring[read] * gain
            read += 1
            if read == ringCount { read = 0 }
        }
        writeIndex = write
    }
}
