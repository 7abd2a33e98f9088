import AudioCore
import Metrics
import Simulation

/// Measures a call while it runs, in bounded memory: streaming echo metrics over (reference,
/// mic, sent, echo at the mic, near end) — ERL is the acoustic one, reference over the echo tap — streaming click/gap detection on the sent audio, and per-tick energies
/// of `sent − mic` and `mic` so the lint can state what a canceller did to a stretch of the call.
public final class CallMeasurement: CallTap {
    public let sampleRate: Int
    private let analysis: EchoAnalysisStream
    private let glitches: GlitchStream
    private var tickError: [Double] = []
    private var tickPower: [Double] = []
    private(set) var tickFrames = 0

    public init(sampleRate: Int, configuration: EchoMetricsConfiguration = .default, expectedTicks: Int = 0) {
        self.sampleRate = sampleRate
        analysis = EchoAnalysisStream(sampleRate: sampleRate, configuration: configuration, includesEcho: true, includesNearEnd: true)
        glitches = GlitchStream(detector: GlitchDetector(sampleRate: sampleRate))
        tickError.reserveCapacity(expectedTicks)
        tickPower.reserveCapacity(expectedTicks)
    }

    public func record(_ tick: TickSignals) throws {
        analysis.append(reference: tick.reference, mic: tick.mic, processed: tick.sent, echo: tick.echo, nearEnd: tick.nearEnd, count: tick.count)
        glitches.append(tick.sent, count: tick.count)
        let (error, power) = Self.energies(tick.sent, tick.mic, count: tick.count)
        tickError.append(error)
        tickPower.append(power)
        tickFrames = tick.count
    }

    /// Replays an in-memory recording, tick by tick, as if measured live.
    public static func measuring(_ recording: CallRecording, sampleRate: Int, tickFrames: Int,
                                 configuration: EchoMetricsConfiguration = .default) -> CallMeasurement {
        let measurement = CallMeasurement(sampleRate: sampleRate, configuration: configuration, expectedTicks: recording.count / tickFrames + 1)
        var blocks = [[Float]](repeating: [Float](repeating: 0, count: tickFrames), count: 6)
        var start = 0
        while start < recording.count {
            let n = min(tickFrames, recording.count - start)
            for (index, (_, samples)) in recording.taps.enumerated() {
                VectorMath.copy(samples, from: start, into: &blocks[index], count: n)
            }
            let tick = TickSignals(frame: Int64(start), count: n, mic: blocks[0], reference: blocks[1], echo: blocks[2],
                                   nearEnd: blocks[3], played: blocks[4], sent: blocks[5])
            try? measurement.record(tick)
            start += n
        }
        return measurement
    }

    /// Ends the measurement.
    public func finish(segments: [Range<Int>]) -> (analysis: EchoAnalysis, glitches: GlitchReport) {
        (analysis.finish(segments: segments), glitches.finish())
    }

    /// 10·log10(Σ(sent−mic)² / Σmic²) over the ticks covering `range`; nil when sent equals mic there.
    func sentErrorDB(in range: Range<Int>) -> Double? {
        guard tickFrames > 0 else { return nil }
        let first = range.lowerBound / tickFrames, last = min(tickError.count, (range.upperBound + tickFrames - 1) / tickFrames)
        guard first < last else { return nil }
        return Decibels.powerRatio(tickError[first..<last].reduce(0, +), tickPower[first..<last].reduce(0, +))
    }

    /// Σ(sent−mic)² and Σmic² of one tick: four Float lanes (vectorisable; a tick is short enough
    /// for Float), added up in Double by the caller's per-tick sums.
    private static func energies(_ sent: [Float], _ mic: [Float], count: Int) -> (Double, Double) {
        var e0: Float = 0, e1: Float = 0, e2: Float = 0, e3: Float = 0
        var p0: Float = 0, p1: Float = 0, p2: Float = 0, p3: Float = 0
        var i = 0
        while i + 4 <= count {
            let d0 = sent[i] - mic[i], d1 = sent[i + 1] - mic[i + 1], d2 = sent[i + 2] - mic[i + 2], d3 = sent[i + 3] - mic[i + 3]
            e0 += d0 * d0; e1 += d1 * d1; e2 += d2 * d2; e3 += d3 * d3
            p0 += mic[i] * mic[i]; p1 += mic[i + 1] * mic[i + 1]; p2 += mic[i + 2] * mic[i + 2]; p3 += mic[i + 3] * mic[i + 3]
            i += 4
        }
        while i < count {
            let d = sent[i] - mic[i]
            e0 += d * d
            p0 += mic[i] * mic[i]
            i += 1
        }
        return (Double((e0 + e1) + (e2 + e3)), Double((p0 + p1) + (p2 + p3)))
    }
}
