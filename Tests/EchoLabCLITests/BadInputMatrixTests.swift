import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// The bad-input matrix: every case runs the real `echolab` from the case's own folder with
/// relative paths, and asserts the same contract — no crash or hang, the expected exit code,
/// one stderr line naming the file and the key, inputs byte-identical before and after, and no
/// partial or stale output. Valid-but-odd inputs (every subtype and rate libsndfile reads, one
/// frame, above 0 dBFS) must run.
final class BadInputMatrixTests: XCTestCase {
    struct Case {
        let name: String
        /// Writes the case's inputs into `folder/in` and returns the command's arguments (paths
        /// relative to `folder`, the working folder).
        let prepare: (_ inputs: URL) throws -> [String]
        let status: Int32
        let mentions: [String]
    }

    private var root: URL!
    private var mounts: [URL] = []

    override func setUpWithError() throws {
        root = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        for mount in mounts { _ = try? runTool("/bin/umount", [mount.path]) }
        try? FileManager.default.removeItem(at: root)
    }

    // MARK: The contract

    private func check(_ cases: [Case], file: StaticString = #filePath, line: UInt = #line) throws {
        for item in cases {
            let folder = root.appendingPathComponent(item.name)
            let inputs = folder.appendingPathComponent("in")
            try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
            let arguments = try item.prepare(inputs)
            let before = try snapshot(inputs)
            let result = try runEchoLab(arguments, in: folder, timeout: 120)
            let label = "\(item.name): echolab \(arguments.joined(separator: " "))"
            XCTAssertEqual(result.status, item.status, "\(label)\n\(result.standardError)", file: file, line: line)
            if item.status != 0 {
                let lines = result.standardError.split(separator: "\n")
                if item.status != 64 {
                    XCTAssertEqual(lines.count, 1, "\(label): one line expected:\n\(result.standardError)", file: file, line: line)
                }
                for needle in item.mentions {
                    XCTAssertTrue(result.standardError.contains(needle), "\(label): '\(result.standardError)' should mention '\(needle)'",
                                  file: file, line: line)
                }
                XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/report.json").path),
                               "\(label): a failed run left a report", file: file, line: line)
            } else {
                XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/report.json").path),
                              "\(label): no report", file: file, line: line)
            }
            XCTAssertEqual(try snapshot(inputs), before, "\(label): inputs changed", file: file, line: line)
            let partial = allFiles(under: folder).filter { $0.hasSuffix(".partial") }
            XCTAssertEqual(partial, [], "\(label): partial files left", file: file, line: line)
        }
    }

    /// `run in/scenario.json --out out` with a scenario whose far end is `farEnd`.
    private func scenarioCase(_ name: String, farEnd: String, extra: String = "", status: Int32, mentions: [String] = [],
                              prepare: @escaping (URL) throws -> Void = { _ in }) -> Case {
        Case(name: name, prepare: { inputs in
            try prepare(inputs)
            _ = try writeScenario(#"{"far_end": \#(farEnd), "aec": {"mode": "disabled"}\#(extra)}"#, in: inputs)
            return ["run", "in/scenario.json", "--out", "out", "--no-taps"]
        }, status: status, mentions: mentions)
    }

    /// `run in/scenario.json --out out` with the scenario text as given.
    private func jsonCase(_ name: String, _ json: String, status: Int32 = 1, mentions: [String]) -> Case {
        Case(name: name, prepare: { inputs in
            try Data(json.utf8).write(to: inputs.appendingPathComponent("scenario.json"))
            return ["run", "in/scenario.json", "--out", "out", "--no-taps"]
        }, status: status, mentions: ["scenario.json"] + mentions)
    }

    private static func speech(rate: Int, seconds: Double = 0.5, channels: Int = 1) -> [Float] {
        let mono = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 130), sampleRate: rate, count: Int(seconds * Double(rate)), seed: 3)
        return channels == 1 ? mono : mono.flatMap { Array(repeating: $0, count: channels) }
    }

    private static func pcm16(_ count: Int) -> Data {
        Data((0..<count).flatMap { index -> [UInt8] in
            let value = Int16(truncatingIfNeeded: (index * 977) % 20_000 - 10_000)
            return [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        })
    }

    // MARK: Audio inputs libsndfile reads: they must run

    func testEverySubtypeAndRateRuns() throws {
        var cases = SoundFileFixtures.formats.map { format in
            scenarioCase("format-\(format.name)", farEnd: "\"x.\(format.fileExtension)\"", status: 0) { inputs in
                try SoundFileFixtures.write(Self.speech(rate: format.rate), to: inputs.appendingPathComponent("x.\(format.fileExtension)").path,
                                            format: format)
            }
        }
        for rate in [8000, 11_025, 22_050, 88_200, 96_000, 192_000] {
            cases.append(scenarioCase("rate-\(rate)", farEnd: "\"x.wav\"", status: 0) { inputs in
                try SoundFileWriter.write(Self.speech(rate: rate), to: inputs.appendingPathComponent("x.wav").path, sampleRate: rate, encoding: .pcm16)
            })
        }
        try check(cases)
    }

    // MARK: Odd and broken audio

    func testOddAndBrokenAudio() throws {
        let wav = { (name: String, data: Data) in { (inputs: URL) throws in try data.write(to: inputs.appendingPathComponent(name)) } }
        let float = { (samples: [Float]) in
            { (inputs: URL) throws in try SoundFileWriter.write(samples, to: inputs.appendingPathComponent("x.wav").path, sampleRate: 48_000) }
        }
        let full = SoundFileFixtures.wavHeader(dataBytes: 96_000, payload: Self.pcm16(48_000))
        try check([
            scenarioCase("one-frame", farEnd: "\"x.wav\"", status: 0, prepare: float([0.25])),
            scenarioCase("zero-frames", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "0 frames"], prepare: float([])),
            // With a length of its own the call played it as silence, and a gate took the broken
            // input for an item without a far end.
            scenarioCase("zero-frames-with-duration", farEnd: "\"x.wav\"", extra: #", "duration_s": 0.5"#, status: 1,
                         mentions: ["far_end", "x.wav", "holds no audio (0 frames)"], prepare: float([])),
            scenarioCase("above-full-scale", farEnd: "\"x.wav\"", status: 0,
                         prepare: float(SignalGenerator.render(.whiteNoise(levelDBFS: 25), sampleRate: 48_000, count: 24_000, seed: 1))),
            scenarioCase("nan", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "NaN"], prepare: float([0.1, .nan, 0.2])),
            scenarioCase("infinity", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "infinite"], prepare: float([0.1, 0.2, .infinity])),
            scenarioCase("finite-but-absurd", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "frame 1", "+120 dBFS"],
                         prepare: float([0.1, 3e38, 0.2])),
            scenarioCase("zero-channels", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav"],
                         prepare: wav("x.wav", SoundFileFixtures.wavHeader(channels: 0, dataBytes: 2000, payload: Self.pcm16(1000)))),
            scenarioCase("sample-rate-zero", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "sample rate"],
                         prepare: wav("x.wav", SoundFileFixtures.wavHeader(rate: 0, dataBytes: 2000, payload: Self.pcm16(1000)))),
            scenarioCase("header-claims-more", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "truncated"],
                         prepare: wav("x.wav", SoundFileFixtures.wavHeader(dataBytes: 96_000, payload: Self.pcm16(500)))),
            scenarioCase("cut-in-header", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav"], prepare: wav("x.wav", full.prefix(30))),
            scenarioCase("cut-in-data", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "truncated"], prepare: wav("x.wav", full.prefix(50_000))),
            scenarioCase("text", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav"], prepare: wav("x.wav", Data("hello, not audio\n".utf8))),
            scenarioCase("png", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav"],
                         prepare: wav("x.wav", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 64)))),
            scenarioCase("random-bytes", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav"],
                         prepare: wav("x.wav", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }))),
            scenarioCase("empty-file", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav"], prepare: wav("x.wav", Data())),
            scenarioCase("folder", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "is a folder"]) { inputs in
                try FileManager.default.createDirectory(at: inputs.appendingPathComponent("x.wav"), withIntermediateDirectories: true)
            },
            scenarioCase("device", farEnd: "\"/dev/zero\"", status: 1, mentions: ["far_end", "/dev/zero", "not a regular file"]),
            scenarioCase("symlink-loop", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "symbolic link loop"]) { inputs in
                try FileManager.default.createSymbolicLink(atPath: inputs.appendingPathComponent("x.wav").path, withDestinationPath: "y.wav")
                try FileManager.default.createSymbolicLink(atPath: inputs.appendingPathComponent("y.wav").path, withDestinationPath: "x.wav")
            },
            scenarioCase("missing", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "no such file"]),
            // A link whose target is gone is there (`ls` lists it): said as what it is, not "no such file".
            scenarioCase("dangling-link", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "a symbolic link to nothing"]) { inputs in
                try FileManager.default.createSymbolicLink(atPath: inputs.appendingPathComponent("x.wav").path, withDestinationPath: "gone.wav")
            },
            scenarioCase("stereo-without-channel", farEnd: "\"x.wav\"", status: 1, mentions: ["far_end", "x.wav", "channel"]) { inputs in
                try SoundFileFixtures.write(Self.speech(rate: 48_000, channels: 2), channels: 2, to: inputs.appendingPathComponent("x.wav").path,
                                            format: SoundFileFixtures.formats[1])
            },
            scenarioCase("channel-out-of-range", farEnd: #"{"file": "x.wav", "channel": 5}"#, status: 1, mentions: ["far_end.file", "no channel 5"]) { inputs in
                try SoundFileFixtures.write(Self.speech(rate: 48_000, channels: 2), channels: 2, to: inputs.appendingPathComponent("x.wav").path,
                                            format: SoundFileFixtures.formats[1])
            },
            scenarioCase("stereo-downmix", farEnd: #"{"file": "x.wav", "channel": "downmix"}"#, status: 0) { inputs in
                try SoundFileFixtures.write(Self.speech(rate: 48_000, channels: 2), channels: 2, to: inputs.appendingPathComponent("x.wav").path,
                                            format: SoundFileFixtures.formats[1])
            },
            scenarioCase("truncated-impulse-response", farEnd: #"{"generator": "white_noise"}"#,
                         extra: #", "duration_s": 0.5, "echo_path": {"impulse_response": "ir.wav"}"#, status: 1,
                         mentions: ["echo_path.impulse_response", "ir.wav", "truncated"], prepare: wav("ir.wav", full.prefix(20_000))),
            scenarioCase("empty-impulse-response", farEnd: #"{"generator": "white_noise"}"#,
                         extra: #", "duration_s": 0.5, "echo_path": {"impulse_response": "ir.wav"}"#, status: 1,
                         mentions: ["echo_path.impulse_response", "ir.wav", "no samples"]) { inputs in
                try SoundFileWriter.write([], to: inputs.appendingPathComponent("ir.wav").path, sampleRate: 48_000)
            },
        ])
    }

    // MARK: Scenario files

    func testBrokenScenarioFiles() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let huge = #"{"name": "x", "pad": ""# + String(repeating: "a", count: 5 << 20) + "\"}"
        try check([
            jsonCase("not-json", "this is not json", mentions: ["not valid JSON", "line 1"]),
            jsonCase("empty", "", mentions: ["not valid JSON"]),
            jsonCase("top-level-array", "[1, 2]", mentions: ["top level must be a JSON object"]),
            jsonCase("deeply-nested", #"{"timeline": "# + deep + "}", mentions: ["nested deeper than"]),
            jsonCase("huge", huge, mentions: ["at most 4 MiB"]),
            jsonCase("byte-order-mark", "\u{FEFF}" + #"{"duration_s": 0.5, "aec": {"mode": "disabled"}}"#, status: 0, mentions: []),
            jsonCase("trailing-text", #"{"duration_s": 1} x"#, mentions: ["after the JSON value"]),
            jsonCase("invalid-utf8", "{\"name\": \"\u{FFFD}\"}".replacingOccurrences(of: "\u{FFFD}", with: "\u{80}"), mentions: []),
            jsonCase("unterminated-string", #"{"name": "abc"#, mentions: ["ends inside a string"]),
            jsonCase("duplicate-key", #"{"duration_s": 1, "duration_s": 2}"#, mentions: ["duplicate key 'duration_s'"]),
            jsonCase("unknown-key", #"{"duration_s": 1, "echo_path": {"delay_msec": 4}}"#, mentions: ["echo_path.delay_msec", "unknown key"]),
            jsonCase("string-for-number", #"{"duration_s": "10"}"#, mentions: ["duration_s", "expected a number"]),
            jsonCase("bool-for-number", #"{"duration_s": true}"#, mentions: ["duration_s", "expected a number"]),
            jsonCase("number-for-string", #"{"duration_s": 1, "aec": {"mode": 3}}"#, mentions: ["aec.mode", "expected a string"]),
            jsonCase("array-for-object", #"{"duration_s": 1, "noise": [1]}"#, mentions: ["noise", "expected an object"]),
            jsonCase("object-for-array", #"{"duration_s": 1, "timeline": {}}"#, mentions: ["timeline", "expected an array"]),
            jsonCase("number-in-timeline", #"{"duration_s": 1, "timeline": [7]}"#, mentions: ["timeline[0]", "expected an object"]),
            jsonCase("unknown-mode", #"{"duration_s": 1, "aec": {"mode": "loud"}}"#, mentions: ["aec.mode", "'loud' is not one of"]),
            jsonCase("duration-zero", #"{"duration_s": 0}"#, mentions: ["duration_s", "out of range"]),
            jsonCase("duration-huge", #"{"duration_s": 1e9}"#, mentions: ["duration_s", "out of range"]),
            jsonCase("number-overflow", #"{"duration_s": 1e400}"#, mentions: ["out of range"]),
            jsonCase("number-underflow", #"{"duration_s": 1e-400}"#, mentions: ["1e-400", "out of range (too small: it rounds to 0)"]),
            jsonCase("negative-delay", #"{"duration_s": 1, "echo_path": {"delay_ms": -5}}"#, mentions: ["echo_path.delay_ms", "out of range"]),
            jsonCase("gain-too-high", #"{"duration_s": 1, "echo_path": {"gain_db": 100}}"#, mentions: ["echo_path.gain_db", "out of range"]),
            jsonCase("level-above-full-scale", #"{"duration_s": 1, "far_end": {"generator": "tone", "level_dbfs": 10}}"#,
                     mentions: ["far_end.level_dbfs", "out of range"]),
            jsonCase("negative-seed", #"{"duration_s": 1, "noise": {"level_dbfs": -60, "seed": -1}}"#, mentions: ["noise.seed", "is negative"]),
            jsonCase("fractional-seed", #"{"duration_s": 1, "noise": {"level_dbfs": -60, "seed": 1.5}}"#, mentions: ["noise.seed", "whole number"]),
            jsonCase("jitter-too-large", #"{"duration_s": 1, "mic": {"device": "generator", "period_ms": 20, "jitter_ms": 10}}"#,
                     mentions: ["mic.jitter_ms", "half of period_ms"]),
            jsonCase("event-past-the-end", #"{"duration_s": 1, "timeline": [{"at_ms": 1000, "action": "mute"}]}"#,
                     mentions: ["timeline", "not before the end"]),
            jsonCase("event-without-action", #"{"duration_s": 1, "timeline": [{"at_ms": 10}]}"#, mentions: ["timeline[0].action", "missing"]),
            jsonCase("name-with-slash", #"{"name": "../escape", "duration_s": 1}"#, mentions: ["name"]),
            Case(name: "scenario-is-folder", prepare: { inputs in
                try FileManager.default.createDirectory(at: inputs.appendingPathComponent("s.json"), withIntermediateDirectories: true)
                return ["run", "in/s.json", "--out", "out"]
            }, status: 1, mentions: ["s.json", "is a folder"]),
            Case(name: "scenario-is-device", prepare: { _ in ["run", "/dev/zero", "--out", "out"] },
                 status: 1, mentions: ["/dev/zero", "not a regular file"]),
            Case(name: "scenario-missing", prepare: { _ in ["run", "in/none.json", "--out", "out"] },
                 status: 1, mentions: ["none.json", "no such file"]),
            Case(name: "scenario-symlink-loop", prepare: { inputs in
                try FileManager.default.createSymbolicLink(atPath: inputs.appendingPathComponent("s.json").path, withDestinationPath: "s.json")
                return ["run", "in/s.json", "--out", "out"]
            }, status: 1, mentions: ["s.json", "symbolic link loop"]),
            Case(name: "eval-with-a-device", prepare: { _ in ["eval", "/dev/zero", "--out", "out"] },
                 status: 1, mentions: ["/dev/zero", "not a regular file"]),
        ])
    }

    // MARK: Output failures

    private func goodScenario(_ inputs: URL) throws {
        _ = try writeScenario(#"{"far_end": {"generator": "white_noise", "level_dbfs": -20}, "duration_s": 1, "aec": {"mode": "disabled"}}"#,
                              in: inputs)
    }

    func testOutputFailures() throws {
        var cases: [Case] = [
            Case(name: "out-is-a-file", prepare: { inputs in
                try self.goodScenario(inputs)
                try Data("x".utf8).write(to: inputs.deletingLastPathComponent().appendingPathComponent("out"))
                return ["run", "in/scenario.json", "--out", "out"]
            }, status: 1, mentions: ["out", "not a folder"]),
            Case(name: "out-below-a-file", prepare: { inputs in
                try self.goodScenario(inputs)
                return ["run", "in/scenario.json", "--out", "in/scenario.json/out"]
            }, status: 1, mentions: ["cannot create the folder", "is a file, not a folder"]),
            Case(name: "out-not-permitted", prepare: { inputs in
                try self.goodScenario(inputs)
                return ["run", "in/scenario.json", "--out", "/sys/echolab-out"]
            }, status: 1, mentions: ["/sys/echolab-out", "cannot create the folder"]),
            Case(name: "out-is-the-input-folder", prepare: { inputs in
                try self.goodScenario(inputs)
                return ["run", "in/scenario.json", "--out", "in"]
            }, status: 1, mentions: ["in", "output folder holds the scenario file"]),
            // It read "output folder holds the scenario file" of the file itself.
            Case(name: "out-is-the-scenario-file", prepare: { inputs in
                try self.goodScenario(inputs)
                return ["run", "in/scenario.json", "--out", "in/scenario.json"]
            }, status: 1, mentions: ["in/scenario.json: the output folder is the scenario file in/scenario.json, not a folder"]),
            Case(name: "out-empty", prepare: { inputs in
                try self.goodScenario(inputs)
                return ["run", "in/scenario.json", "--out", ""]
            }, status: 64, mentions: ["--out"]),
            Case(name: "jobs-zero", prepare: { inputs in
                try self.goodScenario(inputs)
                return ["eval", "in", "--out", "out", "--jobs", "0"]
            }, status: 64, mentions: ["--jobs must be at least 1"]),
        ]
        // A small tmpfs, full and read-only, where this machine lets the test mount one.
        if let full = try mountTemporaryFileSystem(options: "size=64k") {
            cases.append(Case(name: "out-disk-full", prepare: { inputs in
                try self.goodScenario(inputs)
                return ["run", "in/scenario.json", "--out", full.appendingPathComponent("out").path]
            }, status: 1, mentions: ["cannot write: No space left on device"]))
        }
        if let readOnly = try mountTemporaryFileSystem(options: "size=64k,ro") {
            cases.append(Case(name: "out-read-only", prepare: { inputs in
                try self.goodScenario(inputs)
                return ["run", "in/scenario.json", "--out", readOnly.appendingPathComponent("out").path]
            }, status: 1, mentions: ["Read-only file system"]))
        }
        try check(cases)
    }

    /// A fresh tmpfs with `options`, or nil where mounting is not allowed (not root, a sandbox).
    private func mountTemporaryFileSystem(options: String) throws -> URL? {
        let point = root.appendingPathComponent("mnt-\(mounts.count)")
        try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
        guard (try? runTool("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", point.path])) == 0 else { return nil }
        mounts.append(point)
        return point
    }

    private func runTool(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
