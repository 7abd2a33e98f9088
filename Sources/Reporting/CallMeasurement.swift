import AudioCore
import Metrics
import Simulation

/// Measures a call while it runs, in bounded memory: streaming echo metrics over (reference,
/// mic, sent, near end), streaming click/gap detection on the sent audio, and per-tick energies
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
        analysis = EchoAnalysisStream(sampleRate: sampleRate, configuration: configuration, includesEcho: false, includesNearEnd: true)
        glitches = GlitchStream(detector: GlitchDetector(sampleRate: sampleRate))
        tickError.reserveCapacity(expectedTicks)
        tickPower.reserveCapacity(expectedTicks)
    }

    public func record(_ tick: TickSignals) throws {
        analysis.append(reference: tick.reference, mic: tick.mic, processed: tick.sent, echo: nil, nearEnd: tick.nearEnd, count: tick.count)
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

    private static func energies(_ sent: [Float], _ mic: [Float], count: Int) -> (Double, Double) {
        var error = 0.0, power = 0.0
        for i in 0..<count {
            let d = Double(sent[i]) - Double(mic[i])
            error += d * d
            power += Double(mic[i]) * Double(mic[i])
        }
        return (error, power)
    }
}
