/// The call's own echo path, through an `EchoPathCache`: while the drive matches a record of the
/// same path, block for block, the echo is the record's; at the first block that differs the
/// path is brought to where it would be (the record's drive so far run through it) and computes
/// from there (`BlockReplay`). A call that computes records its drive and echo, and hands the
/// record to the cache when it ends.
final class RecordedEchoPath {
    let path: AcousticEchoPath
    private let replay: BlockReplay<Void>

    /// `expectedSamples`: the call's length, to reserve the record (nil or over the cache's
    /// budget: nothing is recorded).
    init(path: AcousticEchoPath, cache: EchoPathCache, expectedSamples: Int?) {
        self.path = path
        let capacity = expectedSamples.flatMap { cache.accepts(samples: $0) ? $0 : nil } ?? 0
        let identity = path.identity
        replay = BlockReplay(following: cache.record(for: identity), blockSize: path.blockSize,
                             capacityBlocks: capacity / path.blockSize) { cache.keep($0, for: identity) }
    }

    /// `AcousticEchoPath.process`, taken from the record while the drive is the record's.
    func process(_ block: [Float], into output: inout [Float]) {
        let n = path.blockSize
        var none: Void = ()
        if replay.follow(block, into: &output, count: n, state: &none) { return }
        if replay.hasLeftRecord {
            // The drive differs from here: the path takes in the drive it skipped, as if it had
            // run all along.
            replay.catchUp { drive, echo in path.process(drive, into: &echo) }
        }
        path.process(block, into: &output)
        replay.note(block, output: output, count: n, state: ())
    }

    /// Hands what this call computed to the cache (at the call's end).
    func finish() { replay.finish() }
}
