import Foundation

/// Every threshold and size the echo metrics use, with the defaults the README documents.
/// Sizes left nil are derived from the sample rate so that a 16 kHz and a 48 kHz recording are
/// measured over the same durations.
public struct EchoMetricsConfiguration: Sendable, Equatable {
    /// Welch frame length in samples; nil means the next power of two ≥ 21.3 ms (1024 at 48 kHz,
    /// 512 at 16 kHz). The hop is always half a frame (50 % overlap, Hann window).
    public var frameSize: Int?
    /// A frame has far-end activity when the (delay-aligned) reference frame's mean square is at
    /// least this level (mean square 1.0 is 0 dBFS).
    public var farEndActiveDBFS: Double
    /// The near end counts as silent in a frame when its estimate's mean square is below this.
    public var nearEndSilentDBFS: Double
    /// Length of the non-overlapping windows of the ERLE time series.
    public var seriesStepSeconds: Double
    /// Most windows an ERLE series has: a longer range (a call over an hour at 0.5 s) gets its
    /// window widened by the smallest whole factor that fits, so the series stays bounded.
    public var maximumSeriesPoints: Int
    /// Convergence means "stays within this many dB of the steady-state ERLE".
    public var convergenceToleranceDB: Double
    /// Largest reference→mic delay the GCC-PHAT search considers (lags 0…this).
    public var maxDelayMilliseconds: Double
    /// GCC-PHAT block length in samples; nil means the next power of two ≥ 341.3 ms
    /// (16384 at 48 kHz). The hop between candidate blocks is half a block.
    public var delayBlockSize: Int?
    /// The delay is estimated from the first this many far-end-active blocks of the call.
    public var maxDelayBlocks: Int
    /// Longest stretch from the start of the call that a stream buffers while it waits for those
    /// blocks (the gate and the ERL need the delay before any frame can be scored). When it is
    /// reached first, the delay is estimated from the blocks found so far. 12 s holds 32 blocks of
    /// continuous far-end speech (~6 s) with room for silences.
    public var delayWarmupSeconds: Double
    /// Without echo or near-end tracks (`gate.method = "echo_path_fit"`): a frame is near-end
    /// active when the mic's residual after the fitted echo is within this many dB below the
    /// predicted echo or above it (and above `nearEndSilentDBFS`). See `EchoPathGate`.
    public var echoPathResidualDB: Double
    /// Keep the activity gate's decisions as talk runs (`EchoAnalysis.talkRuns`: what scorers cut
    /// a call by). A simulated call without scorers turns it off: the list grows with the call.
    public var recordsTalkRuns = true
    /// Whether a near-end track holds everything the mic does besides the echo — a simulated
    /// call's does (the talker and the room's noise). When it may not (a recording's clean
    /// near-end speech, as the AEC Challenge's): a frame's output is measured against mic − echo
    /// where that holds clearly more than the track, and without an echo track against at least
    /// the mic's noise between talkers.
    public var nearEndTrackHoldsTheNoise = false
    /// Whether the near-end track is mic − echo, made from the echo track where none was given:
    /// the gate then says it judged the near end from mic − echo, as it did.
    var nearEndTrackIsMicLessEcho = false

    /// This configuration for a near-end track made as mic − echo: it holds the mic's noise, and
    /// the gate says it judged the near end from mic − echo.
    func withNearEndFromEcho() -> Self {
        var configuration = self
        configuration.nearEndTrackHoldsTheNoise = true
        configuration.nearEndTrackIsMicLessEcho = true
        return configuration
    }

    public init(frameSize: Int? = nil,
                farEndActiveDBFS: Double = -50,
                nearEndSilentDBFS: Double = -55,
                seriesStepSeconds: Double = 0.5,
                convergenceToleranceDB: Double = 3,
                maxDelayMilliseconds: Double = 500,
                delayBlockSize: Int? = nil,
                maxDelayBlocks: Int = 32,
                delayWarmupSeconds: Double = 12,
                maximumSeriesPoints: Int = 7200,
                echoPathResidualDB: Double = 30) {
        self.frameSize = frameSize
        self.farEndActiveDBFS = farEndActiveDBFS
        self.nearEndSilentDBFS = nearEndSilentDBFS
        self.seriesStepSeconds = seriesStepSeconds
        self.convergenceToleranceDB = convergenceToleranceDB
        self.maxDelayMilliseconds = maxDelayMilliseconds
        self.delayBlockSize = delayBlockSize
        self.maxDelayBlocks = maxDelayBlocks
        self.delayWarmupSeconds = delayWarmupSeconds
        self.maximumSeriesPoints = maximumSeriesPoints
        self.echoPathResidualDB = echoPathResidualDB
    }

    public static let `default` = EchoMetricsConfiguration()

    /// The Welch frame length used at `sampleRate` (even, at least 16).
    public func frameSize(forSampleRate sampleRate: Int) -> Int {
        if let frameSize { return max(16, frameSize + frameSize % 2) }
        return nextPowerOfTwo(atLeast: Int((0.0213 * Double(sampleRate)).rounded(.up)))
    }

    /// The GCC-PHAT block length used at `sampleRate` (even, at least 64).
    public func delayBlockSize(forSampleRate sampleRate: Int) -> Int {
        if let delayBlockSize { return max(64, delayBlockSize + delayBlockSize % 2) }
        return nextPowerOfTwo(atLeast: Int((0.3413 * Double(sampleRate)).rounded(.up)))
    }

    /// Samples a stream may buffer before it must fix the delay (at least 0).
    func delayWarmupSamples(forSampleRate sampleRate: Int) -> Int {
        max(0, Int((delayWarmupSeconds * Double(sampleRate)).rounded()))
    }

    /// Samples per ERLE-series window at `sampleRate` (at least one).
    func seriesStepSamples(forSampleRate sampleRate: Int) -> Int {
        max(1, Int((seriesStepSeconds * Double(sampleRate)).rounded()))
    }
}

/// Smallest power of two ≥ `value` (and ≥ 16).
func nextPowerOfTwo(atLeast value: Int) -> Int {
    var size = 16
    while size < value { size *= 2 }
    return size
}

extension EchoMetricsConfiguration {
    /// A measured steady ERLE of twice the convergence tolerance or less: within it of nothing
    /// removed, nothing converged (AEC disabled, a pass-through, a canceller that failed). The
    /// reports' convergence reason and eval's best modes read it alike.
    public func nothingConverged(steadyERLEDB: Double) -> Bool { steadyERLEDB <= 2 * convergenceToleranceDB }
}
