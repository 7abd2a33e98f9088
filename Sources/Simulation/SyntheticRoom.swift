import AudioCore
import Foundation

/// A seeded synthetic room impulse response: a direct path, a few early reflections and an
/// exponentially decaying diffuse tail whose level falls 60 dB in `rt60` — the usual
/// statistical room model. Normalised to unit energy, so with white noise the echo path's
/// `gain_db` alone sets the ERL.
public enum SyntheticRoom {
    public static func impulseResponse(rt60Milliseconds: Double, sampleRate: Int, seed: UInt64) -> [Float] {
        let rt60 = max(rt60Milliseconds, 10) / 1000
        let length = Int(min(rt60, 1.0) * Double(sampleRate))
        var random = SeededRandom(seed: seed)
        var response = [Float](repeating: 0, count: max(length, 1))
        response[0] = 1
        // Early reflections between 2 and 20 ms, each weaker than the direct path.
        for _ in 0..<6 {
            let at = Int(random.nextInt(in: Int64(sampleRate / 500)...Int64(sampleRate / 50)))
            if at < response.count { response[at] += random.nextSignedFloat() * 0.5 }
        }
        // Diffuse tail from 5 ms: amplitude decays as 10^(-3 t / rt60) (−60 dB at rt60).
        let tailStart = sampleRate / 200
        let decayPerSample = pow(10, -3 / (rt60 * Double(sampleRate)))
        var envelope = 0.3
        for n in tailStart..<response.count {
            response[n] += Float(envelope) * random.nextGaussian() * 0.3
            envelope *= decayPerSample
        }
        var energy: Double = 0
        for value in response { energy += Double(value) * Double(value) }
        let norm = Float(1 / energy.squareRoot())
        for n in response.indices { response[n] *= norm }
        return response
    }
}
