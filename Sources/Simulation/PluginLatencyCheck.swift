import AudioCore
import AudioInterop
import Foundation

/// Whether a plugin's output lags its input by what it says (`latency_samples`). Every figure is
/// measured on the output moved back by that much, so a plugin that says 0 and delays by a frame
/// would be measured on misaligned audio — a near end "lost", a clipped ERLE — with no word of
/// why. Checked as the built-in backends' latencies are measured (`EchoControlLatency`): a noise
/// burst captured with nothing played goes through a fresh instance, finished before the run's
/// own is made (a plugin may hold a resource only one instance can). Where the burst comes out
/// plainly at another lag than the plugin says (`tolerance`), the plugin's runs fail, naming
/// both, whichever the output's polarity. Not judged: a plugin that swallows the
/// burst (a mute, a gate, one that mutes its first 60 ms), and one whose file changed between the
/// two loads.
enum PluginLatencyCheck {
    /// What the probe found of one configuration.
    struct Probe: Sendable, Equatable {
        /// The file the probe's instance ran (nil where the child could not tell).
        var loadedFile: FileIdentity?
        /// What it said (engine samples, with the resampling's).
        var declared: Int
        /// The lag (engine samples) the burst came out at; nil where it did not come out plainly.
        var measured: Int?
    }

    /// One configuration of a plugin: what the probe's result is remembered by.
    struct Key: Hashable, Sendable {
        var path: String
        var pluginRate: Int
        var options: String?
        var intensity: EchoCancellerMode
        var sampleRate: Int
        var frameSize: Int
    }

    /// The burst is captured this many frames in, after a few frames of nothing; the probe ends
    /// before frame 30 for a plugin that says under ~30 ms, so a plugin that fails later (the
    /// tests' misbehaving plugins at frame 30) fails in its run, where the frame it names is.
    static let burstTick = 5
    /// How far past what the plugin says the burst is looked for (and before it, down to 0).
    static let searchMilliseconds = 200
    /// Said after a failure of the probe's instance once it was made: its frames and its
    /// `destroy` are not the run's.
    static let probeNote = " (in the latency check: a noise burst through a fresh instance, before the run)"

    /// Makes the run's canceller with `make`, first checking a fresh one's latency against what
    /// it says — once per configuration and `latencies` (nil: every time) — and throws the
    /// plugin's failure where its output belies it.
    static func checked(plugin: CancellerPlugin, intensity: EchoCancellerMode, sampleRate: Int, frameSize: Int,
                        latencies: EchoControlLatencies?, make: () throws -> PluginEchoControl) throws -> PluginEchoControl {
        let key = Key(path: plugin.path, pluginRate: plugin.sampleRate, options: plugin.options, intensity: intensity,
                      sampleRate: sampleRate, frameSize: frameSize)
        let probe: Probe
        if let known = latencies?.pluginLags.withLock({ $0[key] }) {
            probe = known
        } else {
            probe = try measure(make())
            latencies?.pluginLags.withLock { $0[key] = probe }
        }
        let control = try make()
        // Another file (a rebuild between the two loads) is another canceller, and a plugin may
        // say another latency from one create to the next: the probe says nothing of those.
        guard probe.loadedFile == control.loadedFile, probe.declared == control.latencySamples,
              let measured = probe.measured,
              abs(measured - control.latencySamples) > tolerance(sampleRate: sampleRate, pluginRate: control.pluginRate) else { return control }
        // In the plugin's own samples, as its latency_samples counts them: without the resampling's.
        let own = max(0, Int((Double(measured - control.bridgeLatencySamples) * Double(control.pluginRate) / Double(sampleRate)).rounded()))
        // A few samples are under a tenth of a millisecond: two digits, not "0.0 ms".
        let seconds = Double(own) / Double(control.pluginRate)
        let milliseconds = FixedDecimal.text(seconds * 1000, fractionDigits: 0 < seconds && seconds < 0.001 ? 2 : 1)
        // latency_samples may say a second at most.
        let advice = own <= control.pluginRate ? "return \(own) from latency_samples"
            : "more than the second latency_samples may say: EchoLab cannot line it up"
        throw control.failure("latency_samples says \(control.reportedLatencySamples), but its output comes \(own == 1 ? "1 sample" : "\(own) samples") "
                              + "(\(milliseconds) ms) after its input (a noise burst through a fresh instance, nothing played): "
                              + "every figure would be measured on misaligned audio; \(advice)")
    }

    /// How many engine samples the burst may come out from where the plugin says. At the
    /// plugin's own rate, none: its lag is whole samples, and a few samples matter (a trial's
    /// pass-through two samples off read as 1.3 dB of its near end lost, ten as 19.9 dB). Resampled around it, half
    /// a sample of its rate, and at least one of the engine's: the resampling's delay is not
    /// whole engine samples (the lag found is rounded); a plugin off by one of its own samples
    /// at 8 or 16 kHz is still told (at 32 kHz that is within the rounding).
    static func tolerance(sampleRate: Int, pluginRate: Int) -> Int {
        pluginRate == sampleRate ? 0 : max(1, sampleRate / pluginRate / 2)
    }

    /// Runs the burst through `probe` and lets it go.
    static func measure(_ probe: PluginEchoControl) throws -> Probe {
        let frameSize = probe.frameSize, expected = probe.latencySamples
        let searchEnd = expected + probe.sampleRate * searchMilliseconds / 1000
        let burst: [Float], received: [Float]
        do {
            (burst, received) = try EchoControlLatency.burstResponse(
                frameSize: frameSize, burstTick: burstTick, ticks: burstTick + 1 + (searchEnd + frameSize - 1) / frameSize + 1
            ) { render, capture, output in
                try probe.analyzeRender(render)
                try probe.processCapture(capture, into: &output)
            }
            try probe.finish()
        } catch let failure as PluginProcess.PluginFailure where !failure.isInterruption {
            throw failure.noting(probeNote)
        }
        var result = Probe(loadedFile: probe.loadedFile, declared: expected, measured: nil)
        let start = burstTick * frameSize
        let lags = 0...min(searchEnd, received.count - start - frameSize)
        let sums = EchoControlLatency.correlations(of: burst, in: received, from: start, lags: lags)
        // Either polarity: an output turned upside down is lined up as any other (the metrics
        // find its polarity), so its lag must be what the plugin says too.
        guard let best = lags.max(by: { abs(sums[$0]) < abs(sums[$1]) }), sums[best] != 0 else { return result }
        // Plainly: the output around the lag is much like the burst (a quarter of a pass-through's
        // correlation; resampling to 8 kHz keeps 0.41 of it), and no other lag comes near.
        let burstEnergy = burst.reduce(0.0) { $0 + Double($1) * Double($1) }
        let outputEnergy = received[(start + best)..<(start + best + frameSize)].reduce(0.0) { $0 + Double($1) * Double($1) }
        let likeness = abs(sums[best]) / (burstEnergy * outputEnergy).squareRoot()
        let margin = probe.sampleRate / 1000
        let rival = lags.filter { abs($0 - best) > margin }.map { abs(sums[$0]) }.max() ?? 0
        if likeness >= 0.25, abs(sums[best]) >= 3 * rival { result.measured = best }
        return result
    }
}
