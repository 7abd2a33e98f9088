import Foundation

/// Seeded test signals: what the vectors are made of and what a generator device plays.
/// Every signal is a pure function of its parameters and seed, so vectors can be recreated
/// bit for bit.
public enum SignalKind: Hashable, Sendable, CustomStringConvertible {
    /// Gaussian-like white noise at `levelDBFS` RMS.
    case whiteNoise(levelDBFS: Double)
    /// A sine at `frequency` Hz with RMS `levelDBFS`.
    case tone(frequency: Double, levelDBFS: Double)
    /// Voiced, syllable-like bursts (a harmonic series on a slowly gliding pitch, 4 Hz syllable
    /// envelope, pauses): stands in for a talker without shipping recordings.
    case speechLike(levelDBFS: Double, pitchHz: Double)
    /// Music-like: a chord of three sustained tones with soft attacks, band-limited to 200 Hz – 2 kHz.
    case musicLike(levelDBFS: Double)
    case silence

    public var description: String {
        switch self {
        case .whiteNoise(let level): "white noise at \(level) dBFS"
        case .tone(let f, let level): "\(f) Hz tone at \(level) dBFS"
        case .speechLike(let level, let pitch): "speech-like at \(level) dBFS, pitch \(pitch) Hz"
        case .musicLike(let level): "music-like at \(level) dBFS"
        case .silence: "silence"
        }
    }
}

/// A streaming generator: `fill` continues where the previous call stopped.
public struct SignalGenerator: Sendable {
    public let kind: SignalKind
    public let sampleRate: Int
    private var random: SeededRandom
    private var position: Int64 = 0

    public init(kind: SignalKind, sampleRate: Int, seed: UInt64) {
        self.kind = kind
        self.sampleRate = sampleRate
        self.random = SeededRandom(seed: seed)
    }

    public mutating func fill(_ buffer: inout [Float], at offset: Int = 0, count: Int) {
        let rate = Double(sampleRate)
        switch kind {
        case .silence:
            for i in 0..<count { buffer[offset + i] = 0 }
        case .whiteNoise(let level):
            let rms = Float(Decibels.amplitude(fromDB: level))
            // A local copy of the generator's state stays in registers; stepped through `self`
            // it went to memory and back on every sample (the call's noise took 20 % of a tick).
            var local = random
            for i in 0..<count { buffer[offset + i] = local.nextGaussian() * rms }
            random = local
        case .tone(let frequency, let level):
            let amplitude = Decibels.amplitude(fromDB: level) * 2.0.squareRoot()
            for i in 0..<count {
                let t = Double(position + Int64(i)) / rate
                buffer[offset + i] = Float(amplitude * sin(Self.turns(frequency * t)))
            }
        case .speechLike(let level, let pitch):
            // Mean square of the harmonic stack while voiced ≈ 0.5·Σ(1/h²) ≈ 0.77, active ~60 % of the
            // time; scale so the long-term RMS lands near `level`.
            let amplitude = Decibels.amplitude(fromDB: level) / (0.77 * 0.6).squareRoot()
            for i in 0..<count {
                let n = position + Int64(i)
                let t = Double(n) / rate
                // 4 syllables a second and a pause every 7.5 s, never quite silent: real speech has
                // a breath and room floor (−34 dB), and exact digital zeros would read as dropouts.
                let syllable = max(0.02, sin(Self.turns(4 * t)))
                let phrase = (Int(t / 1.5) % 5 == 4) ? 0.02 : 1.0
                let f0 = pitch * (1 + 0.08 * sin(Self.turns(0.7 * t)))
                var voiced = 0.0
                for h in 1...6 {
                    let fh = f0 * Double(h)
                    if fh < rate / 2 { voiced += sin(Self.turns(fh * t) + Double(h)) / Double(h) }
                }
                let breath = Double(random.nextGaussian()) * 0.05
                buffer[offset + i] = Float(amplitude * syllable * phrase * (voiced + breath))
            }
        case .musicLike(let level):
            let amplitude = Decibels.amplitude(fromDB: level) * (2.0 / 3.0).squareRoot()
            let chord = [220.0, 277.18, 329.63, 440.0, 554.37, 659.26]
            for i in 0..<count {
                let t = Double(position + Int64(i)) / rate
                let bar = t.truncatingRemainder(dividingBy: 2)
                let envelope = min(1, bar * 10) * (0.6 + 0.4 * cos(Double.pi * bar))
                let shift = Int(t / 2) % 2 == 0 ? 1.0 : 1.122   // alternate chords every 2 s
                var sum = 0.0
                for (k, f) in chord.enumerated() { sum += sin(Self.turns(f * shift * t) + Double(k)) * (k < 3 ? 1 : 0.5) }
                buffer[offset + i] = Float(amplitude * envelope * sum / 2)
            }
        }
        position += Int64(count)
    }

    /// The phase of `cycles` whole and partial turns, in radians, wrapped to [0, 2π): the
    /// arguments of a long call's sines would otherwise grow without bound (10⁸ radians after a
    /// day), where libm's argument reduction takes its slow path and the phase loses precision.
    @inline(__always)
    static func turns(_ cycles: Double) -> Double {
        2 * Double.pi * (cycles - cycles.rounded(.down))
    }

    /// A whole buffer of `count` samples.
    public static func render(_ kind: SignalKind, sampleRate: Int, count: Int, seed: UInt64) -> [Float] {
        var generator = SignalGenerator(kind: kind, sampleRate: sampleRate, seed: seed)
        var out = [Float](repeating: 0, count: count)
        generator.fill(&out, count: count)
        return out
    }
}
