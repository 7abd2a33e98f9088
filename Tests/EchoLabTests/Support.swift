import Foundation
import XCTest

/// The package's root folder (for vectors/ and the built binaries).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func temporaryDirectory(_ name: String = #function) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("echolab-it-\(name.filter(\.isLetter))-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Writes a scenario file (JSON text) and returns its path.
func writeScenario(_ json: String, named name: String = "scenario.json", in directory: URL) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(json.utf8).write(to: url)
    return url.path
}

func loadJSON(_ path: String) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
}

/// Result of running the `echolab` binary.
struct CommandResult {
    let status: Int32
    let standardOutput: String
    let standardError: String
}

/// The built `echolab` next to the test bundle.
func echoLabBinary() throws -> URL {
    let binary = [Bundle.main.bundleURL, Bundle(for: CommandMarker.self).bundleURL.deletingLastPathComponent()]
        .map { $0.appendingPathComponent("echolab") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    guard let binary else { throw XCTSkip("echolab binary not built next to the tests") }
    return binary
}

/// Runs the built `echolab` with `arguments`, from `directory` (the test process's current
/// folder when nil), with no standard input, as a user or CI would.
func runEchoLab(_ arguments: [String], in directory: URL? = nil, timeout: TimeInterval = 300) throws -> CommandResult {
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

final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return data != nil }
    var value: Data { lock.lock(); defer { lock.unlock() }; return data ?? Data() }
}

/// SHA-256-free fingerprint of every regular file under `folder` (path → bytes), to assert that
/// a run left its inputs byte-identical.
func snapshot(_ folder: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
    while let url = enumerator?.nextObject() as? URL {
        guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
        files[String(url.path.dropFirst(folder.path.count))] = try Data(contentsOf: url)
    }
    return files
}

/// Every file name under `folder`, recursively (hidden ones included), relative to it.
func allFiles(under folder: URL) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
    return enumerator.compactMap { $0 as? String }.sorted()
}

final class CommandMarker {}

/// The white-noise, pure-delay scenario of the analytic checks.
func delayScenario(aec: String, seconds: Int) -> String {
    """
    {"name": "delay40-\(aec)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
     "noise": {"level_dbfs": -60, "seed": 7},
     "echo_path": {"delay_ms": 40, "gain_db": -6},
     "aec": {"mode": "\(aec)", "backend": "speex", "filter_ms": 200},
     "duration_s": \(seconds)}
    """
}
