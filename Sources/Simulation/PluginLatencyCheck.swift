import AudioCore
import Foundation

/// Whether a plugin's output lags its input by what it says (`latency_samples`). Every figure is
/// measured on the output moved back by that much, so a plugin that says 0 and delays by a frame
/// would be measured on misaligned audio — a near end "lost", a clipped ERLE — with no word of
/// why. Checked as the built-in backends' latencies are measured (`EchoControlLatency`): a noise
/// burst captured with nothing played goes through a fresh instance. Where it comes out plainly at
/// another lag than the plugin says, give or take a millisecond, the plugin's runs fail, naming
/// both. A plugin that swallows the burst (a muting one, a gate) is not judged.
enum PluginLatencyCheck {
    /// The lag (engine samples) the burst came out at; nil where it did not come out plainly.
    struct Lag: Sendable, Equatable {
        var samples: Int?
    }

    /// The burst is captured this many frames in: before frame 30, where the tests' misbehaving
    /// plugins misbehave, so that a failure is their run's, and after a few frames of nothing.
    static let burstTick = 5
    /// How far past what the plugin says the burst is looked for (and before it, down to 0).
    static let searchMilliseconds = 200

    /// Throws the plugin's failure where `control`'s latency is not what its output shows;
    /// measured once per configuration and `latencies` (nil: every time).
    static func check(_ control: PluginEchoControl, plugin: CancellerPlugin, latencies: EchoControlLatencies?,
                      fresh: () throws -> PluginEchoControl) throws {
        let key = "\(plugin.path) \(control.loadedFile.map { "\($0)" } ?? "") \(plugin.sampleRate) \(plugin.options ?? "") "
            + "\(control.intensity) \(control.sampleRate) \(control.frameSize) \(control.latencySamples)"
        let lag: Lag
        if let known = latencies?.pluginLags.withLock({ $0[key] }) {
            lag = known
        } else {
            let probe = try fresh()
            // A file replaced since `control` loaded it (a rebuild) is another canceller: its lag says nothing of this one.
            if probe.loadedFile == control.loadedFile {
                lag = try measure(probe, expected: control.latencySamples)
            } else {
                try probe.finish()
                lag = Lag(samples: nil)
            }
            latencies?.pluginLags.withLock { $0[key] = lag }
        }
        guard let measured = lag.samples, abs(measured - control.latencySamples) > control.sampleRate / 1000 else { return }
        // In the plugin's own samples, as its latency_samples counts them: without the resampling's.
        let bridge = control.latencySamples - control.reportedLatencySamples * control.sampleRate / control.pluginRate
        let own = max(0, Int((Double(measured - bridge) * Double(control.pluginRate) / Double(control.sampleRate)).rounded()))
        let milliseconds = FixedDecimal.text(Double(own) * 1000 / Double(control.pluginRate), fractionDigits: 1)
        throw control.failure("latency_samples says \(control.reportedLatencySamples), but its output comes \(own) samples "
                              + "(\(milliseconds) ms) after its input (a noise burst through a fresh instance, nothing played): "
                              + "every figure would be measured on misaligned audio; return \(own) from latency_samples")
    }

    /// Runs the burst through `probe` and lets it go.
    static func measure(_ probe: PluginEchoControl, expected: Int) throws -> Lag {
        let frameSize = probe.frameSize
        var random = SeededRandom(seed: 1)
        let burst = (0..<frameSize).map { _ in random.nextSignedFloat() * 0.25 }
        let silence = [Float](repeating: 0, count: frameSize)
        let searchEnd = max(0, expected) + probe.sampleRate * searchMilliseconds / 1000
        let ticks = burstTick + 1 + (searchEnd + frameSize - 1) / frameSize + 1
        var output = silence, received: [Float] = []
        received.reserveCapacity(ticks * frameSize)
        for tick in 0..<ticks {
            try probe.analyzeRender(silence)
            try probe.processCapture(tick == burstTick ? burst : silence, into: &output)
            received += output
        }
        try probe.finish()
        let start = burstTick * frameSize
        let lags = 0...min(searchEnd, received.count - start - frameSize)
        let sums = lags.map { lag in (0..<frameSize).reduce(0.0) { $0 + Double(burst[$1]) * Double(received[start + lag + $1]) } }
        guard let best = lags.max(by: { sums[$0] < sums[$1] }), sums[best] > 0 else { return Lag(samples: nil) }
        // Plainly: the output around the lag is much like the burst (a quarter of a pass-through's
        // correlation; resampling to 8 kHz keeps 0.41 of it), and no other lag comes near.
        let burstEnergy = burst.reduce(0.0) { $0 + Double($1) * Double($1) }
        let outputEnergy = received[(start + best)..<(start + best + frameSize)].reduce(0.0) { $0 + Double($1) * Double($1) }
        let likeness = sums[best] / (burstEnergy * outputEnergy).squareRoot()
        let margin = probe.sampleRate / 1000
        let rival = lags.filter { abs($0 - best) > margin }.map { abs(sums[$0]) }.max() ?? 0
        guard likeness >= 0.25, sums[best] >= 3 * rival else { return Lag(samples: nil) }
        return Lag(samples: best)
    }
}
