import AudioCore

/// The call's own echo path, through an `EchoPathCache`: while the drive matches a record of the
/// same path, block for block, the echo is the record's; at the first block that differs the
/// path is brought to where it would be (the record's drive so far run through it) and computes
/// from there. A call that computes (it found no record, or its drive left the record's) records
/// its drive and echo from its first block, and hands the record to the cache when it ends. Both
/// buffers are reserved once, for the call's length: nothing is allocated per block, and a call
/// longer than its reservation stops recording.
final class RecordedEchoPath {
    let path: AcousticEchoPath
    private let cache: EchoPathCache
    /// The record being followed, and how many of its blocks were taken (nil: computing).
    private var followed: EchoPathCache.Record?
    private var followedBlocks = 0
    private var drive: [Float] = [], echo: [Float] = []
    private var isRecording: Bool
    private let capacity: Int
    private var scratch: [Float]

    /// `expectedSamples`: the call's length, to reserve the record (nil or over the cache's
    /// budget: nothing is recorded).
    init(path: AcousticEchoPath, cache: EchoPathCache, expectedSamples: Int?) {
        self.path = path
        self.cache = cache
        followed = cache.record(for: path.identity)
        capacity = expectedSamples.flatMap { cache.accepts(samples: $0) ? $0 : nil } ?? 0
        scratch = [Float](repeating: 0, count: path.blockSize)
        // Reserved even to follow a record: a drive that leaves it starts recording in a tick,
        // which must not allocate.
        drive.reserveCapacity(capacity)
        echo.reserveCapacity(capacity)
        isRecording = followed == nil && capacity > 0
    }

    /// `AcousticEchoPath.process`, taken from the record while the drive is the record's.
    func process(_ block: [Float], into output: inout [Float]) {
        let n = path.blockSize
        if let record = followed {
            let start = followedBlocks * n
            if start + n <= record.drive.count, VectorMath.bitwiseEqual(block, from: 0, record.drive, from: start, count: n) {
                VectorMath.copy(record.echo, from: start, into: &output, at: 0, count: n)
                followedBlocks += 1
                return
            }
            // The drive differs from here: the path takes in the drive it skipped, as if it had
            // run all along.
            for b in 0..<followedBlocks {
                VectorMath.copy(record.drive, from: b * n, into: &scratch, at: 0, count: n)
                path.process(scratch, into: &output)
            }
            followed = nil
            // Another drive through this path (another item's far end, after the same leading
            // silence): worth a record of its own, which starts with the blocks it shared.
            if followedBlocks * n < capacity {
                isRecording = true
                drive.append(contentsOf: record.drive[0..<(followedBlocks * n)])
                echo.append(contentsOf: record.echo[0..<(followedBlocks * n)])
            }
        }
        path.process(block, into: &output)
        guard isRecording else { return }
        if drive.count + n > capacity {
            isRecording = false   // longer than reserved: no record (the buffers go with the call)
            return
        }
        drive.append(contentsOf: block[0..<n])
        echo.append(contentsOf: output[0..<n])
    }

    /// Hands what this call computed to the cache (at the call's end), copied to its length: the
    /// buffers were reserved for the whole call, which a call that ran its own path only until a
    /// route change did not fill.
    func finish() {
        guard isRecording, !drive.isEmpty else { return }
        cache.keep(EchoPathCache.Record(drive: Array(drive[...]), echo: Array(echo[...])), for: path.identity)
        isRecording = false
    }
}
