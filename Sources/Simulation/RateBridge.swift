import AudioCore
import AudioInterop

/// Frames at the engine's rate in, frames at a canceller's own rate processed, frames at the
/// engine's rate out: a libsamplerate converter each way and a FIFO on each side. The output
/// FIFO starts with `priming` zeros so that every pull finds a whole frame: the resamplers hold
/// back their first output until they have seen enough input. Allocates nothing per frame.
/// A bridge that `returnsOutput: false` (a canceller's render side, whose inner frames only feed
/// it) converts one way only: the way back would cost as much as the capture side's and go unread.
final class RateBridge {
    let outerFrame: Int
    let innerFrame: Int
    private let down: Resampler
    private let up: Resampler?
    private var downOut: [Float]
    private var innerFIFO: SampleFIFO
    private var innerIn: [Float]
    private var innerOut: [Float]
    private var upOut: [Float]
    private var outerFIFO: SampleFIFO

    init(outerRate: Int, innerRate: Int, outerFrame: Int, innerFrame: Int, priming: Int, returnsOutput: Bool = true) throws {
        self.outerFrame = outerFrame
        self.innerFrame = innerFrame
        down = try Resampler(inputRate: outerRate, outputRate: innerRate, quality: .medium)
        up = returnsOutput ? try Resampler(inputRate: innerRate, outputRate: outerRate, quality: .medium) : nil
        downOut = [Float](repeating: 0, count: outerFrame * innerRate / outerRate + 64)
        innerFIFO = SampleFIFO(capacity: innerRate)
        innerIn = [Float](repeating: 0, count: innerFrame)
        innerOut = [Float](repeating: 0, count: innerFrame)
        upOut = [Float](repeating: 0, count: innerFrame * outerRate / innerRate + 64)
        outerFIFO = SampleFIFO(capacity: outerRate)
        outerFIFO.writeSilence(count: priming)
    }

    /// Resamples `frame` down and runs `process` on every whole inner frame (in, out); the outs
    /// are resampled back up into the output FIFO.
    func push(_ frame: [Float], process: (_ input: [Float], _ output: inout [Float]) throws -> Void) throws {
        try down.convert(frame, count: outerFrame, scratch: &downOut) { innerFIFO.write($0, count: $1) }
        while innerFIFO.count >= innerFrame {
            _ = innerFIFO.read(into: &innerIn, count: innerFrame)
            try process(innerIn, &innerOut)
            try up?.convert(innerOut, count: innerFrame, scratch: &upOut) { outerFIFO.write($0, count: $1) }
        }
    }

    /// One output frame: what the FIFO holds, zeros for any shortfall (none once primed).
    func pull(into output: inout [Float]) {
        let got = outerFIFO.readAvailable(into: &output, count: outerFrame)
        for i in got..<outerFrame { output[i] = 0 }
    }

    /// The render and capture bridges around a canceller at `innerRate`: the capture side primed
    /// so that every pull finds a whole frame, the render side one way only (its inner frames
    /// only feed the canceller; nothing comes back up from it).
    static func pair(outerRate: Int, innerRate: Int, outerFrame: Int, innerFrame: Int) throws -> (render: RateBridge, capture: RateBridge) {
        let priming = try priming(outerRate: outerRate, innerRate: innerRate, outerFrame: outerFrame, innerFrame: innerFrame)
        return (try RateBridge(outerRate: outerRate, innerRate: innerRate, outerFrame: outerFrame, innerFrame: innerFrame, priming: 0,
                               returnsOutput: false),
                try RateBridge(outerRate: outerRate, innerRate: innerRate, outerFrame: outerFrame, innerFrame: innerFrame, priming: priming))
    }

    /// The delay the capture side adds with nothing inside it (a canceller at another rate adds
    /// its own on top), measured as `EchoControlLatency` measures a canceller's.
    static func passThroughLatency(outerRate: Int, innerRate: Int, outerFrame: Int, innerFrame: Int,
                                   latencies: EchoControlLatencies?) throws -> Int {
        try EchoControlLatency.measure(key: "bridge \(outerRate) \(innerRate) \(outerFrame)", frameSize: outerFrame, latencies: latencies) {
            let capture = try pair(outerRate: outerRate, innerRate: innerRate, outerFrame: outerFrame, innerFrame: innerFrame).capture
            return { _, frame, output in
                try capture.push(frame) { inner, out in for index in inner.indices { out[index] = inner[index] } }
                capture.pull(into: &output)
            }
        }
    }

    /// The smallest priming that never leaves a pull short: a dry run of the chain on silence.
    static func priming(outerRate: Int, innerRate: Int, outerFrame: Int, innerFrame: Int) throws -> Int {
        let bridge = try RateBridge(outerRate: outerRate, innerRate: innerRate, outerFrame: outerFrame, innerFrame: innerFrame, priming: 0)
        let silence = [Float](repeating: 0, count: outerFrame)
        var pushed = 0, shortest = 0
        for _ in 0..<50 {
            try bridge.push(silence) { input, output in for i in 0..<input.count { output[i] = input[i] } }
            pushed += outerFrame
            shortest = max(shortest, pushed - Int(bridge.outerFIFO.writtenSamples))
            _ = bridge.outerFIFO.readAvailable(into: &bridge.upOut, count: min(outerFrame, bridge.outerFIFO.count))
        }
        return shortest
    }
}
