// CustomDevicesExample — PlanetKit's custom audio device guide, "Example 1" (AudioFileMicrophone),
// "Example 2" (AudioFileRecorder) and "Case 1" (AEC off while a file is the mic), written against
// EchoLab's simulated SDK so an app engineer can recognise their own code.
//
// Usage: CustomDevicesExample [--far-end PATH] [--mic-file PATH] [--out DIR]
// Without arguments it writes its own short input WAVs to a temporary folder.
//
// Where this differs from the guide, and why:
// - No AVFoundation on Linux: `AVAudioFile` for reading is `AudioFileStream` (libsndfile +
//   libsamplerate: any rate and channel count in, 48 kHz mono Float32 out); `AVAudioFile` for
//   writing is `SoundFileWriter`, whose `finish()` must be called (the guide's `audioFile = nil`).
// - No Dispatch: the 20 ms `DispatchSource.makeTimerSource` + `schedule(deadline:repeating:leeway:)`
//   + `resume()` is a `RepeatingTimer` on the call's virtual-clock scheduler + `setEventHandler`
//   + `schedule()`. Nothing runs in real time: `call.run(for:)` advances the clock, so six seconds
//   of call take a fraction of a second and every run gives the same samples.
// - No raw pointers: `PlanetKitAudioBuffer` (an `UnsafeMutableRawPointer` + `bufferSize`) is a
//   `PCMBuffer<Float>`, allocated once and reused every 20 ms — the guide's own advice ("memory
//   allocation and deallocation should be minimized") rather than its allocate/deallocate per frame.
// - `PlanetKitAudioManager.shared` is `call.audioManager`: one audio manager per simulated call.

import AudioCore
import AudioInterop
import Foundation
import Simulation
import VirtualTime

// MARK: - Example 1: custom audio source — playing an audio file

final class AudioFileMicrophone: CustomMic {
    private var audioFile: AudioFileStream?
    private var audioTimer: RepeatingTimer?
    /// The guide's DispatchQueue: timers run on the call's scheduler instead.
    private let scheduler: Scheduler
    /// 20 ms at 48 kHz, mono Float32 (the guide's "Key considerations"), reused for every frame.
    private var audioBuffer = PCMBuffer<Float>(frameCount: 960, sampleRate: 48_000, channelCount: 1)

    init(scheduler: Scheduler) {
        self.scheduler = scheduler
        super.init()
    }

    /// A file, not a real microphone: no echo can reach it (the reason for Case 1's AEC setting).
    override var isRealMicrophone: Bool { false }
    override var deviceName: String { "AudioFileMicrophone" }

    func playFile(url: URL) {
        do {
            // AVAudioFile(forReading:) → AudioFileStream: converts to 48 kHz mono while reading
            // (medium sinc quality: ample for a voice path, and a third of the cost of the best).
            audioFile = try AudioFileStream(path: url.path, targetRate: 48_000, selection: .downmix, quality: .medium)
            startSendingAudio()
        } catch {
            print("Failed to load audio file: \(error)")
        }
    }

    private func startSendingAudio() {
        // Send audio every 20ms. `.capture` orders same-instant work like an audio thread would:
        // device switches, then capture pushes, then the engine's 10 ms tick.
        audioTimer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(20), leeway: .milliseconds(2), phase: .capture)
        audioTimer?.setEventHandler { [weak self] in
            if let audioBuffer = self?.readNextAudioFrame() {
                self?.sendAudio(audioBuffer)
            }
        }
        audioTimer?.schedule()      // schedule(deadline: .now(), repeating: .milliseconds(20), leeway: .milliseconds(2)) + resume()
    }

    private func readNextAudioFrame() -> PCMBuffer<Float>? {
        guard let audioFile = audioFile else { return nil }

        // 20ms worth of frames (960 frames at 48kHz), into the buffer allocated once in init.
        // Past the end of the file the frame is zero-padded: the mic keeps its cadence with silence.
        do {
            try audioFile.read(into: &audioBuffer.samples, frames: audioBuffer.frameCount)
        } catch {
            print("Failed to read audio file: \(error)")
            stopPlayback()
            return nil
        }
        return audioBuffer          // shares storage; no copy unless the caller keeps it
    }

    func stopPlayback() {
        audioTimer?.cancel()
        audioTimer = nil
    }

    deinit {
        audioTimer?.cancel()
        audioFile = nil
    }
}

// MARK: - Example 2: custom audio sink — audio recording

final class AudioFileRecorder: CustomSpeaker {
    private var audioFile: SoundFileWriter?
    private var isRecording = false
    private var audioTimer: RepeatingTimer?
    private let scheduler: Scheduler
    /// The guide's AVAudioPCMBuffer: `frameCapacity` frames allocated once; `frameCount` plays
    /// the role of `frameLength` (set from playAudio's byte count after every pull).
    private let frameCapacity = 960
    private var pcmBuffer = PCMBuffer<Float>(frameCount: 960, sampleRate: 48_000, channelCount: 1)
    /// What playAudio reported as call audio, in bytes (the example's summary prints it).
    private(set) var bytesReceived = 0
    private(set) var recordingURL: URL?

    init(scheduler: Scheduler) {
        self.scheduler = scheduler
        super.init()
    }

    /// A recorder plays nothing into the room (the other reason for Case 1's AEC setting).
    override var drivesLoudspeaker: Bool { false }
    override var deviceName: String { "AudioFileRecorder" }

    func startRecording(to url: URL) {
        do {
            // Setup recording file: 48 kHz mono Float32 WAV.
            audioFile = try SoundFileWriter(path: url.path, sampleRate: 48_000, channelCount: 1, encoding: .float32)
            recordingURL = url
            isRecording = true

            // Start periodic audio data collection (`.render`: pulls come before the engine's tick).
            audioTimer = RepeatingTimer(scheduler: scheduler, period: .milliseconds(20), leeway: .milliseconds(2), phase: .render)
            audioTimer?.setEventHandler { [weak self] in
                self?.handleReceivedAudio()
            }
            audioTimer?.schedule()

            print("Recording started: \(url.path)")
        } catch {
            print("Failed to create recording file: \(error)")
        }
    }

    private func handleReceivedAudio() {
        // Get audio data from the call
        if let pcmBuffer = playAudio() {
            // Save to file if recording
            if isRecording, let audioFile = audioFile {
                do {
                    try audioFile.write(pcmBuffer.samples, frames: pcmBuffer.frameCount)
                } catch {
                    print("Failed to write file: \(error)")
                }
            }
            // The guide prints "Audio received: N frames" here; 50 lines a second is too chatty.
        }
    }

    private func playAudio() -> PCMBuffer<Float>? {
        // Pull into the whole capacity, then trim to what holds call audio, as the guide does with
        // `pcmBuffer.frameLength = AVAudioFrameCount(sampleBufferOutLen / Int32(MemoryLayout<Float>.size))`.
        pcmBuffer.frameCount = frameCapacity
        let sampleBufferOutLen = playAudio(into: &pcmBuffer)         // bytes, PlanetKit's meaning
        bytesReceived += sampleBufferOutLen
        pcmBuffer.frameCount = sampleBufferOutLen / MemoryLayout<Float>.size
        return pcmBuffer
    }

    func stopRecording() {
        isRecording = false
        audioTimer?.cancel()
        audioTimer = nil
        // `audioFile = nil` closes an AVAudioFile; SoundFileWriter needs finish() to keep the file
        // (dropping it unfinished removes the partial file, so a crash never leaves half a WAV).
        do {
            try audioFile?.finish()
        } catch {
            print("Failed to close the recording: \(error)")
        }
        audioFile = nil
        print("Recording stopped")
    }

    deinit {
        audioTimer?.cancel()
        audioFile = nil
    }
}

// MARK: - The app

struct Options {
    var farEnd: String?
    var micFile: String?
    var out: String?
}

func parseArguments(_ arguments: [String]) -> Options? {
    var options = Options()
    var rest = arguments.dropFirst()
    while let flag = rest.popFirst() {
        guard let value = rest.popFirst() else { return nil }
        switch flag {
        case "--far-end": options.farEnd = value
        case "--mic-file": options.micFile = value
        case "--out": options.out = value
        default: return nil
        }
    }
    return options
}

/// Short input WAVs when none are given: a speech-like peer at 48 kHz, and a music-like mic file
/// at 44.1 kHz 16-bit (the file microphone converts it to the recommended 48 kHz mono Float32).
func makeInputs(in folder: URL) throws -> (farEnd: String, micFile: String) {
    let farEnd = folder.appendingPathComponent("far_end.wav").path
    let micFile = folder.appendingPathComponent("mic_file.wav").path
    try SoundFileWriter.write(SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: 48_000, count: 48_000 * 6, seed: 1),
                              to: farEnd, sampleRate: 48_000)
    try SoundFileWriter.write(SignalGenerator.render(.musicLike(levelDBFS: -18), sampleRate: 44_100, count: 44_100 * 3, seed: 2),
                              to: micFile, sampleRate: 44_100, encoding: .pcm16)
    return (farEnd, micFile)
}

func runExample(_ options: Options) throws {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("CustomDevicesExample-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    var farEndPath = options.farEnd, micFilePath = options.micFile
    if farEndPath == nil || micFilePath == nil {
        let made = try makeInputs(in: scratch)
        farEndPath = farEndPath ?? made.farEnd
        micFilePath = micFilePath ?? made.micFile
    }
    let outFolder = URL(fileURLWithPath: options.out ?? scratch.path)
    // Generated inputs are scratch: remove them at the end (the recording stays, in --out or here).
    defer {
        if options.out != nil { try? FileManager.default.removeItem(at: scratch) }
        else { for name in ["far_end.wav", "mic_file.wav"] { try? FileManager.default.removeItem(at: scratch.appendingPathComponent(name)) } }
    }
    try FileManager.default.createDirectory(at: outFolder, withIntermediateDirectories: true)

    // The call: the peer from a file, quiet room noise at the physical mic, the loudspeaker 40 ms
    // and −6 dB away from the mic. (While the recorder is the speaker nothing is played into the
    // room, so no echo reaches the mic: Case 1 of the guide.)
    let world = CallWorld(farEnd: .file(path: farEndPath!, channel: .downmix),
                          nearEnd: .generator(.whiteNoise(levelDBFS: -40), seed: 5),
                          echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6))
    let call = try SimulatedCall(world: world, recordsTaps: false)

    // Record the peer for the whole call (Example 2).
    let recorder = AudioFileRecorder(scheduler: call.scheduler)
    call.audioManager.setCustomSpeaker(recorder)
    recorder.startRecording(to: outFolder.appendingPathComponent("call_recording.wav"))

    try call.start()
    try call.run(for: .seconds(2))                          // 2 s on the default mic

    // enableCustomMic() (Case 1): the file becomes the mic, AEC off.
    let customMic = AudioFileMicrophone(scheduler: call.scheduler)
    call.audioManager.setCustomMic(customMic)
    customMic.playFile(url: URL(fileURLWithPath: micFilePath!))
    try call.sendVoiceProcessor.setAcousticEchoCanceller(mode: .disabled)   // PlanetKit: completion { success in … }
    try call.run(for: .seconds(3))

    // disableCustomMic(): back to the microphone, AEC back on.
    customMic.stopPlayback()
    call.audioManager.resetCustomMicToDefaultMic()
    try call.sendVoiceProcessor.setAcousticEchoCanceller(mode: .intensityRecommended)
    try call.run(for: .seconds(1))

    // Cleanup after call ends.
    recorder.stopRecording()
    call.audioManager.resetCustomSpeakerToDefaultSpeaker()
    let counters = call.end()

    let recordedFrames = recorder.bytesReceived / MemoryLayout<Float>.size
    print("ticks: \(counters.ticks) engine ticks (\(counters.ticks * 10) ms)")
    print("underruns: \(counters.underruns) (uplink \(counters.uplink.underruns), playout \(counters.playout.underruns))")
    print("bytes recorded: \(recorder.bytesReceived) (\(recordedFrames) frames, \(Double(recordedFrames) / 48_000) s)")
    for event in call.events where event.kind == "capture" {
        print("at \(Double(event.frame) / 48_000) s: \(event.detail)")
    }
    print("recording: \(recorder.recordingURL?.path ?? "none")")
}

guard let options = parseArguments(CommandLine.arguments) else {
    print("usage: CustomDevicesExample [--far-end PATH] [--mic-file PATH] [--out DIR]")
    exit(2)
}
do {
    try runExample(options)
} catch {
    print("error: \(error)")
    exit(1)
}
