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
    private var gain: Float
    private let clipLevel: Float?
    // Bulk delay: a ring of `delayFrames + blockSize` samples.
    let delayFrames: Int
    private var delayRing: [Float]
    private var delayWrite = 0
    // Partitioned convolution state (nil when the path has no room response).
    private let convolver: PartitionedConvolver?
    private var roomOutput: [Float]
    private var clipped: [Float]
    /// What makes this path's echo: another path with the same identity echoes a drive alike.
    private(set) var identity: EchoPathCache.Identity

    init(blockSize: Int, delayFrames: Int, gain: Float, impulseResponse: [Float]?, clipLevel: Float?) {
        precondition(delayFrames >= 0)
        self.blockSize = blockSize
        self.delayFrames = delayFrames
        self.gain = gain
        self.clipLevel = clipLevel
        delayRing = [Float](repeating: 0, count: delayFrames + blockSize)
        convolver = impulseResponse.map { PartitionedConvolver(impulseResponse: $0, blockSize: blockSize) }
        identity = EchoPathCache.Identity(blockSize: blockSize, delayFrames: delayFrames, gain: gain, clipLevel: clipLevel,
                                          impulseResponse: impulseResponse)
        roomOutput = [Float](repeating: 0, count: blockSize)
        clipped = [Float](repeating: 0, count: blockSize)
    }

    /// Another microphone of the same device hears the same room, louder or softer: the room's
    /// response and what it still rings with stay, only the coupling changes. (A path made anew
    /// started silent: its ringing dropped and its bulk delay went silent at the mic, a click in
    /// what was sent that no app makes.)
    func changeCoupling(to gain: Float) {
        self.gain = gain
        identity.gain = gain.bitPattern
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
    /// Each side is at most two contiguous runs (split at the ring's end), copied or scaled as
    /// whole runs instead of with a wrap test per sample.
    private static func delay(_ input: [Float], ring: inout [Float], writeIndex: inout Int, delay: Int, gain: Float,
                              into output: inout [Float], count: Int) {
        let ringCount = ring.count
        let start = writeIndex
        let head = min(count, ringCount - start)
        ring[start..<(start + head)] = input[0..<head]
        if head < count { ring[0..<(count - head)] = input[head..<count] }
        var read = (writeIndex + ringCount - delay) % ringCount
        var done = 0
        while done < count {
            let run = min(count - done, ringCount - read)
            scale(ring, from: read, by: gain, into: &output, at: done, count: run)
            done += run
            read = (read + run) % ringCount
        }
        writeIndex = (start + count) % ringCount
    }

    /// `output[at..<at+count] = source[from..<from+count] · gain`.
    private static func scale(_ source: [Float], from: Int, by gain: Float, into output: inout [Float], at: Int, count: Int) {
        let input = source.span.extracting(from..<(from + count))
        var values = output.mutableSpan
        precondition(at + count <= values.count)
        var i = 0
        while i < count { values[at &+ i] = input[i] * gain; i &+= 1 }
    }
}
