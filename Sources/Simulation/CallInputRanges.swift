import AudioCore
import Foundation

/// The ranges a scenario file's values are read in, for a call built in code: out of them (a
/// NaN level plays NaN, a negative filter length runs a canceller the report calls -10 ms long)
/// the call's initialiser throws `CallError.input`, naming the field, as it does for the echo
/// path (`EchoPathSettings.validate`).
enum CallInputRanges {
    static func check(_ name: String, _ value: Double, _ range: ClosedRange<Double>) throws {
        guard value.isFinite && range.contains(value) else {
            let g = { (x: Double) in String(format: "%g", x) }
            throw CallError.input("\(name) \(g(value)) is out of range \(g(range.lowerBound))…\(g(range.upperBound))")
        }
    }
}

extension CallWorld {
    /// The far end's, the near end's and the noise's generator settings, in the ranges
    /// `ScenarioLoader` reads them in.
    func validateSignals() throws {
        for (name, source) in [("far end", farEnd), ("near end", nearEnd)] {
            guard case .generator(let kind, _)? = source else { continue }
            switch kind {
            case .whiteNoise(let level), .musicLike(let level):
                try CallInputRanges.check("\(name): levelDBFS", level, -120...0)
            case .tone(let frequency, let level):
                try CallInputRanges.check("\(name): levelDBFS", level, -120...0)
                try CallInputRanges.check("\(name): frequency", frequency, 1...24_000)
            case .speechLike(let level, let pitch):
                try CallInputRanges.check("\(name): levelDBFS", level, -120...0)
                try CallInputRanges.check("\(name): pitchHz", pitch, 50...500)
            case .silence: break
            }
        }
        if let noise { try CallInputRanges.check("noise: levelDBFS", noise.levelDBFS, -200...0) }
    }
}

extension VoiceProcessingSettings {
    /// The canceller's filter length, in the range a scenario's `aec.filter_ms` is read in, and
    /// only for speexdsp, as a scenario file is read: another backend took it and ran as if it
    /// had none, its report silent on it.
    func validate() throws {
        guard let filterMilliseconds else { return }
        try CallInputRanges.check("voice processing: filterMilliseconds", Double(filterMilliseconds), 10...2000)
        guard backend == .speex else {
            throw CallError.input("voice processing: filterMilliseconds sets speexdsp's filter length; " + (backend.plugin != nil
                ? "EchoLab sets none for plugin \(backend.name) (a plugin takes its settings in its options)"
                : "backend \(backend.name) keeps a filter length of its own, which EchoLab does not set"))
        }
    }
}
