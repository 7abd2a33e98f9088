import AudioCore
import AudioInterop
import Foundation
import VirtualTime
import XCTest
@testable import Simulation

/// A custom mic on its own (optionally jittered) timer that pushes `framesPerPush` frames of a
/// generator, or of a constant when `signal` is nil (cheap, for hour-long runs).
final class TimedTestMic: CustomMic {
    private let scheduler: Scheduler
    private var frame: PCMBuffer<Float>
    private var generator: SignalGenerator?
    private let period: VirtualDuration
    private let jitter: TimerJitter?
    private(set) var timer: RepeatingTimer?
    private let name: String
    private(set) var pushes: Int64 = 0

    init(scheduler: Scheduler, signal: SignalKind?, framesPerPush: Int = 960, period: VirtualDuration = .milliseconds(20),
         jitter: TimerJitter? = nil, name: String = "timed test mic") {
        self.scheduler = scheduler
        frame = PCMBuffer(frameCount: framesPerPush, sampleRate: 48_000)
        for i in frame.samples.indices { frame.samples[i] = 0.25 }
        generator = signal.map { SignalGenerator(kind: $0, sampleRate: 48_000, seed: 3) }
        self.period = period
        self.jitter = jitter
        self.name = name
    }

    override var deviceName: String { name }

    func start() {
        let timer = RepeatingTimer(scheduler: scheduler, period: period, leeway: jitter == nil ? .zero : .milliseconds(2),
                                   jitter: jitter, phase: .capture)
        timer.setEventHandler { [unowned self] in
            if generator != nil { generator!.fill(&frame.samples, count: frame.frameCount) }
            sendAudio(frame)
            pushes += 1
        }
        timer.schedule()
        self.timer = timer
    }

    func stop() { timer?.cancel(); timer = nil }
}

/// A custom speaker that pulls `framesPerPull` frames on its own timer and keeps the byte counts.
final class TimedTestSpeaker: CustomSpeaker {
    private let scheduler: Scheduler
    private var frame: PCMBuffer<Float>
    private let period: VirtualDuration
    private let jitter: TimerJitter?
    private(set) var timer: RepeatingTimer?
    private(set) var pulls: Int64 = 0
    private(set) var bytes: Int64 = 0
    /// Everything pulled, when `keeps` (the stream as the app sees it).
    private(set) var received: [Float] = []
    private let keeps: Bool

    init(scheduler: Scheduler, framesPerPull: Int, period: VirtualDuration, jitter: TimerJitter? = nil, keeps: Bool = false) {
        self.scheduler = scheduler
        frame = PCMBuffer(frameCount: framesPerPull, sampleRate: 48_000)
        self.period = period
        self.jitter = jitter
        self.keeps = keeps
    }

    override var drivesLoudspeaker: Bool { false }

    func start() {
        let timer = RepeatingTimer(scheduler: scheduler, period: period, leeway: jitter == nil ? .zero : .milliseconds(2),
                                   jitter: jitter, phase: .render)
        timer.setEventHandler { [unowned self] in
            bytes += Int64(playAudio(into: &frame))
            pulls += 1
            if keeps { received.append(contentsOf: frame.samples) }
        }
        timer.schedule()
        self.timer = timer
    }

    func stop() { timer?.cancel(); timer = nil }
}

/// Writes `samples` as a mono WAV.
@discardableResult
func writeWAV(_ samples: [Float], in folder: URL, _ name: String, rate: Int = 48_000, encoding: SoundFileEncoding = .float32) throws -> String {
    let path = folder.appendingPathComponent(name).path
    try SoundFileWriter.write(samples, to: path, sampleRate: rate, encoding: encoding)
    return path
}

/// The lag (in `lags`) at which `output[window]` best matches `input` delayed by it, and the
/// error energy relative to the output's there, in dB.
func bestAlignment(output: [Float], input: [Float], window: Range<Int>, lags: ClosedRange<Int>) -> (lag: Int, errorDB: Double) {
    var best = (lag: lags.lowerBound, error: Double.infinity)
    let signal = meanSquare(output[window])
    for lag in lags where window.lowerBound - lag >= 0 && window.upperBound - lag <= input.count {
        var error = 0.0
        for i in window {
            let d = Double(output[i]) - Double(input[i - lag])
            error += d * d
            if error > best.error * Double(window.count) { break }
        }
        error /= Double(window.count)
        if error < best.error { best = (lag, error) }
    }
    return (best.lag, best.error == 0 ? -Double.infinity : decibels(best.error / signal))
}

/// The longest run of exact zeros in `x[range]`.
func longestZeroRun(_ x: [Float], in range: Range<Int>) -> (length: Int, at: Int) {
    var best = (0, 0), run = 0
    for i in range {
        if x[i] == 0 { run += 1; if run > best.0 { best = (run, i - run + 1) } } else { run = 0 }
    }
    return best
}

/// The first 480-sample block (on the 10 ms grid) of `x[range]` that equals an earlier window of
/// `x` at any offset, if any.
func firstRepeatedBlock(_ x: [Float], in range: Range<Int>, block: Int = 480) -> (block: Int, earlier: Int)? {
    struct Key: Hashable { let a: UInt32, b: UInt32, c: UInt32, d: UInt32 }
    func key(_ i: Int) -> Key { Key(a: x[i].bitPattern, b: x[i + 1].bitPattern, c: x[i + 2].bitPattern, d: x[i + 3].bitPattern) }
    var seen: [Key: [Int]] = [:]
    var indexed = range.lowerBound
    var start = range.lowerBound
    while start + block <= range.upperBound {
        while indexed < start { seen[key(indexed), default: []].append(indexed); indexed += 1 }
        for earlier in seen[key(start)] ?? [] where x[earlier..<earlier + block] == x[start..<start + block] {
            return (start, earlier)
        }
        start += block
    }
    return nil
}

/// Power of `x[range]` at `frequency` (Goertzel), as a share of the total power.
func goertzelShare(_ x: [Float], in range: Range<Int>, frequency: Double, sampleRate: Double = 48_000) -> Double {
    let w = 2 * Double.pi * frequency / sampleRate
    let coefficient = 2 * cos(w)
    var s1 = 0.0, s2 = 0.0
    for i in range {
        let s = Double(x[i]) + coefficient * s1 - s2
        s2 = s1; s1 = s
    }
    let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
    let n = Double(range.count)
    return (2 * power / (n * n)) / meanSquare(x[range])
}
