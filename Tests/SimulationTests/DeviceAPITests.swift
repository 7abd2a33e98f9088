import AudioCore
import AudioInterop
import Foundation
import VirtualTime
import XCTest
@testable import Simulation

/// The custom-device API surface: AudioManager errors, sendAudio conversions, playAudio's byte
/// counts, the user AEC reference.
final class DeviceAPITests: XCTestCase {
    private func makeCall(_ world: CallWorld = CallWorld(), aec: EchoCancellerMode = .disabled) throws -> SimulatedCall {
        try SimulatedCall(world: world, voiceProcessing: VoiceProcessingSettings(echoCancellerMode: aec))
    }

    // MARK: AudioManager

    /// A trial's mic heard `didStopCapturing` twice when the call ended with it in use (once from
    /// `end`, once from letting go of the devices): an app that releases its resources there
    /// released them twice. Each device hears start and stop once, whichever way it ends.
    func testADeviceHearsStartAndStopOnce() throws {
        final class CountingMic: CustomMic {
            var starts = 0, stops = 0
            override func didStartCapturing() { starts += 1 }
            override func didStopCapturing() { stops += 1 }
        }
        final class CountingSpeaker: CustomSpeaker {
            var starts = 0, stops = 0
            override func didStartPlaying() { starts += 1 }
            override func didStopPlaying() { stops += 1 }
        }
        for resetsFirst in [false, true] {
            let call = try makeCall()
            let mic = CountingMic(), speaker = CountingSpeaker()
            call.audioManager.setCustomMic(mic)
            call.audioManager.setCustomSpeaker(speaker)
            XCTAssertTrue(mic.isInUse, "in use from setCustomMic on: the app starts pushing")
            try call.start()
            try call.run(for: .milliseconds(200))
            if resetsFirst {
                call.audioManager.resetCustomMicToDefaultMic()
                call.audioManager.resetCustomSpeakerToDefaultSpeaker()
                try call.run(for: .milliseconds(100))
            }
            _ = call.end()
            XCTAssertEqual([mic.starts, mic.stops, speaker.starts, speaker.stops], [1, 1, 1, 1], "reset first: \(resetsFirst)")
            XCTAssertFalse(mic.isInUse || speaker.isInUse)
        }
    }

    /// A device belongs to one call: a mic or speaker another running call uses is refused,
    /// and the refusing call's events say so (both calls read the same pushes before: each
    /// call's uplink counted them, and nothing trapped). Once the first call ends, it is free.
    func testADeviceAnotherCallUsesIsRefused() throws {
        final class Mic: CustomMic {}
        final class Speaker: CustomSpeaker {}
        let first = try makeCall(), second = try makeCall()
        let mic = Mic(), speaker = Speaker()
        first.audioManager.setCustomMic(mic)
        first.audioManager.setCustomSpeaker(speaker)
        try first.start()
        try second.start()
        second.audioManager.setCustomMic(mic)
        second.audioManager.setCustomSpeaker(speaker)
        XCTAssertNil(second.audioManager.customMic)
        XCTAssertNil(second.audioManager.customSpeaker)
        XCTAssertTrue(first.audioManager.customMic === mic && first.audioManager.customSpeaker === speaker)
        XCTAssertEqual(second.events.filter { $0.kind == "device" }.map(\.detail), [
            "refused custom mic Mic: another call uses it (a device belongs to one call)",
            "refused custom speaker Speaker: another call uses it (a device belongs to one call)",
        ])
        _ = first.end()
        second.audioManager.setCustomMic(mic)
        second.audioManager.setCustomSpeaker(speaker)
        XCTAssertTrue(second.audioManager.customMic === mic && second.audioManager.customSpeaker === speaker)
        _ = second.end()
    }

    func testSelectingDevicesWhileCustomDevicesAreInUse() throws {
        let call = try makeCall()
        let manager = call.audioManager
        let usb = AudioDevice(name: "USB headset")
        manager.setCustomMic(CustomMic())
        XCTAssertThrowsError(try manager.selectMic(usb)) { error in
            XCTAssertEqual(error as? AudioManagerError, .customMicInUse)
            XCTAssertEqual((error as? AudioManagerError)?.code, 5004)
        }
        XCTAssertNoThrow(try manager.selectSpeaker(usb), "only the mic is custom")
        manager.setCustomSpeaker(CustomSpeaker())
        XCTAssertThrowsError(try manager.selectSpeaker(.builtInSpeaker)) { error in
            XCTAssertEqual(error as? AudioManagerError, .customSpeakerInUse)
            XCTAssertEqual((error as? AudioManagerError)?.code, 5005)
        }
        XCTAssertEqual(manager.selectedMic, .builtInMicrophone)
        manager.resetCustomMicToDefaultMic()
        manager.resetCustomSpeakerToDefaultSpeaker()
        XCTAssertNoThrow(try manager.selectMic(usb))
        XCTAssertNoThrow(try manager.selectSpeaker(.builtInSpeaker))
        XCTAssertEqual(manager.selectedMic, usb)
        XCTAssertEqual(manager.selectedSpeaker, .builtInSpeaker)
    }

    // MARK: sendAudio

    /// Int16 stereo at 44.1 kHz in odd-sized pieces (441, 1000, 7 frames …): converted to the
    /// engine's format with the tone's power and frequency intact.
    func testSendAudioInt16StereoOddSizes() throws {
        let call = try makeCall()
        let mic = CustomMic()
        call.audioManager.setCustomMic(mic)
        let level = -20.0
        let tone = SignalGenerator.render(.tone(frequency: 1000, levelDBFS: level), sampleRate: 44_100, count: 44_100 * 3, seed: 0)
        let sizes = [441, 1000, 7, 333, 1]
        var pushed = 0, piece = 0
        var buffers = sizes.map { PCMBuffer<Int16>(frameCount: $0, sampleRate: 44_100, channelCount: 2) }
        let timer = RepeatingTimer(scheduler: call.scheduler, period: .milliseconds(20), phase: .capture)
        timer.setEventHandler {
            // Push what is due by now (20 ms = 882 frames), in pieces of the odd sizes.
            let due = min(tone.count, Int((call.scheduler.now.nanoseconds + 20_000_000) * 44_100 / 1_000_000_000))
            while pushed < due {
                let k = piece % sizes.count
                let n = min(sizes[k], due - pushed)
                buffers[k].frameCount = n
                for i in 0..<n {
                    let s = Int16(engineValue: tone[pushed + i])
                    buffers[k].samples[2 * i] = s
                    buffers[k].samples[2 * i + 1] = s
                }
                XCTAssertTrue(mic.sendAudio(buffers[k]))
                pushed += n
                piece += 1
            }
        }
        timer.schedule()
        try call.start()
        try call.run(for: .seconds(2))
        let counters = call.end()
        XCTAssertEqual(mic.conditioner.rejectedFrames, 0)
        XCTAssertEqual(counters.uplink.underruns, 0)
        let sent = call.recording.sent
        let window = 48_000..<(48_000 + 4800 * 8)
        XCTAssertEqual(decibels(meanSquare(sent[window])), level, accuracy: 0.2, "power preserved")
        XCTAssertGreaterThan(goertzelShare(sent, in: window, frequency: 1000), 0.999)
        // The spectrum's peak is the 1 kHz bin (10 Hz bins).
        let fft = RealFFT(size: 4800)
        var power = [Float](repeating: 0, count: fft.binCount)
        let hann = (0..<4800).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / 4800)) }
        fft.powerSpectrum(sent, offset: window.lowerBound, window: hann, into: &power)
        XCTAssertEqual(power.indices.max { power[$0] < power[$1] }, 100)
    }

    /// `channelCount` is the app's to set: zeroed (or negative) it holds no frame, and the push is
    /// refused and counted as an unconvertible rate is (it divided by zero).
    func testABufferWhoseChannelCountWasZeroedIsRefusedAndCounted() throws {
        let call = try makeCall()
        let mic = CustomMic()
        call.audioManager.setCustomMic(mic)
        for channels in [0, -2] {
            var buffer = PCMBuffer<Float>(frameCount: 960)
            buffer.channelCount = channels
            _ = mic.sendAudio(buffer)
        }
        XCTAssertEqual(mic.conditioner.rejectedFrames, 2 * 960)
        XCTAssertTrue(mic.sendAudio(PCMBuffer<Float>(frameCount: 960)))
        XCTAssertEqual(mic.conditioner.rejectedFrames, 2 * 960, "a whole buffer after them is taken")
    }

    func testSendAudioOnAMicNotSelectedIsIgnoredAndCounted() throws {
        let call = try makeCall()
        let selected = CustomMic(), other = CustomMic()
        call.audioManager.setCustomMic(selected)
        XCTAssertFalse(other.sendAudio(PCMBuffer<Float>(frameCount: 960)))
        XCTAssertFalse(other.sendAudio(PCMBuffer<Int16>(frameCount: 441, sampleRate: 44_100, channelCount: 2)))
        XCTAssertEqual(other.ignoredFrames, 960 + 441)
        XCTAssertTrue(selected.sendAudio(PCMBuffer<Float>(frameCount: 960)))
        XCTAssertEqual(selected.ignoredFrames, 0)
        call.audioManager.resetCustomMicToDefaultMic()
        XCTAssertFalse(selected.sendAudio(PCMBuffer<Float>(frameCount: 100)), "after the reset it is ignored too")
        XCTAssertEqual(selected.ignoredFrames, 100)
        XCTAssertEqual(call.counters.ignoredFrames, 100, "the call counts the mics it knows")
    }

    // MARK: playAudio

    func testPlayAudioReturnsBytesOfCallAudio() throws {
        let call = try makeCall(CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 1)))
        let speaker = CustomSpeaker()
        var float = PCMBuffer<Float>(frameCount: 960)
        for i in float.samples.indices { float.samples[i] = 1 }
        XCTAssertEqual(speaker.playAudio(into: &float), 0, "not selected")
        XCTAssertTrue(float.samples.allSatisfy { $0 == 0 }, "and zeroed")

        call.audioManager.setCustomSpeaker(speaker)
        try call.start()
        try call.run(for: .milliseconds(100))              // 10 ticks: 4800 frames waiting
        XCTAssertEqual(speaker.playout.count, 4800)
        // Float32 mono: 4 bytes a frame.
        XCTAssertEqual(speaker.playAudio(into: &float), 960 * 4)
        XCTAssertFalse(float.samples.allSatisfy { $0 == 0 })
        // Int16 stereo: 2 bytes × 2 channels a frame, both channels the same.
        var int16 = PCMBuffer<Int16>(frameCount: 500, channelCount: 2)
        XCTAssertEqual(speaker.playAudio(into: &int16), 500 * 2 * 2)
        XCTAssertTrue(stride(from: 0, to: 1000, by: 2).allSatisfy { int16.samples[$0] == int16.samples[$0 + 1] })
        // More than is buffered: the real part, then zeros (an underrun, counted).
        let left = speaker.playout.count
        var big = PCMBuffer<Float>(frameCount: 4800)
        for i in big.samples.indices { big.samples[i] = 1 }
        XCTAssertEqual(speaker.playAudio(into: &big), left * 4)
        XCTAssertFalse(big.samples[..<left].contains(1))
        XCTAssertTrue(big.samples[left...].allSatisfy { $0 == 0 })
        XCTAssertEqual(speaker.conditioner.underruns, 1)
        var empty = PCMBuffer<Int16>(frameCount: 441, sampleRate: 44_100, channelCount: 2)
        for i in empty.samples.indices { empty.samples[i] = 7 }
        XCTAssertEqual(speaker.playAudio(into: &empty), 0, "nothing left")
        XCTAssertTrue(empty.samples.allSatisfy { $0 == 0 })
        call.audioManager.resetCustomSpeakerToDefaultSpeaker()
        XCTAssertEqual(speaker.playAudio(into: &float), 0, "reset: not selected any more")
        _ = call.end()
    }

    /// The first pull after selecting finds nothing yet: startup silence, reported as delivered so
    /// that an app keeping only the returned frames (the guide's recorder) loses no audio.
    func testPlayAudioStartupSilenceIsPartOfTheStream() throws {
        let call = try makeCall(CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -20), seed: 1)))
        let speaker = TimedTestSpeaker(scheduler: call.scheduler, framesPerPull: 960, period: .milliseconds(20), keeps: true)
        call.audioManager.setCustomSpeaker(speaker)
        speaker.start()
        try call.start()
        try call.run(for: .seconds(1))
        let counters = call.end()
        XCTAssertEqual(speaker.bytes, speaker.pulls * 960 * 4, "every pull reported in full")
        XCTAssertEqual(counters.playout.underruns, 0)
        // The app's stream is the downlink delayed by the priming, sample for sample.
        let downlink = SignalGenerator.render(.whiteNoise(levelDBFS: -20), sampleRate: 48_000, count: 48_000, seed: 1)
        let priming = Int(counters.playout.primingSamples)
        XCTAssertTrue(speaker.received[..<priming].allSatisfy { $0 == 0 })
        XCTAssertEqual(Array(speaker.received[priming..<(priming + 24_000)]), Array(downlink[..<24_000]))
    }

    // MARK: User AEC reference

    func testPutUserReferenceWhileNotStartedIsIgnored() throws {
        let call = try makeCall()
        XCTAssertFalse(call.putUserAcousticEchoCancellerReference(PCMBuffer<Float>(frameCount: 960)))
        XCTAssertFalse(call.putUserAcousticEchoCancellerReference(PCMBuffer<Int16>(frameCount: 441, sampleRate: 44_100, channelCount: 2)))
        XCTAssertEqual(call.counters.ignoredFrames, 960 + 441)
        XCTAssertEqual(call.counters.userReference.written, 0)
        call.startUserAcousticEchoCancellerReference()
        XCTAssertTrue(call.putUserAcousticEchoCancellerReference(PCMBuffer<Float>(frameCount: 960)))
        XCTAssertEqual(call.counters.userReference.written, 960)
        call.stopUserAcousticEchoCancellerReference()
        XCTAssertFalse(call.putUserAcousticEchoCancellerReference(PCMBuffer<Float>(frameCount: 960)))
    }

    /// A pass-through speaker that puts what it plays as the reference gives the canceller exactly
    /// what the loudspeaker plays; without it the canceller gets the downlink, which the
    /// loudspeaker plays only after the app's latency.
    func testPassThroughSpeakerReferenceMatchesWhatIsPlayed() throws {
        for putsReference in [true, false] {
            let world = CallWorld(farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 130), seed: 1),
                                  echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6))
            let call = try makeCall(world, aec: .intensityRecommended)
            let speaker = PassThroughSpeaker(call: call, putsReference: putsReference)
            call.audioManager.setCustomSpeaker(speaker)
            speaker.start()
            try call.start()
            try call.run(for: .seconds(2))
            let counters = call.end()
            XCTAssertEqual(counters.ticks, 200)
            XCTAssertEqual(call.isUserReferenceStarted, putsReference)
            let r = call.recording
            let window = 48_000..<96_000
            XCTAssertGreaterThan(meanSquare(r.played[window]), 1e-4, "the loudspeaker plays the peer")
            let aligned = bestAlignment(output: r.played, input: r.reference, window: window, lags: 0...4800)
            XCTAssertEqual(aligned.errorDB, -.infinity, "played is the reference, delayed by \(aligned.lag)")
            if putsReference {
                XCTAssertEqual(aligned.lag, 0, "the user reference is what the loudspeaker plays, aligned")
                XCTAssertEqual(counters.userReference.underruns, 0)
                XCTAssertTrue(counters.userReference.isConserved)
            } else {
                XCTAssertGreaterThan(aligned.lag, 0, "the downlink reaches the loudspeaker only after the app's pull latency")
            }
        }
    }
}
