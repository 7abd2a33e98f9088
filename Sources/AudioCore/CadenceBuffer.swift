/// Bridges a producer that writes in bursts on its own timer (an app pushing 20 ms with jitter)
/// to a consumer that reads fixed blocks on another (the engine's 10 ms tick).
///
/// Policy, as a real-time engine's input buffer has it:
/// - **Priming.** Reading starts only once the buffer holds one producer burst plus one consumer
///   block (`largest write + block`), so a producer up to half a period late never starves the
///   reader. Until then reads return silence counted as `primingSamples` — latency, not loss.
/// - **Underrun.** A read that finds too little takes what is there, fills the rest with silence,
///   counts an underrun and goes back to priming (re-buffering).
/// - **Overrun.** A write that does not fit drops the oldest samples and counts an overrun.
/// Conservation: `written == read + dropped + buffered`, every sample accounted for.
public struct CadenceBuffer: Sendable {
    public private(set) var fifo: SampleFIFO
    public private(set) var isPrimed = false
    /// The largest single write seen: the producer's burst size.
    public private(set) var largestWrite = 0
    /// Silence handed out while (re)priming.
    public private(set) var primingSamples: Int64 = 0
    /// Reads that went back to priming because the buffer ran dry.
    public private(set) var underruns = 0

    public init(capacity: Int) {
        fifo = SampleFIFO(capacity: capacity)
    }

    public var count: Int { fifo.count }
    public var overruns: Int { fifo.overruns }

    public mutating func write(_ source: [Float], from offset: Int = 0, count: Int) {
        if count > largestWrite { largestWrite = count }
        fifo.write(source, from: offset, count: count)
    }

    /// Whether a read of `count` samples now would deliver real audio (primed, or ready to prime).
    public func canRead(count: Int) -> Bool {
        isPrimed ? fifo.count >= count : (fifo.count > 0 && fifo.count >= largestWrite + count)
    }

    /// Reads exactly `count` samples into `destination[offset...]`; returns true when they are
    /// all real audio, false when silence (priming or underrun) was filled in.
    @discardableResult
    public mutating func read(into destination: inout [Float], at offset: Int = 0, count: Int) -> Bool {
        if !isPrimed {
            if fifo.count >= largestWrite + count && fifo.count > 0 {
                isPrimed = true
            } else {
                for i in 0..<count { destination[offset + i] = 0 }
                primingSamples += Int64(count)
                return false
            }
        }
        let got = fifo.readAvailable(into: &destination, at: offset, count: count)
        if got < count {
            for i in got..<count { destination[offset + i] = 0 }
            primingSamples += Int64(count - got)
            underruns += 1
            isPrimed = false
            return false
        }
        return true
    }

    /// Reads what is buffered, up to `count`, into `destination[offset...]` and fills the rest
    /// with silence, counting neither: the producer has stopped, so running dry is its end, not
    /// an underrun. Once empty the buffer primes again, should the producer start anew. Returns
    /// the real samples read.
    @discardableResult
    public mutating func drain(into destination: inout [Float], at offset: Int = 0, count: Int) -> Int {
        let got = fifo.readAvailable(into: &destination, at: offset, count: count)
        for i in got..<count { destination[offset + i] = 0 }
        if fifo.count == 0 { isPrimed = false }
        return got
    }

    /// Gives the samples' storage back while nothing reads or writes the buffer
    /// (`SampleFIFO.releaseStorage`); `reset()` it before it is used again.
    public mutating func releaseStorage() {
        fifo.releaseStorage()
    }

    /// Drops what is buffered (the device went away) and starts priming again.
    public mutating func reset() {
        fifo.clear()
        isPrimed = false
        largestWrite = 0
    }
}
