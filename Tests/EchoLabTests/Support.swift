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

/// Runs the built `echolab` (next to the test bundle) with `arguments`.
func runEchoLab(_ arguments: [String]) throws -> CommandResult {
    let binary = [Bundle.main.bundleURL, Bundle(for: CommandMarker.self).bundleURL.deletingLastPathComponent()]
        .map { $0.appendingPathComponent("echolab") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    guard let binary else { throw XCTSkip("echolab binary not built next to the tests") }
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
                         standardError: String(decoding: errData, as: UTF8.self))
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
