import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// `echolab process`: recordings straight to the canceller, output aligned with the mic.
final class ProcessCommandTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    private func samples(_ name: String) throws -> (samples: [Float], rate: Int) {
        let reader = try SoundFileReader(path: root.appendingPathComponent(name).path)
        var buffer = [Float](repeating: 0, count: Int(reader.frameCount))
        _ = try reader.read(into: &buffer, frames: buffer.count)
        return (buffer, reader.sampleRate)
    }

    /// An output name the filesystem takes (here 254 bytes) is written: its hidden companions
    /// (lock, partial) made it fail with "File name too long" from 242 bytes on.
    func testALongOutputNameIsWritten() throws {
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), in: root)
        let taps = try runEchoLab(["run", "scenario.json", "--out", "call"], in: root)
        XCTAssertEqual(taps.status, 0, taps.standardError)
        let name = String(repeating: "b", count: 250) + ".wav"
        let processed = try runEchoLab(["process", "--mic", "call/mic.wav", "--reference", "call/reference.wav", "--out", name,
                                        "--aec", "speex:intensityRecommended"], in: root)
        XCTAssertEqual(processed.status, 0, processed.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path))
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: root.path).contains { $0.hasSuffix(".partial") })
    }

    /// An output under a file is named as asked for, with the file in its way: the line named
    /// the file alone ("good.wav: cannot write: exists and is not a folder"), as if it were --out.
    func testAnOutputUnderAFileIsNamedWithTheFileInItsWay() throws {
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), in: root)
        XCTAssertEqual(try runEchoLab(["run", "scenario.json", "--out", "call"], in: root).status, 0)
        let processed = try runEchoLab(["process", "--mic", "call/mic.wav", "--reference", "call/reference.wav", "--out", "call/mic.wav/x.wav"], in: root)
        XCTAssertEqual(processed.status, 1)
        XCTAssertEqual(processed.standardError, "echolab: call/mic.wav/x.wav: cannot write: call/mic.wav is a file, not a folder\n")
    }

    /// A mic with a DC offset is warned of: the canceller is given it as recorded (echolab's and
    /// WebRTC's AEC lose echo removal over one, a new user's trial), where `metrics` takes it off
    /// before measuring and said only that.
    func testAMicWithADCOffsetIsWarnedOf() throws {
        var random = SeededRandom(seed: 8)
        let far = (0..<(2 * 16_000)).map { _ in random.nextSignedFloat() * 0.2 }
        let mic = far.indices.map { ($0 >= 320 ? far[$0 - 320] * 0.3 : 0) + 0.03 }
        try SoundFileWriter.write(far, to: root.appendingPathComponent("lpb.wav").path, sampleRate: 16_000)
        try SoundFileWriter.write(mic, to: root.appendingPathComponent("mic.wav").path, sampleRate: 16_000)
        try SoundFileWriter.write(far.map { $0 * 0.3 }, to: root.appendingPathComponent("clean.wav").path, sampleRate: 16_000)
        let offset = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "lpb.wav", "--out", "out.wav"], in: root)
        XCTAssertEqual(offset.status, 0, offset.standardError)
        XCTAssertTrue(offset.standardError.contains("echolab process: warning: mic.wav has a DC offset of -30.") && offset.standardError.contains(" dBFS: the canceller was given it as recorded"),
                      offset.standardError)
        let clean = try runEchoLab(["process", "--mic", "clean.wav", "--reference", "lpb.wav", "--out", "clean-out.wav"], in: root)
        XCTAssertFalse(clean.standardError.contains("DC offset"), clean.standardError)
        // A lopsided waveform is no offset: a talker clipped on one side (here every other quarter
        // second) has a mean of −34 dBFS over the file, and none in its pauses. process read it as
        // an offset that metrics, on the same file, did not find.
        let lopsided = far.indices.map { ($0 / 4_000) % 2 == 0 ? min(far[$0], 0.02) : 0 }
        try SoundFileWriter.write(lopsided, to: root.appendingPathComponent("lopsided.wav").path, sampleRate: 16_000)
        XCTAssertEqual(20 * log10(abs(lopsided.map(Double.init).reduce(0, +) / Double(lopsided.count))), -34, accuracy: 1,
                       "over the −40 dBFS a warning needs")
        let clipped = try runEchoLab(["process", "--mic", "lopsided.wav", "--reference", "lpb.wav", "--out", "lopsided-out.wav"], in: root)
        XCTAssertFalse(clipped.standardError.contains("DC offset"), clipped.standardError)
        let measured = try runEchoLab(["metrics", "--mic", "lopsided.wav", "--reference", "lpb.wav", "--processed", "lopsided-out.wav"], in: root)
        XCTAssertFalse(measured.standardError.contains("DC offset"), measured.standardError)
    }

    /// A loopback of digital silence gave the canceller nothing to cancel with; a mic of it held
    /// nothing to process. `metrics` warned of each, and `process` printed its usual line alone.
    func testAFileOfDigitalSilenceIsWarnedOf() throws {
        var random = SeededRandom(seed: 8)
        let sound = (0..<(2 * 16_000)).map { _ in random.nextSignedFloat() * 0.2 }
        let zeros = [Float](repeating: 0, count: sound.count)
        try SoundFileWriter.write(sound, to: root.appendingPathComponent("sound.wav").path, sampleRate: 16_000)
        try SoundFileWriter.write(zeros, to: root.appendingPathComponent("zeros.wav").path, sampleRate: 16_000)
        let silentLoopback = try runEchoLab(["process", "--mic", "sound.wav", "--reference", "zeros.wav", "--out", "a.wav"], in: root)
        XCTAssertEqual(silentLoopback.status, 0, silentLoopback.standardError)
        XCTAssertEqual(silentLoopback.standardError,
                       "echolab process: warning: zeros.wav is digital silence throughout: nothing was played, so there was no echo to cancel\n")
        let silentMic = try runEchoLab(["process", "--mic", "zeros.wav", "--reference", "sound.wav", "--out", "b.wav"], in: root)
        XCTAssertEqual(silentMic.status, 0, silentMic.standardError)
        XCTAssertEqual(silentMic.standardError, "echolab process: warning: zeros.wav is digital silence throughout: nothing was recorded\n")
        let heard = try runEchoLab(["process", "--mic", "sound.wav", "--reference", "sound.wav", "--out", "c.wav"], in: root)
        XCTAssertFalse(heard.standardError.contains("digital silence"), heard.standardError)
    }

    /// WebRTC's AEC (0.3) diverges to NaN on a 16 kHz mic that is its loopback's exact echo (white
    /// noise, half as loud, 20 ms late): `process` fails, naming the recording, the mode and the
    /// frame, and writes no output. It wrote a file of NaN and exited 0.
    func testADivergedCancellersOutputIsNoAudioAndFails() throws {
        var random = SeededRandom(seed: 5)
        let far = (0..<(4 * 16_000)).map { _ in random.nextSignedFloat() * 0.17 }
        let mic = [Float](repeating: 0, count: 320) + far.dropLast(320).map { $0 * 0.5 }
        try SoundFileWriter.write(far, to: root.appendingPathComponent("far.wav").path, sampleRate: 16_000, encoding: .pcm16)
        try SoundFileWriter.write(mic, to: root.appendingPathComponent("mic.wav").path, sampleRate: 16_000, encoding: .pcm16)
        let inputs = try snapshot(root)
        let result = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "far.wav", "--out", "out.wav",
                                     "--aec", "webrtc:intensityMax"], in: root)
        XCTAssertEqual(result.status, 1, result.standardOutput)
        XCTAssertTrue(result.standardError.hasPrefix("echolab: mic.wav: webrtc:intensityMax wrote "), result.standardError)
        XCTAssertTrue(result.standardError.hasSuffix(": the canceller diverged, and its output is not audio\n"), result.standardError)
        XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("out.wav").path))
        XCTAssertEqual(try snapshot(root), inputs)
    }

    /// A simulated call's mic and reference taps through `process` give the call's own sent
    /// audio, bit for bit — the same canceller on the same frames — one frame earlier: `process`
    /// removes the speex preprocessor's frame of latency, the call's sent stream has it.
    func testProcessingACallsTapsReproducesItsSentAudio() throws {
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 4), in: root)
        let run = try runEchoLab(["run", "scenario.json", "--out", "call"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        let before = try snapshot(root.appendingPathComponent("call"))
        let processed = try runEchoLab(["process", "--mic", "call/mic.wav", "--reference", "call/reference.wav", "--out", "out.wav",
                                        "--aec", "speex:intensityRecommended"], in: root)
        XCTAssertEqual(processed.status, 0, processed.standardError)
        XCTAssertTrue(processed.standardOutput.contains("latency 480 samples at 48000 Hz (10.0 ms) removed"), processed.standardOutput)
        let out = try samples("out.wav").samples, sent = try samples("call/sent.wav").samples
        XCTAssertEqual(out.count, sent.count)
        XCTAssertEqual(Array(out[0..<(out.count - 480)]), Array(sent[480...]))
        // An output folder that does not exist yet is created, as run and eval create theirs.
        let nested = try runEchoLab(["process", "--mic", "call/mic.wav", "--reference", "call/reference.wav", "--out", "new/folder/out.wav",
                                     "--aec", "speex:intensityRecommended"], in: root)
        XCTAssertEqual(nested.status, 0, nested.standardError)
        XCTAssertEqual(try samples("new/folder/out.wav").samples, out)
        let disabled = try runEchoLab(["process", "--mic", "call/mic.wav", "--reference", "call/reference.wav", "--out", "off.wav",
                                       "--aec", "disabled"], in: root)
        XCTAssertEqual(disabled.status, 0, disabled.standardError)
        XCTAssertEqual(try samples("off.wav").samples, try samples("call/mic.wav").samples)
        XCTAssertEqual(try snapshot(root.appendingPathComponent("call")), before, "inputs untouched")
    }

    /// AECM runs at 16 kHz inside and delays its output; with nothing played it passes the mic,
    /// and the written output lines up with the mic at lag 0 and has its length and rate — at a
    /// 16 kHz mic (native) and a 44.1 kHz one (processed at 48 kHz and resampled back).
    func testOutputIsAlignedWithTheMicAtItsRate() throws {
        for (rate, backend) in [(16_000, "webrtc-mobile"), (44_100, "webrtc-mobile"), (44_100, "webrtc"), (16_000, "webrtc"),
                                (48_000, "webrtc"), (44_100, "speex")] {
            var random = SeededRandom(seed: 3)
            let talk = (0..<(rate * 3)).map { i in random.nextSignedFloat() * 0.2 * (i / (rate / 5) % 2 == 0 ? 1 : 0.1) }
            try SoundFileWriter.write(talk, to: root.appendingPathComponent("mic.wav").path, sampleRate: rate)
            try SoundFileWriter.write([Float](repeating: 0, count: rate * 3), to: root.appendingPathComponent("lpb.wav").path, sampleRate: rate)
            let result = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "lpb.wav", "--out", "out.wav",
                                         "--aec", "\(backend):intensityRecommended"], in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            let out = try samples("out.wav")
            XCTAssertEqual(out.rate, rate)
            XCTAssertEqual(out.samples.count, talk.count, "\(rate) Hz \(backend)")
            let window = rate..<(rate + rate / 10)
            let correlations = (-50...50).map { lag in window.reduce(0.0) { $0 + Double(talk[$1] * out.samples[$1 + lag]) } }
            XCTAssertEqual(correlations.indices.max { correlations[$0] < correlations[$1] }! - 50, 0, "\(rate) Hz \(backend): lag")
        }
    }

    /// EchoLab's canceller at a rate under 8 kHz (a multiple of 100 Hz, so once taken as its own)
    /// trapped: its near-end detector's 300–4000 Hz band was empty at 400 Hz. Such a mic is now
    /// processed at 48 kHz and back, and it says so; at 8 kHz it runs natively.
    func testEchoLabsCancellerUnderEightKilohertzRunsAtFortyEightAndBack() throws {
        for (rate, processedAt) in [(400, 48_000), (500, 48_000), (8000, 8000)] {
            var random = SeededRandom(seed: 5)
            let mic = (0..<(rate * 2)).map { _ in random.nextSignedFloat() * 0.1 }
            let lpb = (0..<(rate * 2)).map { _ in random.nextSignedFloat() * 0.1 }
            try SoundFileWriter.write(mic, to: root.appendingPathComponent("mic.wav").path, sampleRate: rate)
            try SoundFileWriter.write(lpb, to: root.appendingPathComponent("lpb.wav").path, sampleRate: rate)
            let result = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "lpb.wav", "--out", "out.wav",
                                         "--aec", "echolab:intensityRecommended"], in: root)
            XCTAssertEqual(result.status, 0, "\(rate) Hz: \(result.standardError)")
            XCTAssertTrue(result.standardOutput.contains("at \(rate) Hz (processed at \(processedAt) Hz)"), result.standardOutput)
            let out = try samples("out.wav")
            XCTAssertEqual(out.rate, rate)
            XCTAssertEqual(out.samples.count, mic.count)
            XCTAssertTrue(out.samples.allSatisfy(\.isFinite), "\(rate) Hz")
        }
    }

    /// A stereo recording: `--channel` picks one (without it, the one-line error says to).
    func testChannelOfAStereoRecording() throws {
        let frames = 4800
        let stereo = (0..<(frames * 2)).map { i in i % 2 == 0 ? Float(0.1) : Float(i % 200) / 1000 }
        let writer = try SoundFileWriter(path: root.appendingPathComponent("stereo.wav").path, sampleRate: 48_000, channelCount: 2)
        try writer.write(stereo, frames: frames)
        try writer.finish()
        let refused = try runEchoLab(["process", "--mic", "stereo.wav", "--reference", "stereo.wav", "--out", "o.wav", "--aec", "disabled"], in: root)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.standardError.contains("has 2 channels"), refused.standardError)
        let picked = try runEchoLab(["process", "--mic", "stereo.wav", "--reference", "stereo.wav", "--out", "o.wav", "--aec", "disabled",
                                     "--channel", "1"], in: root)
        XCTAssertEqual(picked.status, 0, picked.standardError)
        XCTAssertEqual(try samples("o.wav").samples, (0..<frames).map { stereo[2 * $0 + 1] })
    }

    /// A loopback of another length is processed (silence after its end, its excess cut) with a
    /// one-line warning naming both files; equal lengths say nothing.
    func testLoopbackOfAnotherLengthIsWarnedAbout() throws {
        var random = SeededRandom(seed: 5)
        let mic = (0..<(48_000 * 3)).map { _ in random.nextSignedFloat() * 0.1 }
        try SoundFileWriter.write(mic, to: root.appendingPathComponent("mic.wav").path, sampleRate: 48_000)
        try SoundFileWriter.write(Array(mic[0..<96_000]), to: root.appendingPathComponent("short.wav").path, sampleRate: 48_000)
        try SoundFileWriter.write(mic + mic[0..<24_000], to: root.appendingPathComponent("long.wav").path, sampleRate: 48_000)
        let inputs = try snapshot(root)
        let short = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "short.wav", "--out", "out/a.wav"], in: root)
        XCTAssertEqual(short.status, 0, short.standardError)
        XCTAssertEqual(short.standardError, "echolab process: warning: short.wav is 1.00 s shorter than mic.wav: the mic's last 1.00 s were processed against a silent loopback\n")
        XCTAssertEqual(try samples("out/a.wav").samples.count, mic.count)
        let long = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "long.wav", "--out", "out/b.wav"], in: root)
        XCTAssertEqual(long.status, 0, long.standardError)
        XCTAssertEqual(long.standardError, "echolab process: warning: long.wav is 0.50 s longer than mic.wav: its last 0.50 s were not used\n")
        let same = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "mic.wav", "--out", "out/c.wav"], in: root)
        XCTAssertEqual(same.status, 0, same.standardError)
        XCTAssertEqual(same.standardError, "")
        try FileManager.default.removeItem(at: root.appendingPathComponent("out"))
        XCTAssertEqual(try snapshot(root), inputs, "inputs untouched")
    }

    /// A loopback recorded late — the echo in the mic comes before it — is warned of, as
    /// `metrics` warns of it: no canceller removes such an echo, and process ran one without a
    /// word (a new user's trial). The loopback in time says nothing.
    func testALoopbackRecordedLateIsWarnedOf() throws {
        var random = SeededRandom(seed: 9)
        let far = (0..<(48_000 * 4)).map { _ in random.nextGaussian() * 0.05 }
        func delayed(_ samples: Int) -> [Float] { [Float](repeating: 0, count: samples) + far.prefix(far.count - samples) }
        let mic = delayed(1440).map { 0.5 * $0 }   // the echo 30 ms after the far end
        try SoundFileWriter.write(mic, to: root.appendingPathComponent("mic.wav").path, sampleRate: 48_000)
        try SoundFileWriter.write(far, to: root.appendingPathComponent("lpb.wav").path, sampleRate: 48_000)
        try SoundFileWriter.write(delayed(3840), to: root.appendingPathComponent("late.wav").path, sampleRate: 48_000)   // 80 ms: 50 ms after the echo
        let late = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "late.wav", "--out", "out/late.wav"], in: root)
        XCTAssertEqual(late.status, 0, late.standardError)
        XCTAssertEqual(late.standardError, "echolab process: warning: the echo in mic.wav leads late.wav (a loopback recorded late, or --mic and "
                       + "--reference swapped?): no canceller removes an echo that comes before its reference\n")
        let inTime = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "lpb.wav", "--out", "out/in-time.wav"], in: root)
        XCTAssertEqual(inTime.status, 0, inTime.standardError)
        XCTAssertEqual(inTime.standardError, "")
        // Late and 0.7 s longer (beyond what metrics would read as one recording): both said.
        try SoundFileWriter.write(delayed(3840) + delayed(0).prefix(33_600), to: root.appendingPathComponent("late-long.wav").path, sampleRate: 48_000)
        let lateLong = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "late-long.wav", "--out", "out/late-long.wav"], in: root)
        XCTAssertEqual(lateLong.status, 0, lateLong.standardError)
        XCTAssertTrue(lateLong.standardError.contains("longer than mic.wav") && lateLong.standardError.contains("the echo in mic.wav leads late-long.wav"),
                      lateLong.standardError)
        // A loopback that carries a near talker back 200 ms after the mic heard him (a far end
        // without a canceller) peaks before the mic too, beside the echo it explains: not late.
        var voice = SeededRandom(seed: 12)
        let near = (0..<far.count).map { i in (i / 4800) % 3 == 0 ? voice.nextGaussian() * 0.2 : 0 }
        let talking = zip(mic, near).map { $0 + $1 }
        let carried = zip(far, [Float](repeating: 0, count: 9600) + near.prefix(far.count - 9600)).map { $0 + $1 }
        try SoundFileWriter.write(talking, to: root.appendingPathComponent("talking.wav").path, sampleRate: 48_000)
        try SoundFileWriter.write(carried, to: root.appendingPathComponent("carried.wav").path, sampleRate: 48_000)
        let roundTrip = try runEchoLab(["process", "--mic", "talking.wav", "--reference", "carried.wav", "--out", "out/round-trip.wav"], in: root)
        XCTAssertEqual(roundTrip.status, 0, roundTrip.standardError)
        XCTAssertEqual(roundTrip.standardError, "")
    }

    /// eval names the items whose echo lies outside the delay search under its Modes table, and
    /// the run's report.json says it typed (`echo_outside_delay_search_ms`): the late loopback's
    /// item was ranked with the others, and only its run page said why (a new user's trial).
    func testEvalNamesTheItemsWhoseEchoLiesOutsideTheSearch() throws {
        var random = SeededRandom(seed: 9)
        let far = (0..<(48_000 * 4)).map { _ in random.nextGaussian() * 0.05 }
        func delayed(_ samples: Int) -> [Float] { [Float](repeating: 0, count: samples) + far.prefix(far.count - samples) }
        try SoundFileWriter.write(delayed(1440).map { 0.5 * $0 }, to: root.appendingPathComponent("mic.wav").path, sampleRate: 48_000)
        try SoundFileWriter.write(far, to: root.appendingPathComponent("lpb.wav").path, sampleRate: 48_000)
        try SoundFileWriter.write(delayed(3840), to: root.appendingPathComponent("late.wav").path, sampleRate: 48_000)
        try Data(#"{"corpus": [{"name": "late", "mic": "mic.wav", "loopback": "late.wav"}, {"name": "in-time", "mic": "mic.wav", "loopback": "lpb.wav"}]}"#.utf8)
            .write(to: root.appendingPathComponent("corpus.json"))
        let eval = try runEchoLab(["eval", "corpus.json", "--modes", "disabled,speex:intensityMin", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let markdown = try String(contentsOf: root.appendingPathComponent("out/eval.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("The echo lies outside the 0–500 ms delay search of its reference: on late it leads the loopback"), markdown)
        let page = try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("delay search of its reference: on late it leads the loopback"), "eval.html says it too")
        XCTAssertEqual(try loadJSON(root.appendingPathComponent("out/late/speex-intensityMin/report.json").path)["echo_outside_delay_search_ms"] as? Double, 500)
        XCTAssertNil(try loadJSON(root.appendingPathComponent("out/in-time/speex-intensityMin/report.json").path)["echo_outside_delay_search_ms"])
    }

    /// A loopback at another rate than the mic is resampled and processed, with a one-line
    /// warning naming both files and rates (one rate says nothing, as above); the output keeps the
    /// mic's rate and length.
    func testLoopbackOfAnotherRateIsWarnedAbout() throws {
        var random = SeededRandom(seed: 6)
        let far = (0..<(16_000 * 2)).map { _ in random.nextSignedFloat() * 0.2 }
        try SoundFileWriter.write(far, to: root.appendingPathComponent("lpb16.wav").path, sampleRate: 16_000)
        let mic = (0..<(far.count * 3)).map { far[$0 / 3] * 0.5 }
        try SoundFileWriter.write(mic, to: root.appendingPathComponent("mic.wav").path, sampleRate: 48_000)
        let inputs = try snapshot(root)
        let result = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "lpb16.wav", "--out", "out/a.wav"], in: root)
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardError,
                       "echolab process: warning: lpb16.wav is at 16000 Hz, mic.wav at 48000 Hz: the loopback was resampled to 48000 Hz\n")
        let out = try samples("out/a.wav")
        XCTAssertEqual(out.rate, 48_000)
        XCTAssertEqual(out.samples.count, mic.count)
        XCTAssertGreaterThan(out.samples.map { abs($0) }.max() ?? 0, 0)
        try FileManager.default.removeItem(at: root.appendingPathComponent("out"))
        XCTAssertEqual(try snapshot(root), inputs, "inputs untouched")
    }

    /// `--aec disabled` passes the mic through bit for bit at any rate, 22.05 kHz included
    /// (no round trip through 48 kHz, which cut the band edge: −14.5 dB of difference on noise).
    /// A mic or a loopback of 0 frames is an error naming it, with nothing written.
    func testDisabledPassesTheMicThroughAtAnyRateAndAnEmptyMicOrLoopbackIsRefused() throws {
        for rate in [22_050, 11_025, 7_999] {
            var random = SeededRandom(seed: 8)
            let mic = (0..<(rate * 2)).map { _ in random.nextSignedFloat() * 0.3 }
            try SoundFileWriter.write(mic, to: root.appendingPathComponent("mic.wav").path, sampleRate: rate)
            try SoundFileWriter.write(mic, to: root.appendingPathComponent("lpb.wav").path, sampleRate: rate)
            let result = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "lpb.wav", "--out", "out.wav", "--aec", "disabled"], in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertTrue(result.standardOutput.contains("processed at \(rate) Hz"), result.standardOutput)
            let out = try samples("out.wav")
            XCTAssertEqual(out.rate, rate)
            XCTAssertEqual(out.samples, mic, "\(rate) Hz")
        }
        try SoundFileWriter.write([], to: root.appendingPathComponent("empty.wav").path, sampleRate: 7_999)
        let inputs = try snapshot(root)
        let empty = try runEchoLab(["process", "--mic", "empty.wav", "--reference", "lpb.wav", "--out", "new.wav"], in: root)
        XCTAssertEqual(empty.status, 1)
        XCTAssertEqual(empty.standardError, "echolab: empty.wav: holds no audio (0 frames): nothing to process\n")
        // An empty loopback beside a mic with audio: a file that went wrong, refused as such (it
        // was processed "against a silent loopback", exit 0, the output the mic's own).
        let silent = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "empty.wav", "--out", "new.wav", "--aec", "speex:intensityRecommended"], in: root)
        XCTAssertEqual(silent.status, 1)
        XCTAssertEqual(silent.standardError, "echolab: empty.wav: holds no audio (0 frames): no far end to cancel\n")
        let scored = try runEchoLab(["metrics", "--reference", "lpb.wav", "--mic", "empty.wav", "--processed", "lpb.wav"], in: root)
        XCTAssertEqual(scored.status, 1)
        XCTAssertEqual(scored.standardError, "echolab: empty.wav: holds no audio (0 frames): nothing to score\n")
        XCTAssertEqual(try snapshot(root), inputs, "nothing written, inputs untouched")
    }

    func testBadArguments() throws {
        try SoundFileWriter.write([Float](repeating: 0.1, count: 4800), to: root.appendingPathComponent("mic.wav").path, sampleRate: 48_000)
        let same = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "mic.wav", "--out", "mic.wav"], in: root)
        XCTAssertEqual(same.status, 1)
        XCTAssertTrue(same.standardError.contains("it is an input"), same.standardError)
        let missing = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "none.wav", "--out", "o.wav"], in: root)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.standardError.contains("none.wav"), missing.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("o.wav").path))
        let mode = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "mic.wav", "--out", "o.wav", "--aec", "webrtc:loud"], in: root)
        XCTAssertEqual(mode.status, 64)
        // The output is a WAV whatever it is called: another extension would mislabel it.
        let flac = try runEchoLab(["process", "--mic", "mic.wav", "--reference", "mic.wav", "--out", "o.flac"], in: root)
        XCTAssertEqual(flac.status, 64)
        XCTAssertTrue(flac.standardError.contains("--out must name a .wav file"), flac.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("o.flac").path))
    }
}

/// `process` runs a plugin at the plugin's own rate and says so: it printed the mic's rate
/// ("processed at 16000 Hz" while the plugin ran at 48 kHz behind a second resampling, "48000"
/// for a plugin told `--plugin-rate` 16000).
final class ProcessPluginRateTests: XCTestCase {
    func testAPluginRunsAtItsOwnRateAndTheOutcomeSaysWhich() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let pass = try CancellerPluginTests.misbehaving("passthrough", in: root)
        for rate in [16_000, 48_000] {
            var random = SeededRandom(seed: 3)
            let mic = (0..<(rate * 2)).map { _ in random.nextSignedFloat() * 0.3 }
            try SoundFileWriter.write(mic, to: root.appendingPathComponent("mic\(rate).wav").path, sampleRate: rate)
            try SoundFileWriter.write(mic, to: root.appendingPathComponent("lpb\(rate).wav").path, sampleRate: rate)
        }
        let inputs = try snapshot(root)
        func process(_ rate: Int, pluginRate: Int?) throws -> String {
            let result = try runEchoLab(["process", "--mic", "mic\(rate).wav", "--reference", "lpb\(rate).wav", "--out", "out\(rate).wav",
                                         "--plugin", "pass=\(pass)", "--aec", "pass:intensityRecommended"]
                                        + (pluginRate.map { ["--plugin-rate", "pass=\($0)"] } ?? []), in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
            return result.standardOutput
        }
        XCTAssertTrue(try process(16_000, pluginRate: nil).contains("(processed at 48000 Hz)"))
        XCTAssertTrue(try process(48_000, pluginRate: 16_000).contains("(processed at 16000 Hz)"))
        // At its own rate nothing is resampled and nothing delayed: a pass-through gives the mic back.
        let native = try process(16_000, pluginRate: 16_000)
        XCTAssertTrue(native.contains("(processed at 16000 Hz)"), native)
        let reader = try SoundFileReader(path: root.appendingPathComponent("out16000.wav").path)
        var out = [Float](repeating: 0, count: Int(reader.frameCount))
        _ = try reader.read(into: &out, frames: out.count)
        let mic = try SoundFileReader(path: root.appendingPathComponent("mic16000.wav").path)
        var original = [Float](repeating: 0, count: Int(mic.frameCount))
        _ = try mic.read(into: &original, frames: original.count)
        XCTAssertEqual(out, original)
        for name in ["out16000.wav", "out48000.wav"] { try FileManager.default.removeItem(at: root.appendingPathComponent(name)) }
        XCTAssertEqual(try snapshot(root), inputs, "inputs untouched")
    }
}
