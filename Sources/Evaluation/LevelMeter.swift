import AudioCore
import Simulation

/// Measures `LevelPoint`s while a call runs: four sums of squares per tick, one row per window.
/// At most `maximumWindows` rows are kept (an hour of 0.5 s windows): past that, neighbouring
/// windows merge and the window doubles, so a day-long call's plot stays bounded.
public final class LevelMeter: CallTap {
    public static let maximumWindows = 7200
    private let sampleRate: Int
    private var windowSamples: Int
    /// Σx² and sample count per finished window: far end, echo, near end, sent.
    private var sums: [(far: Double, echo: Double, near: Double, sent: Double, samples: Int)] = []
    private var current = (far: 0.0, echo: 0.0, near: 0.0, sent: 0.0, samples: 0)

    /// Windows of 0.5 s: a whole number of 10 ms ticks, so that a tick never straddles two.
    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
        windowSamples = max(1, sampleRate / 2)
        sums.reserveCapacity(Self.maximumWindows + 1)
    }

    public func record(_ tick: TickSignals) throws {
        // A tick never straddles windows: 0.5 s is a whole number of 10 ms ticks.
        current.far += Self.energy(tick.reference, tick.count)
        current.echo += Self.energy(tick.echo, tick.count)
        current.near += Self.energy(tick.nearEnd, tick.count)
        current.sent += Self.energy(tick.sent, tick.count)
        current.samples += tick.count
        if current.samples >= windowSamples { closeWindow() }
    }

    private func closeWindow() {
        sums.append(current)
        current = (0, 0, 0, 0, 0)
        if sums.count > Self.maximumWindows {
            // Pairs merged in place: a new array (`map`) would drop the reservation, and the next
            // windows grow it again, mid-call.
            // A window left without a pair goes on as the current one, to the doubled length: kept
            // as a finished window it would be one half-length window among the doubled ones.
            if sums.count % 2 == 1 { current = sums.removeLast() }
            let merged = sums.count / 2
            for i in 0..<merged {
                let a = sums[2 * i], b = sums[2 * i + 1]
                sums[i] = (a.far + b.far, a.echo + b.echo, a.near + b.near, a.sent + b.sent, a.samples + b.samples)
            }
            sums.removeLast(sums.count - merged)
            windowSamples *= 2
        }
    }

    /// The windows so far (a last partial window included).
    public var points: [LevelPoint] {
        var rows = sums
        if current.samples > 0 { rows.append(current) }
        var start = 0
        return rows.map { row in
            defer { start += row.samples }
            func level(_ sum: Double) -> Double? { sum > 0 ? Decibels.powerRatio(sum, Double(row.samples)) : nil }
            return LevelPoint(timeSeconds: Double(start) / Double(sampleRate), farEndDBFS: level(row.far),
                              echoDBFS: level(row.echo), nearEndDBFS: level(row.near), sentDBFS: level(row.sent))
        }
    }

    private static func energy(_ signal: [Float], _ count: Int) -> Double {
        Double(VectorMath.sumOfSquares(signal, count: count))
    }
}
