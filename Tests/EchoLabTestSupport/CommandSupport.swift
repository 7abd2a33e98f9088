import Foundation
import Synchronization
import XCTest

/// The package's root folder (for vectors/ and the built binaries).
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

public func temporaryDirectory(_ name: String = #function) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("echolab-it-\(name.filter(\.isLetter))-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Writes a scenario file (JSON text) and returns its path.
public func writeScenario(_ json: String, named name: String = "scenario.json", in directory: URL) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(json.utf8).write(to: url)
    return url.path
}

public func loadJSON(_ path: String) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
}

/// Result of running the `echolab` binary.
public struct CommandResult {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String

    public init(status: Int32, standardOutput: String, standardError: String) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}

/// The `echolab` the tests run: `ECHOLAB_BINARY` when set (`make test-long` points it at the
/// release build), else the one built beside the test bundle. The test targets that run it
/// depend on the `echolab` product, so a missing binary is a failure, never a skip.
public func echoLabBinary() throws -> URL {
    if let path = ProcessInfo.processInfo.environment["ECHOLAB_BINARY"], !path.isEmpty {
        let url = URL(fileURLWithPath: path, relativeTo: packageRoot)
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw MissingBinary(looked: [url.path]) }
        return url
    }
    let candidates = [Bundle.main.bundleURL, Bundle(for: CommandMarker.self).bundleURL.deletingLastPathComponent()]
        .map { $0.appendingPathComponent("echolab") }
    guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw MissingBinary(looked: candidates.map(\.path))
    }
    return binary
}

/// The tests depend on the `echolab` product: not finding it is a broken build, not a reason to skip.
public struct MissingBinary: Error, CustomStringConvertible {
    public let looked: [String]
    public init(looked: [String]) { self.looked = looked }
    public var description: String { "echolab is not built where the tests look: \(looked.joined(separator: ", "))" }
}

/// Runs the built `echolab` with `arguments`, from `directory` (the test process's current
/// folder when nil), with no standard input, as a user or CI would.
public func runEchoLab(_ arguments: [String], in directory: URL? = nil, timeout: TimeInterval = 300) throws -> CommandResult {
    let process = Process()
    process.executableURL = try echoLabBinary()
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // A hang is a failure, not a stuck test run: end it and let the caller see the signal.
    let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    defer { watchdog.cancel() }
    // Read both pipes at once: a child that fills one while we wait on the other would block.
    let errData = LockedData()
    let reader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errData.isSet { usleep(1000) }
    return CommandResult(status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
                         standardError: String(decoding: errData.value, as: UTF8.self))
}

/// The built `echolab` started with `arguments` (from `directory` when given), its output
/// discarded — its stderr into `standardError` when given, for the caller to read — for a test
/// that signals it, runs another beside it, or reads its stderr as it comes; the caller waits
/// for it. `environment`: variables set on top of this process's.
public func startEchoLab(_ arguments: [String], in directory: URL? = nil, standardOutput: Pipe? = nil, standardError: Pipe? = nil,
                         environment: [String: String] = [:]) throws -> Process {
    let process = Process()
    process.executableURL = try echoLabBinary()
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = standardOutput ?? FileHandle.nullDevice
    process.standardError = standardError ?? FileHandle.nullDevice
    try process.run()
    return process
}

/// A pipe's bytes, handed from the reading thread to the waiting one.
public final class LockedData: Sendable {
    private let data = Mutex<Data?>(nil)
    public init() {}
    public func set(_ value: Data) { data.withLock { $0 = value } }
    public var isSet: Bool { data.withLock { $0 != nil } }
    public var value: Data { data.withLock { $0 ?? Data() } }
}

/// SHA-256-free fingerprint of every regular file under `folder` (path → bytes), to assert that
/// a run left its inputs byte-identical.
public func snapshot(_ folder: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
    while let url = enumerator?.nextObject() as? URL {
        guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
        files[String(url.path.dropFirst(folder.path.count))] = try Data(contentsOf: url)
    }
    return files
}

/// Every file name under `folder`, recursively (hidden ones included), relative to it.
public func allFiles(under folder: URL) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
    return enumerator.compactMap { $0 as? String }.sorted()
}

final class CommandMarker {}

/// The white-noise, pure-delay scenario of the issue's analytic checks.
public func delayScenario(aec: String, seconds: Int) -> String {
    """
    {"name": "delay40-\(aec)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
     "noise": {"level_dbfs": -60, "seed": 7},
     "echo_path": {"delay_ms": 40, "gain_db": -6},
     "aec": {"mode": "\(aec)", "backend": "speex", "filter_ms": 200},
     "duration_s": \(seconds)}
    """
}

/// `standardError` without the warnings that a mode replaced a scenario's `filter_ms` (the one
/// `delayScenario` sets, under speex modes of another length) or its timeline's `set_aec`: for
/// tests of other lines. `merge` does not repeat them; the shards' evals said them.
public func withoutModesWarnings(_ standardError: String) -> String {
    standardError.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.contains("its filter_ms too") && !$0.contains("its timeline's set_aec too") }.joined(separator: "\n")
}

/// Two 4 s scenarios in `folder` (created): `delay40-intensityRecommended` (white noise through a
/// pure delay) and `speech` (speech-like far end in a synthetic room, AEC off, then set_aec to
/// intensityMin at 2 s), for the tests of modes across a corpus.
public func writeTwoItemCorpus(in folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 4), named: "delay.json", in: folder)
    _ = try writeScenario("""
        {"name": "speech", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
         "near_end": {"generator": "silence"}, "noise": {"level_dbfs": -65, "seed": 2},
         "echo_path": {"delay_ms": 25, "gain_db": -8, "synthetic_room": {"rt60_ms": 200, "seed": 1}},
         "aec": {"mode": "disabled"}, "duration_s": 4,
         "timeline": [{"at_ms": 2000, "action": "set_aec", "mode": "intensityMin"}]}
        """, named: "speech.json", in: folder)
}

/// Runs `executable` with `arguments` (from `directory` when given) and returns its exit status
/// and what it wrote to stdout and stderr together, in order: for programs other than echolab
/// (make, swift, the examples), whose two streams the tests read as one.
public func runProgram(_ executable: URL, _ arguments: [String], in directory: URL? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    // Read to the end before waiting: a full pipe would block the child forever.
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

/// `text` spoken by espeak-ng into `folder/file` (22.05 kHz, 16-bit): a voice the project did not
/// generate, with a real voice's pauses in exact zeros. `extra` goes before the text (`-m` for
/// SSML). espeak-ng is a test dependency (`make test-deps`): missing, the call fails, not skips.
public func speak(_ text: String, voice: String = "en-us", wordsPerMinute: Int = 150, extra: [String] = [], to file: String,
                  in folder: URL) throws {
    let espeak = URL(fileURLWithPath: "/usr/bin/espeak-ng")
    guard FileManager.default.isExecutableFile(atPath: espeak.path) else {
        throw FixtureError("\(espeak.path) is missing: make test-deps installs espeak-ng")
    }
    let spoken = try runProgram(espeak, extra + ["-v", voice, "-s", "\(wordsPerMinute)", "-w", file, text], in: folder)
    guard spoken.status == 0 else { throw FixtureError("espeak-ng \(voice) → \(file): exit \(spoken.status): \(spoken.output)") }
}

/// `executable` run with `arguments` from `directory`, stdout discarded: its status and stderr.
public func runCapturingErrors(_ executable: URL, _ arguments: [String], in directory: URL,
                               environment: [String: String]? = nil) throws -> (status: Int32, errors: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    if let environment { process.environment = environment }
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    // Read to the end before waiting: a full pipe would block the child forever.
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}

/// `echolab arguments` run from `directory` as a user whom file permissions stop: as `nobody`
/// (`setpriv`) when the tests run as root, whom no permission stops; as themselves otherwise.
/// Its status and stderr (stdout discarded): for tests of folders that cannot be read.
public func runEchoLabUnprivileged(_ arguments: [String], in directory: URL) throws -> (status: Int32, errors: String) {
    guard getuid() == 0 else { return try runCapturingErrors(try echoLabBinary(), arguments, in: directory) }
    return try runCapturingErrors(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                  ["--reuid=nobody", "--regid=nogroup", "--clear-groups", try echoLabBinary().path] + arguments, in: directory)
}
