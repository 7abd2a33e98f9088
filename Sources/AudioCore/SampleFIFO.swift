/// A fixed-capacity ring of mono Float32 samples between two cadences (the app's 20 ms pushes
/// and the engine's 10 ms ticks, say), with explicit policies and counters:
/// - reading more than is buffered fills the rest with silence and counts an underrun;
/// - writing past capacity drops the oldest samples and counts an overrun.
/// Every sample written is therefore either read or counted in `droppedSamples` (or still held),
/// which is the conservation law the tests check: `written == read + dropped + count`.
/// Storage is allocated once, in `init`; reads and writes copy and never allocate.
public struct SampleFIFO: Sendable {
    public private(set) var capacity: Int
    private var storage: [Float]
    private var head = 0            // index of the oldest sample
    public private(set) var count = 0

    /// Samples accepted by `write`, in total.
    public private(set) var writtenSamples: Int64 = 0
    /// Real samples handed out by `read` (silence filled on underrun not included).
    public private(set) var readSamples: Int64 = 0
    /// Samples thrown away by overruns (oldest first) or by `clear()`.
    public private(set) var droppedSamples: Int64 = 0
    /// Silent samples `read` had to make up.
    public private(set) var missingSamples: Int64 = 0
    /// Reads that found fewer samples than asked for.
    public private(set) var underruns = 0
    /// Writes that did not fit and dropped the oldest samples.
    public private(set) var overruns = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "FIFO capacity must be positive")
        self.capacity = capacity
        storage = [Float](repeating: 0, count: capacity)
    }

    public var isEmpty: Bool { count == 0 }
    public var freeSpace: Int { capacity - count }

    /// Gives the storage back, keeping the count and the counters, while nothing reads or writes
    /// the FIFO (a mic the call let go of but keeps for its counters: 192 KB each, and a timeline
    /// can switch thousands of times). The next write or read allocates it again; what was held
    /// then reads as silence, so `clear()` such a FIFO before it is used again.
    public mutating func releaseStorage() {
        storage = []
    }

    /// The storage back after `releaseStorage()` (a comparison otherwise).
    @inline(__always)
    private mutating func ensureStorage() {
        if storage.isEmpty { storage = [Float](repeating: 0, count: capacity) }
    }

    /// Appends `frameCount` samples of `source` starting at `offset`; drops the oldest on overflow.
    public mutating func write(_ source: [Float], from offset: Int = 0, count frameCount: Int) {
        precondition(offset >= 0 && frameCount >= 0 && offset + frameCount <= source.count)
        ensureStorage()
        writtenSamples += Int64(frameCount)
        let (skip, n) = makeRoom(for: frameCount)
        var tail = (head + count) % capacity
        for i in 0..<n {
            storage[tail] = source[offset + skip + i]
            tail += 1
            if tail == capacity { tail = 0 }
        }
        count += n
    }

    /// Appends silence (used when a device must keep its cadence with nothing to say).
    public mutating func writeSilence(count frameCount: Int) {
        precondition(frameCount >= 0)
        ensureStorage()
        writtenSamples += Int64(frameCount)
        let (_, n) = makeRoom(for: frameCount)
        var tail = (head + count) % capacity
        for _ in 0..<n {
            storage[tail] = 0
            tail += 1
            if tail == capacity { tail = 0 }
        }
        count += n
    }

    /// Applies the overrun policy before writing `frameCount` samples: drops the oldest buffered
    /// samples that will not fit and, for a write longer than the whole FIFO, its own oldest part.
    /// Returns how many of the new samples to skip and how many to store.
    private mutating func makeRoom(for frameCount: Int) -> (skip: Int, store: Int) {
        if frameCount > capacity {            // only the newest `capacity` samples can survive
            droppedSamples += Int64(frameCount - capacity)
            if count > 0 { dropOldest(count) }
            overruns += 1
            return (frameCount - capacity, capacity)
        }
        if frameCount > freeSpace {
            dropOldest(frameCount - freeSpace)
            overruns += 1
        }
        return (0, frameCount)
    }

    /// Fills `destination[offset..<offset+frameCount]`; missing samples become silence (an underrun).
    /// Returns how many real samples were read.
    @discardableResult
    public mutating func read(into destination: inout [Float], at offset: Int = 0, count frameCount: Int) -> Int {
        let available = readAvailable(into: &destination, at: offset, count: frameCount)
        if available < frameCount {
            for i in available..<frameCount { destination[offset + i] = 0 }
            missingSamples += Int64(frameCount - available)
            underruns += 1
        }
        return available
    }

    /// Reads up to `frameCount` samples without making up silence or counting an underrun.
    @discardableResult
    public mutating func readAvailable(into destination: inout [Float], at offset: Int = 0, count frameCount: Int) -> Int {
        precondition(offset >= 0 && frameCount >= 0 && offset + frameCount <= destination.count)
        ensureStorage()
        let available = Swift.min(frameCount, count)
        for i in 0..<available {
            destination[offset + i] = storage[head]
            head += 1
            if head == capacity { head = 0 }
        }
        count -= available
        readSamples += Int64(available)
        return available
    }

    /// Drops everything buffered (a device reset); the samples are counted as dropped.
    public mutating func clear() {
        dropOldest(count)
    }

    /// Drops the oldest `n` samples buffered (at most all of them), counted as dropped.
    public mutating func discardOldest(_ n: Int) {
        dropOldest(max(0, min(n, count)))
    }

    private mutating func dropOldest(_ n: Int) {
        head = (head + n) % capacity
        count -= n
        droppedSamples += Int64(n)
    }
}
