import EchoLabJSON
import Foundation
import Simulation

/// An input stream made anew while it held captured audio, as a run's report gives it
/// (`hardware.capture_restarts`): where and why, the room's stretch whose capture was dropped,
/// and how much of it the near talker spoke in. The near-end track passes through the same
/// stream, so it cannot show this cut: the talker's audio is judged as the room held it.
public struct CaptureRestartLoss: Sendable, Equatable {
    public var atSeconds: Double
    public var cause: CaptureRestart.Cause
    /// The room's stretch whose capture was dropped, seconds since the call started.
    public var discardedFromSeconds: Double
    public var discardedUntilSeconds: Double
    /// The near talker's share of the dropped audio: its 10 ms blocks (counted from the stretch's
    /// start, the last one shorter) at or above the near-end silence level, in milliseconds; 0
    /// where the room was not what the call sent then (a file or generator mic, a mute).
    public var nearEndLostMilliseconds: Double
    /// The same, in samples (`hardware.streams.near_end_lost_samples` sums them: the gate's count).
    public var nearEndLostSamples: Int
    public var discardedMilliseconds: Double
    /// The talker spoke in what was dropped: a cut (`hardware.streams.near_end_cuts` counts them).
    public var cutsTheNearEnd: Bool { nearEndLostMilliseconds > 0 }

    /// `silentDBFS`: the near-end silence level (`EchoMetricsConfiguration.nearEndSilentDBFS`):
    /// a block of the talker under it is a pause. `roomIsSent`: whether the call sent the room's
    /// capture at an engine frame (a real microphone, not muted), asked at each block's start.
    public init(_ restart: CaptureRestart, sampleRate: Int, silentDBFS: Double, roomIsSent: (Int64) -> Bool = { _ in true }) {
        let rate = Double(sampleRate)
        atSeconds = Double(restart.frame) / rate
        cause = restart.cause
        discardedFromSeconds = Double(restart.discarded.lowerBound) / rate
        discardedUntilSeconds = Double(restart.discarded.upperBound) / rate
        // From the frame count, not the seconds' difference: 10 ms, not 9.999999999999787.
        discardedMilliseconds = Double(restart.discarded.count) * 1000 / rate
        let block = sampleRate / 100, talker = pow(10, silentDBFS / 10)
        let samples = restart.discardedNearEnd
        var spoken = 0
        for start in stride(from: 0, to: samples.count, by: block) where roomIsSent(restart.discarded.lowerBound + Int64(start)) {
            let end = min(samples.count, start + block)
            let meanSquare = samples[start..<end].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(end - start)
            if meanSquare >= talker { spoken += end - start }
        }
        nearEndLostSamples = spoken
        nearEndLostMilliseconds = Double(spoken) * 1000 / rate
    }

    /// The restart as `report.json` lists it.
    var json: JSONValue {
        .object(["at_s": .number(atSeconds), "cause": .string(cause.rawValue),
                 "discarded_from_s": .number(discardedFromSeconds), "discarded_until_s": .number(discardedUntilSeconds),
                 "discarded_ms": .number(discardedMilliseconds), "near_end_lost_ms": .number(nearEndLostMilliseconds)])
    }
}
