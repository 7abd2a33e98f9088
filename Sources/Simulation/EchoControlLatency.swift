import AudioCore
import Synchronization

/// How late a canceller's output comes out, measured the only way that covers everything inside
/// it (block buffering, band-splitting filters, resampling): a noise burst captured with nothing
/// played goes through a fresh instance, and the lag of the output's largest correlation with the
/// burst is the latency. The canceller is quiet while nothing is played, so the burst passes.
/// A latency depends on the configuration alone, and a call makes a new canceller at every
/// intensity change: a caller that makes many passes one `EchoControlLatencies` to remember them.
enum EchoControlLatency {
    /// `make` builds a fresh instance of the configuration named `key`.
    static func measure(key: String, frameSize: Int, latencies: EchoControlLatencies?, make: () throws -> EchoControl) throws -> Int {
        try measure(key: key, frameSize: frameSize, latencies: latencies) {
            let control = try make()
            return { render, capture, output in
                try control.analyzeRender(render)
                try control.processCapture(capture, into: &output)
            }
        }
    }

    /// One 10 ms step of a fresh canceller (or of anything that delays a capture frame like one):
    /// the frame played, the frame captured, the output.
    typealias Step = (_ render: [Float], _ capture: [Float], _ output: inout [Float]) throws -> Void

    /// `makeStep` builds a fresh instance of the configuration named `key` and returns its step.
    /// Measured once per `latencies` (nil: every time).
    static func measure(key: String, frameSize: Int, latencies: EchoControlLatencies?, makeStep: () throws -> Step) throws -> Int {
        if let known = latencies?.known.withLock({ $0[key] }) { return known }
        // Cancellers mute or settle at first (AECM mutes its first frames): the burst comes later.
        let burstTick = 50
        let (burst, received) = try burstResponse(frameSize: frameSize, burstTick: burstTick, ticks: 70, step: makeStep())
        let start = burstTick * frameSize
        let lags = 0...(received.count - start - frameSize)
        let sums = correlations(of: burst, in: received, from: start, lags: lags)
        var best = (lag: 0, value: -Double.infinity)
        for lag in lags where sums[lag] > best.value { best = (lag, sums[lag]) }
        latencies?.known.withLock { $0[key] = best.lag }
        return best.lag
    }

    /// A noise burst of one frame captured at `burstTick` of `ticks` frames, nothing else played
    /// or captured, through `step`: the burst, and every frame that came out, in order.
    static func burstResponse(frameSize: Int, burstTick: Int, ticks: Int, step: Step) throws -> (burst: [Float], received: [Float]) {
        var random = SeededRandom(seed: 1)
        let burst = (0..<frameSize).map { _ in random.nextSignedFloat() * 0.25 }
        let silence = [Float](repeating: 0, count: frameSize)
        var output = silence, received: [Float] = []
        received.reserveCapacity(ticks * frameSize)
        for tick in 0..<ticks {
            try step(silence, tick == burstTick ? burst : silence, &output)
            received += output
        }
        return (burst, received)
    }

    /// The burst's correlation with what came out, `lags` samples after the tick it was captured
    /// at (`start`), indexed by lag.
    static func correlations(of burst: [Float], in received: [Float], from start: Int, lags: ClosedRange<Int>) -> [Double] {
        lags.map { lag in
            var sum = 0.0
            for i in burst.indices { sum += Double(burst[i] * received[start + lag + i]) }
            return sum
        }
    }
}

/// The cancellers' latencies measured so far (`EchoControlLatency`), by configuration: a corpus
/// run makes one and passes it to every call (`ScenarioRunner.latencies`), so each configuration
/// is measured once however many calls and intensity changes make it. Passed in, not global: a
/// call without one measures its own.
public final class EchoControlLatencies: Sendable {
    let known = Mutex<[String: Int]>([:])
    /// What `PluginLatencyCheck` found of each plugin configuration.
    let pluginLags = Mutex<[PluginLatencyCheck.Key: PluginLatencyCheck.Probe]>([:])

    public init() {}
}
