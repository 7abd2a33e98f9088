import AudioCore
import AudioInterop
import Foundation
import Simulation

/// The default corpus in `vectors/`: seeded input signals (recreated bit for bit by
/// `echolab vectors generate`) and one scenario per use case — the analytic cases first, then
/// speech in a room, then each custom device of the reference documents and their transitions.
public enum VectorCorpus {
    /// Inputs: (file name, signal, rate, seconds, encoding, seed, active window in seconds or nil).
    struct Input {
        let name: String
        let kind: SignalKind
        let sampleRate: Int
        let seconds: Double
        let encoding: SoundFileEncoding
        let seed: UInt64
        var active: ClosedRange<Double>? = nil
    }

    static let inputs: [Input] = [
        Input(name: "farend_speech_16k.wav", kind: .speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: 16_000, seconds: 10, encoding: .pcm16, seed: 101),
        Input(name: "nearend_speech_16k.wav", kind: .speechLike(levelDBFS: -24, pitchHz: 210), sampleRate: 16_000, seconds: 10, encoding: .pcm16, seed: 102, active: 4.0...6.5),
        Input(name: "file_mic_44k.wav", kind: .speechLike(levelDBFS: -18, pitchHz: 175), sampleRate: 44_100, seconds: 6, encoding: .pcm16, seed: 103),
        Input(name: "music_22k.wav", kind: .musicLike(levelDBFS: -22), sampleRate: 22_050, seconds: 4, encoding: .pcm16, seed: 104),
    ]

    /// Writes `inputs/` and `scenarios/` under `directory`.
    public static func generate(into directory: String) throws {
        let inputsDirectory = (directory as NSString).appendingPathComponent("inputs")
        let scenariosDirectory = (directory as NSString).appendingPathComponent("scenarios")
        try AtomicFile.prepareDirectory(inputsDirectory)
        try AtomicFile.prepareDirectory(scenariosDirectory)
        for input in inputs {
            let count = Int(input.seconds * Double(input.sampleRate))
            var samples = SignalGenerator.render(input.kind, sampleRate: input.sampleRate, count: count, seed: input.seed)
            if let active = input.active { applyWindow(&samples, active: active, sampleRate: input.sampleRate) }
            try SoundFileWriter.write(samples, to: (inputsDirectory as NSString).appendingPathComponent(input.name),
                                      sampleRate: input.sampleRate, encoding: input.encoding)
        }
        let room = SyntheticRoom.impulseResponse(rt60Milliseconds: 250, sampleRate: 48_000, seed: 11)
        try SoundFileWriter.write(room, to: (inputsDirectory as NSString).appendingPathComponent("room_rir_48k.wav"), sampleRate: 48_000)
        for (name, scenario) in scenarios {
            try AtomicFile.write(scenario.canonicalText(), to: (scenariosDirectory as NSString).appendingPathComponent("\(name).json"))
        }
    }

    /// Silence outside `active`, with 10 ms fades, so the near end talks only there (double talk).
    static func applyWindow(_ samples: inout [Float], active: ClosedRange<Double>, sampleRate: Int) {
        let start = Int(active.lowerBound * Double(sampleRate)), end = Int(active.upperBound * Double(sampleRate))
        let fade = sampleRate / 100
        for i in samples.indices {
            let gain: Float
            if i < start || i >= end { gain = 0 }
            else if i < start + fade { gain = Float(i - start) / Float(fade) }
            else if i >= end - fade { gain = Float(end - i) / Float(fade) }
            else { gain = 1 }
            samples[i] *= gain
        }
    }

    // MARK: - Scenarios

    private static func object(_ pairs: [String: JSONValue]) -> JSONValue { .object(pairs) }
    private static func n(_ value: Double) -> JSONValue { .number(value) }
    private static func s(_ value: String) -> JSONValue { .string(value) }

    static let whiteNoise = object(["generator": s("white_noise"), "level_dbfs": n(-20), "seed": n(1)])
    static let farEndSpeech = s("../inputs/farend_speech_16k.wav")
    static let nearEndSpeech = s("../inputs/nearend_speech_16k.wav")
    static let micNoise = object(["level_dbfs": n(-60), "seed": n(7)])
    static let roomPath = object(["delay_ms": n(60), "gain_db": n(-10), "impulse_response": s("../inputs/room_rir_48k.wav")])
    static func aec(_ mode: String) -> JSONValue { object(["mode": s(mode), "backend": s("speex")]) }

    static func speechCall(_ name: String, aecMode: String, extra: [String: JSONValue] = [:]) -> JSONValue {
        var fields: [String: JSONValue] = ["name": s(name), "far_end": farEndSpeech, "near_end": nearEndSpeech,
                                           "noise": micNoise, "echo_path": roomPath, "aec": aec(aecMode), "duration_s": n(10)]
        for (key, value) in extra { fields[key] = value }
        return object(fields)
    }

    static var scenarios: [(String, JSONValue)] {
        [
            ("fst-delay40-noaec", object(["name": s("fst-delay40-noaec"), "far_end": whiteNoise, "noise": micNoise,
                                          "echo_path": object(["delay_ms": n(40), "gain_db": n(-6)]),
                                          "aec": aec("disabled"), "duration_s": n(6)])),
            ("fst-delay40-speex", object(["name": s("fst-delay40-speex"), "far_end": whiteNoise, "noise": micNoise,
                                          "echo_path": object(["delay_ms": n(40), "gain_db": n(-6)]),
                                          "aec": object(["mode": s("intensityRecommended"), "backend": s("speex"), "filter_ms": n(200)]),
                                          "duration_s": n(10)])),
            ("nearend-only", object(["name": s("nearend-only"), "near_end": nearEndSpeech, "noise": micNoise,
                                     "echo_path": roomPath, "aec": aec("intensityRecommended"), "duration_s": n(6)])),
            ("speech-room-doubletalk", speechCall("speech-room-doubletalk", aecMode: "intensityRecommended")),
            ("speech-room-min", speechCall("speech-room-min", aecMode: "intensityMin")),
            ("speech-clipped-max", object(["name": s("speech-clipped-max"), "far_end": farEndSpeech, "noise": micNoise,
                                           "echo_path": object(["delay_ms": n(30), "gain_db": n(-3), "clip_dbfs": n(-12),
                                                                "synthetic_room": object(["rt60_ms": n(400), "seed": n(3)])]),
                                           "aec": aec("intensityMax"), "duration_s": n(10)])),
            ("speech-adaptive-ns-agc", speechCall("speech-adaptive-ns-agc", aecMode: "intensityAdaptive",
                                                  extra: ["noise_suppressor": s("enabled"), "auto_gain_control": s("software")])),
            ("file-mic-aec-off", object(["name": s("file-mic-aec-off"), "far_end": farEndSpeech, "noise": micNoise, "echo_path": roomPath,
                                         "aec": aec("disabled"), "duration_s": n(6),
                                         "mic": object(["device": s("file"), "file": s("../inputs/file_mic_44k.wav"),
                                                        "sample_rate": n(44_100), "sample_type": s("int16")])])),
            ("file-mic-aec-on", object(["name": s("file-mic-aec-on"), "far_end": farEndSpeech, "noise": micNoise, "echo_path": roomPath,
                                        "aec": aec("intensityRecommended"), "duration_s": n(6),
                                        "mic": object(["device": s("file"), "file": s("../inputs/file_mic_44k.wav")])])),
            ("generator-mic", object(["name": s("generator-mic"), "far_end": farEndSpeech, "echo_path": roomPath,
                                      "aec": aec("disabled"), "duration_s": n(4),
                                      "mic": object(["device": s("generator"), "signal": s("white_noise"), "level_dbfs": n(-26), "seed": n(9),
                                                     "period_ms": n(10)])])),
            ("recording-speaker", speechCall("recording-speaker", aecMode: "disabled",
                                             extra: ["speaker": object(["device": s("recording"), "file": s("peer.wav")])])),
            ("mixing-speaker-no-reference", speechCall("mixing-speaker-no-reference", aecMode: "intensityRecommended",
                                                       extra: ["speaker": object(["device": s("mixing"), "music": s("../inputs/music_22k.wav"),
                                                                                  "aec_reference": .bool(false), "period_ms": n(50)])])),
            ("mixing-speaker-with-reference", speechCall("mixing-speaker-with-reference", aecMode: "intensityRecommended",
                                                         extra: ["speaker": object(["device": s("mixing"), "music": s("../inputs/music_22k.wav"),
                                                                                    "aec_reference": .bool(true), "period_ms": n(50)])])),
            ("passthrough-jittery", speechCall("passthrough-jittery", aecMode: "intensityRecommended",
                                               extra: ["mic": object(["device": s("passthrough"), "jitter_ms": n(2), "jitter_seed": n(5),
                                                                      "sample_rate": n(44_100), "channels": n(2), "sample_type": s("int16")]),
                                                       "speaker": object(["device": s("passthrough"), "aec_reference": .bool(true),
                                                                          "period_ms": n(50), "jitter_ms": n(2), "jitter_seed": n(6)])])),
            ("device-transitions", speechCall("device-transitions", aecMode: "intensityRecommended", extra: [
                "timeline": .array([
                    object(["at_ms": n(2000), "action": s("set_custom_mic"), "device": s("file"), "file": s("../inputs/file_mic_44k.wav")]),
                    object(["at_ms": n(2000), "action": s("set_aec"), "mode": s("disabled")]),
                    object(["at_ms": n(4500), "action": s("reset_custom_mic")]),
                    object(["at_ms": n(4500), "action": s("set_aec"), "mode": s("intensityRecommended")]),
                    object(["at_ms": n(6000), "action": s("set_custom_speaker"), "device": s("mixing"),
                            "music": s("../inputs/music_22k.wav"), "aec_reference": .bool(true)]),
                    object(["at_ms": n(8000), "action": s("mute")]),
                    object(["at_ms": n(8500), "action": s("unmute")]),
                ]),
            ])),
        ]
    }
}
