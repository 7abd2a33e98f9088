import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import ScenarioFiles
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

    /// Writes EchoLab's own shipped inputs and scenarios into `inputs/` and `scenarios/` under
    /// `directory`. A file already there under one of their names is left alone if it holds
    /// exactly those bytes; one that differs (a user's own scenario of that name) stops it before
    /// anything is written (`Conflict`), so nobody's file is replaced unasked.
    /// Returns how many files were written and how many already held their bytes.
    @discardableResult
    public static func generate(into directory: String) throws -> (written: Int, unchanged: Int) {
        let files = try shippedFiles(under: directory)
        for (path, bytes) in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue || FileManager.default.contents(atPath: path) != bytes { throw Conflict(path: path) }
        }
        try AtomicFile.prepareDirectory((directory as NSString).appendingPathComponent("inputs"))
        try AtomicFile.prepareDirectory((directory as NSString).appendingPathComponent("scenarios"))
        var written = 0
        for (path, bytes) in files where FileManager.default.contents(atPath: path) != bytes {
            try AtomicFile.write(bytes, to: path)
            written += 1
        }
        return (written, files.count - written)
    }

    /// A file of a shipped name that holds something else.
    public struct Conflict: DescribedError {
        public let path: String
        public var description: String {
            "\(path): exists and differs from EchoLab's shipped file of that name; move it away, or give --vectors another folder"
        }
    }

    /// Every shipped file (its path under `directory`, its bytes), inputs first. The WAVs are
    /// rendered through a scratch folder, removed afterwards: `SoundFileWriter` writes files.
    static func shippedFiles(under directory: String) throws -> [(path: String, bytes: Data)] {
        let inputsDirectory = (directory as NSString).appendingPathComponent("inputs")
        let scenariosDirectory = (directory as NSString).appendingPathComponent("scenarios")
        let scratch = TemporaryFolder.uniquePath(prefix: "echolab-vectors")
        try AtomicFile.prepareDirectory(scratch)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        func rendered(_ name: String, _ write: (String) throws -> Void) throws -> (String, Data) {
            let path = (scratch as NSString).appendingPathComponent(name)
            try write(path)
            return ((inputsDirectory as NSString).appendingPathComponent(name), try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        var files: [(path: String, bytes: Data)] = []
        for input in inputs {
            let count = Int(input.seconds * Double(input.sampleRate))
            var samples = SignalGenerator.render(input.kind, sampleRate: input.sampleRate, count: count, seed: input.seed)
            if let active = input.active { applyWindow(&samples, active: active, sampleRate: input.sampleRate) }
            files.append(try rendered(input.name) { try SoundFileWriter.write(samples, to: $0, sampleRate: input.sampleRate, encoding: input.encoding) })
        }
        let room = SyntheticRoom.impulseResponse(rt60Milliseconds: 250, sampleRate: 48_000, seed: 11)
        files.append(try rendered("room_rir_48k.wav") { try SoundFileWriter.write(room, to: $0, sampleRate: 48_000) })
        for scenario in scenarios {
            files.append(((scenariosDirectory as NSString).appendingPathComponent("\(scenario.name).json"),
                          Data(ScenarioEncoder.text(scenario, relativeTo: folder).utf8)))
        }
        return files
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

    /// Typed scenarios, encoded by `ScenarioEncoder` (the loader's own format). Paths are given
    /// under this stand-in folder so that they encode as `../inputs/…`, relative to the file.
    static let folder = "/vectors/scenarios"
    static func input(_ name: String) -> String { "\(folder)/../inputs/\(name)" }

    static let whiteNoise = SignalSource.generator(.whiteNoise(levelDBFS: -20), seed: 1)
    static let farEndSpeech = SignalSource.file(path: input("farend_speech_16k.wav"), channel: .monoOnly)
    static let nearEndSpeech = SignalSource.file(path: input("nearend_speech_16k.wav"), channel: .monoOnly)
    static let fileMic = SignalSource.file(path: input("file_mic_44k.wav"), channel: .monoOnly)
    static let music = SignalSource.file(path: input("music_22k.wav"), channel: .monoOnly)
    static let micNoise = NoiseSettings(levelDBFS: -60, seed: 7)
    static let roomPath = EchoPathSettings(delayMilliseconds: 60, gainDB: -10,
                                           impulseResponse: .file(path: input("room_rir_48k.wav"), channel: .monoOnly))
    static let delayPath = EchoPathSettings(delayMilliseconds: 40, gainDB: -6)

    static func aec(_ mode: EchoCancellerMode, filter: Int? = nil, backend: EchoCancellerBackend = .speex) -> VoiceProcessingSettings {
        VoiceProcessingSettings(echoCancellerMode: mode, backend: backend, filterMilliseconds: filter)
    }

    static func options(_ change: (inout AppDeviceOptions) -> Void) -> AppDeviceOptions {
        var options = AppDeviceOptions()
        change(&options)
        return options
    }

    static func speechCall(_ name: String, aecMode: EchoCancellerMode, change: (inout Scenario) -> Void = { _ in }) -> Scenario {
        var scenario = Scenario(name: name, farEnd: farEndSpeech, nearEnd: nearEndSpeech, noise: micNoise, echoPath: roomPath,
                                voiceProcessing: aec(aecMode), duration: .seconds(10))
        change(&scenario)
        return scenario
    }

    static var scenarios: [Scenario] {
        [
            Scenario(name: "fst-delay40-noaec", farEnd: whiteNoise, noise: micNoise, echoPath: delayPath,
                     voiceProcessing: aec(.disabled), duration: .seconds(6)),
            Scenario(name: "fst-delay40-speex", farEnd: whiteNoise, noise: micNoise, echoPath: delayPath,
                     voiceProcessing: aec(.intensityRecommended, filter: 200), duration: .seconds(10)),
            Scenario(name: "nearend-only", nearEnd: nearEndSpeech, noise: micNoise, echoPath: roomPath,
                     voiceProcessing: aec(.intensityRecommended), duration: .seconds(6)),
            speechCall("speech-room-doubletalk", aecMode: .intensityRecommended),
            speechCall("speech-room-min", aecMode: .intensityMin),
            // EchoLab's own canceller, so its bits are pinned like speexdsp's.
            speechCall("speech-room-echolab", aecMode: .intensityRecommended) {
                $0.voiceProcessing = aec(.intensityRecommended, backend: .echolab)
            },
            Scenario(name: "speech-clipped-max", farEnd: farEndSpeech, noise: micNoise,
                     echoPath: EchoPathSettings(delayMilliseconds: 30, gainDB: -3, impulseResponse: .synthetic(rt60Milliseconds: 400, seed: 3),
                                                clipDBFS: -12),
                     voiceProcessing: aec(.intensityMax), duration: .seconds(10)),
            speechCall("speech-adaptive-ns-agc", aecMode: .intensityAdaptive) {
                $0.voiceProcessing.noiseSuppressor = .enabled
                $0.voiceProcessing.autoGainControl = .software
            },
            Scenario(name: "file-mic-aec-off", farEnd: farEndSpeech, noise: micNoise, echoPath: roomPath, voiceProcessing: aec(.disabled),
                     duration: .seconds(6),
                     mic: .file(fileMic, loops: false, options: options { $0.sampleRate = 44_100; $0.sampleType = .int16 })),
            Scenario(name: "file-mic-aec-on", farEnd: farEndSpeech, noise: micNoise, echoPath: roomPath,
                     voiceProcessing: aec(.intensityRecommended), duration: .seconds(6),
                     mic: .file(fileMic, loops: false, options: AppDeviceOptions())),
            Scenario(name: "generator-mic", farEnd: farEndSpeech, echoPath: roomPath, voiceProcessing: aec(.disabled), duration: .seconds(4),
                     mic: .generator(.whiteNoise(levelDBFS: -26), seed: 9, options: options { $0.periodMilliseconds = 10 })),
            speechCall("recording-speaker", aecMode: .disabled) {
                $0.speaker = .recording(fileName: "peer.wav", options: AppDeviceOptions())
            },
            speechCall("mixing-speaker-no-reference", aecMode: .intensityRecommended) {
                $0.speaker = .mixing(music: music, musicGainDB: 0, putsReference: false, options: options { $0.periodMilliseconds = 50 })
            },
            speechCall("mixing-speaker-with-reference", aecMode: .intensityRecommended) {
                $0.speaker = .mixing(music: music, musicGainDB: 0, putsReference: true, options: options { $0.periodMilliseconds = 50 })
            },
            speechCall("passthrough-jittery", aecMode: .intensityRecommended) {
                $0.mic = .passThrough(options: options {
                    $0.jitterMilliseconds = 2; $0.jitterSeed = 5; $0.sampleRate = 44_100; $0.channelCount = 2; $0.sampleType = .int16
                })
                $0.speaker = .passThrough(putsReference: true, options: options {
                    $0.periodMilliseconds = 50; $0.jitterMilliseconds = 2; $0.jitterSeed = 6
                })
            },
            speechCall("device-transitions", aecMode: .intensityRecommended) {
                $0.timeline = [
                    TimelineEvent(at: .milliseconds(2000), action: .setCustomMic(.file(fileMic, loops: false, options: AppDeviceOptions()))),
                    TimelineEvent(at: .milliseconds(2000), action: .setEchoCanceller(.disabled)),
                    TimelineEvent(at: .milliseconds(4500), action: .resetCustomMic),
                    TimelineEvent(at: .milliseconds(4500), action: .setEchoCanceller(.intensityRecommended)),
                    TimelineEvent(at: .milliseconds(6000), action: .setCustomSpeaker(
                        .mixing(music: music, musicGainDB: 0, putsReference: true, options: AppDeviceOptions()))),
                    TimelineEvent(at: .milliseconds(8000), action: .mute),
                    TimelineEvent(at: .milliseconds(8500), action: .unmute),
                ]
            },
        ] + hardwareScenarios
    }
}
