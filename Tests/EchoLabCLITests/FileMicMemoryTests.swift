import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// A call's memory with a file microphone switched to many times, through the binary.
final class FileMicMemoryTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    /// Peak resident memory (KB) of the binary run with `arguments` from `root`, its output discarded.
    private func peakMemoryKB(_ arguments: [String]) throws -> (status: Int32, kilobytes: Int) {
        let binary = try echoLabBinary().path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else { throw CocoaError(.executableLoad) }
        var status: Int32 = 0
        var usage = rusage()
        XCTAssertEqual(wait4(pid, &status, 0, &usage), pid)
        return ((status >> 8) & 0xff, Int(usage.ru_maxrss))
    }

    /// Each timeline switch to a file mic decoded the file again and kept it: 2,000 switches to a
    /// 4.7 s file took 750 MB, 20,000 3.7 GB. A call decodes each file once and lets a stopped
    /// mic go.
    func testSwitchingToAFileMicManyTimesKeepsMemoryBounded() throws {
        _ = try writeSpeechWAV("f.wav", in: root, seconds: 4.7, rate: 22_050)
        var events: [String] = []
        for index in 0..<2_000 {
            events.append(index % 2 == 0
                ? #"{"at_ms": \#(Double(index) * 2.5), "action": "set_custom_mic", "device": "file", "file": "f.wav"}"#
                : #"{"at_ms": \#(Double(index) * 2.5), "action": "reset_custom_mic"}"#)
        }
        let scenario = try writeScenario(#"{"name": "many", "far_end": "f.wav", "duration_s": 10, "timeline": ["#
                                         + events.joined(separator: ",") + "]}", named: "many.json", in: root)
        let many = try peakMemoryKB(["run", scenario, "--out", root.appendingPathComponent("many").path, "--no-taps"])
        XCTAssertEqual(many.status, 0)
        _ = try writeScenario(#"{"name": "one", "far_end": "f.wav", "duration_s": 10, "mic": {"device": "file", "file": "f.wav"}}"#,
                              named: "one.json", in: root)
        let one = try peakMemoryKB(["run", root.appendingPathComponent("one.json").path, "--out", root.appendingPathComponent("one").path, "--no-taps"])
        XCTAssertEqual(one.status, 0)
        XCTAssertLessThan(many.kilobytes, one.kilobytes + 100_000, "1,000 switches to one file cost \(many.kilobytes - one.kilobytes) KB")
    }
}
