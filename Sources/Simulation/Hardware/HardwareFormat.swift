/// The format an audio device runs at once the session is active: its sample rate and the
/// number of frames per I/O callback (`AVAudioSession.sampleRate` / `ioBufferDuration`).
public struct HardwareFormat: Hashable, Sendable, CustomStringConvertible {
    public var sampleRate: Int
    public var ioBufferFrames: Int

    public init(sampleRate: Int, ioBufferFrames: Int) {
        self.sampleRate = sampleRate
        self.ioBufferFrames = ioBufferFrames
    }

    /// The engine's own format: 48 kHz, one 10 ms tick per buffer.
    public static let engine = HardwareFormat(sampleRate: 48_000, ioBufferFrames: 480)

    /// One I/O buffer in milliseconds (an edge value, for reports).
    public var ioBufferMilliseconds: Double { Double(ioBufferFrames) * 1000 / Double(sampleRate) }

    public var description: String { "\(sampleRate) Hz, \(ioBufferFrames) frames" }
}

/// What the app asks for before activating the session (`setPreferredSampleRate`,
/// `setPreferredIOBufferDuration`). nil: no preference, the device's default.
public struct AudioPreferences: Hashable, Sendable {
    public var sampleRate: Int?
    public var ioBufferDurationSeconds: Double?

    public init(sampleRate: Int? = nil, ioBufferDurationSeconds: Double? = nil) {
        self.sampleRate = sampleRate
        self.ioBufferDurationSeconds = ioBufferDurationSeconds
    }
}

/// One side of a route's hardware (an input or an output port): the rates it can run at and the
/// I/O buffer sizes it accepts. A preference is a request; `grant` says what the device gives.
///
/// The rule (documented in README "Audio hardware"):
/// - rate: the supported rate nearest to the preferred one (a tie goes to the higher rate);
///   no preference → `defaultSampleRate`;
/// - buffer: preferred duration × granted rate, rounded to the nearest power-of-two frame count
///   (a tie goes to the larger), then clamped to the port's range; no preference →
///   `defaultIOBufferDurationSeconds`. So 0.005 s at 48 kHz (240 frames) → 256 frames, and at
///   44.1 kHz (220.5 frames) → 256 frames (5.8 ms).
public struct HardwarePort: Hashable, Sendable {
    public var supportedSampleRates: [Int]
    /// Smallest and largest I/O buffer, in frames (powers of two).
    public var ioBufferFrameRange: ClosedRange<Int>
    public var defaultSampleRate: Int
    public var defaultIOBufferDurationSeconds: Double

    public init(supportedSampleRates: [Int], ioBufferFrameRange: ClosedRange<Int>, defaultSampleRate: Int,
                defaultIOBufferDurationSeconds: Double = 0.01) {
        precondition(!supportedSampleRates.isEmpty && supportedSampleRates.contains(defaultSampleRate))
        self.supportedSampleRates = supportedSampleRates.sorted()
        self.ioBufferFrameRange = ioBufferFrameRange
        self.defaultSampleRate = defaultSampleRate
        self.defaultIOBufferDurationSeconds = defaultIOBufferDurationSeconds
    }

    /// A built-in mic or speaker: 8 to 48 kHz, 32 to 4096 frames.
    public static let builtIn = HardwarePort(supportedSampleRates: [8000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000],
                                             ioBufferFrameRange: 32...4096, defaultSampleRate: 48_000)
    /// A wired headset's codec: 44.1 or 48 kHz.
    public static let wired = HardwarePort(supportedSampleRates: [44_100, 48_000], ioBufferFrameRange: 32...4096,
                                           defaultSampleRate: 48_000)
    /// Bluetooth hands-free (HFP with mSBC): 16 kHz only, both ways.
    public static let bluetoothHandsFree = HardwarePort(supportedSampleRates: [16_000], ioBufferFrameRange: 64...1024,
                                                        defaultSampleRate: 16_000)
    /// Bluetooth A2DP output: 44.1 or 48 kHz.
    public static let bluetoothA2DP = HardwarePort(supportedSampleRates: [44_100, 48_000], ioBufferFrameRange: 128...4096,
                                                   defaultSampleRate: 48_000)

    /// The format this port runs at for `preferences`.
    public func grant(_ preferences: AudioPreferences) -> HardwareFormat {
        let rate = preferences.sampleRate.map(nearestRate) ?? defaultSampleRate
        let seconds = preferences.ioBufferDurationSeconds ?? defaultIOBufferDurationSeconds
        let frames = Self.nearestPowerOfTwo(seconds * Double(rate))
        return HardwareFormat(sampleRate: rate,
                              ioBufferFrames: min(max(frames, ioBufferFrameRange.lowerBound), ioBufferFrameRange.upperBound))
    }

    private func nearestRate(_ preferred: Int) -> Int {
        var best = supportedSampleRates[0]
        for rate in supportedSampleRates where abs(rate - preferred) <= abs(best - preferred) { best = rate }
        return best
    }

    /// The power of two nearest to `frames` (linear distance; a tie goes up), at least 1.
    static func nearestPowerOfTwo(_ frames: Double) -> Int {
        var lower = 1
        while Double(lower * 2) <= frames { lower *= 2 }
        let upper = lower * 2
        return frames - Double(lower) < Double(upper) - frames ? lower : upper
    }
}
