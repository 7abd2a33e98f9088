import AudioInterop
import EchoLabJSON
import Foundation
import ScenarioFiles
import Simulation

/// libFuzzer target for the scenario loader: the input bytes are a scenario file's contents,
/// given to `ScenarioLoader.parse(data:file:)`. It must return a scenario or throw a
/// `ScenarioError` (one line, naming the file); a trap, a sanitizer report or a hang is a finding.
/// The same bytes also go to `JSONValue.parseMembers` (how a re-run reads the previous report.json),
/// which must agree with `JSONValue.parse` on every object that parses.
///
/// The loader opens every referenced audio file relative to the scenario's folder, so the target
/// works in a temporary tree laid out like `vectors/` — `scenarios/fuzz.json` beside small real
/// WAVs (`mono.wav`, `stereo.wav`, `quad.wav`, `short.wav`) and `inputs/` holding short WAVs under the
/// names the shipped scenarios use (`../inputs/farend_speech_16k.wav`, …), written once at startup
/// with the project's own `SoundFileWriter` — so seeds taken from `vectors/scenarios` reach the
/// probe of real files, their channel checks and the deeper keys after them.
private let scenarioPath: String = {
    let root = NSTemporaryDirectory() + "echolab-fuzz-scenario-\(getpid())"
    let scenarios = root + "/scenarios", inputs = root + "/inputs"
    do {
        for dir in [scenarios, inputs] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let files: [(String, Int, Int, SoundFileEncoding)] = [
            (inputs + "/farend_speech_16k.wav", 16_000, 1, .pcm16),
            (inputs + "/nearend_speech_16k.wav", 16_000, 1, .pcm16),
            (inputs + "/file_mic_44k.wav", 44_100, 1, .pcm16),
            (inputs + "/music_22k.wav", 22_050, 1, .float32),
            (inputs + "/room_rir_48k.wav", 48_000, 1, .float32),
            (scenarios + "/peer.wav", 48_000, 1, .float32),
            (scenarios + "/mono.wav", 48_000, 1, .pcm24),
            (scenarios + "/stereo.wav", 44_100, 2, .pcm16),
            (scenarios + "/quad.wav", 8_000, 4, .float32),
            (scenarios + "/short.wav", 48_000, 1, .pcm16),
        ]
        for (path, rate, channels, encoding) in files {
            let frames = path.hasSuffix("short.wav") ? 1 : rate / 10
            let writer = try SoundFileWriter(path: path, sampleRate: rate, channelCount: channels, encoding: encoding)
            let samples = (0..<(frames * channels)).map { Float(sin(Double($0) * 0.05)) * 0.25 }
            try writer.write(samples, frames: frames)
            try writer.finish()
        }
        try Data("not audio\n".utf8).write(to: URL(fileURLWithPath: scenarios + "/text.wav"))
    } catch {
        fatalError("cannot lay out the fuzz folder \(root): \(error)")
    }
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "echolab-fuzz-scenario-\(getpid())") }
    return scenarios + "/fuzz.json"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: size) } ?? Data()
    checkMembersAgreeWithParse([UInt8](data))
    do {
        let scenario = try ScenarioLoader.parse(data: data, file: scenarioPath)
        precondition(!scenario.name.isEmpty, "a scenario without a name")
    } catch let error as ScenarioError {
        let text = error.description
        precondition(text.contains("fuzz.json"), "error does not name the file: \(text)")
    } catch {
        fatalError("untyped error from ScenarioLoader.parse: \(type(of: error)): \(error)")
    }
    return 0
}

/// `parseMembers` builds what `parse` builds for the keys it keeps, refuses no object `parse`
/// reads, and refuses every other object text that `parse` refuses with the same error (but a
/// number beyond Double's range, too large or so small it rounds to 0, which it does not convert
/// where it skips).
private func checkMembersAgreeWithParse(_ bytes: [UInt8]) {
    let keys: Set<String> = ["schema", "taps", "name", "far_end"]
    let kept: Result<[String: JSONValue], JSONSyntaxError> = Result { () throws(JSONSyntaxError) in
        try JSONValue.parseMembers(keys, ofObjectIn: bytes)
    }
    do throws(JSONSyntaxError) {
        let whole = try JSONValue.parse(bytes)
        guard case .object(let object) = whole else { return }
        guard case .success(let members) = kept else { fatalError("parseMembers refused an object that parse read: \(kept)") }
        precondition(members == object.filter { keys.contains($0.key) }, "parseMembers disagrees with parse")
    } catch {
        let startsAnObject = bytes.drop { [0x20, 0x0A, 0x0D, 0x09].contains($0) }.first == UInt8(ascii: "{")
        guard startsAnObject, !error.problem.contains("out of range") else { return }
        guard case .failure(let refusal) = kept else { fatalError("parseMembers read a text that parse refused: \(error)") }
        precondition(refusal == error, "parseMembers: \(refusal); parse: \(error)")
    }
}
