import EchoLabTestSupport
import Foundation
import XCTest

/// Builds and runs the example package in Examples/AppCall as a user would (`swift build` in a
/// package of its own, EchoLab a path dependency, `import EchoLab`) and checks what it printed:
/// the example is documentation, and this keeps it building and telling the truth.
///
/// Long: the example package has its own .build, so the first run compiles EchoLab again
/// (minutes on two cores); `make test-long` runs it.
final class ExamplePackageTests: XCTestCase {
    private var examplePath: String { packageRoot.appendingPathComponent("Examples/AppCall").path }

    /// Runs `arguments` (the first found on PATH), returns its exit status and stdout + stderr.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runProgram(URL(fileURLWithPath: "/usr/bin/env"), arguments)
    }

    /// The numbers in `text`, in order: "-3.2 dB" is −3.2, "3.02-4.50 s" is 3.02 and 4.50 (a minus
    /// sign only where no digit precedes it).
    private func numbers(in text: Substring) -> [Double] {
        var found: [Double] = [], current = "", previous: Character = " "
        for character in text + " " {
            let signed = character == "-" && current.isEmpty && !previous.isNumber
            if character.isNumber || (character == "." && !current.isEmpty) || signed {
                current.append(character)
            } else if !current.isEmpty {
                if let value = Double(current.hasSuffix(".") ? String(current.dropLast()) : current) { found.append(value) }
                current = ""
            }
            previous = character
        }
        return found
    }

    private func line(_ prefix: String, in output: String, file: StaticString = #filePath, line: UInt = #line) throws -> Substring {
        try XCTUnwrap(output.split(separator: "\n").first { $0.hasPrefix(prefix) }, "no line starting \"\(prefix)\" in:\n\(output)",
                      file: file, line: line)
    }

    /// A segment line's values — "segment 0.00-3.00 s [label]: ERLE 9.0 dB, ERL 6.0 dB" → [9.0, 6.0] —
    /// after the label (which may hold digits of its own).
    private func segmentValues(_ prefix: String, in output: String, file: StaticString = #filePath, line number: UInt = #line) throws -> [Double] {
        let text = try line(prefix, in: output, file: file, line: number)
        return numbers(in: text.dropFirst(prefix.count))
    }

    func testAppCallExampleBuildsRunsAndReportsItsCall() throws {
        let build = try run(["swift", "build", "--package-path", examplePath])
        XCTAssertEqual(build.status, 0, "swift build --package-path Examples/AppCall failed:\n\(build.output)")
        guard build.status == 0 else { return }
        let binPath = try run(["swift", "build", "--package-path", examplePath, "--show-bin-path"])
        XCTAssertEqual(binPath.status, 0, binPath.output)
        // The last line: anything SwiftPM warns about comes before the path.
        let folder = binPath.output.split(separator: "\n").last.map(String.init) ?? ""
        let binary = URL(fileURLWithPath: folder.trimmingCharacters(in: .whitespaces)).appendingPathComponent("AppCall")

        let (status, output) = try run([binary.path])
        XCTAssertEqual(status, 0, output)

        // 6 s of call, every tick measured, nothing lost on the way.
        XCTAssertTrue(output.contains("call: 6.0 s, 600 ticks, 0 underruns"), output)

        // The device mic's stretch: speex at intensityRecommended removes the echo of a
        // loudspeaker 6 dB down. Its ERLE is a real number, well above nothing.
        let deviceMic = try segmentValues("segment 0.00-3.00 s [device mic, AEC intensityRecommended]:", in: output)
        XCTAssertEqual(deviceMic.count, 2, "\(deviceMic)")     // ERLE, ERL
        guard deviceMic.count == 2 else { return }
        let segmentERLE = deviceMic[0]
        XCTAssertGreaterThan(segmentERLE, 6, output)
        XCTAssertLessThan(segmentERLE, 60, output)
        XCTAssertEqual(deviceMic[1], 6, accuracy: 1, "ERL: the echo path is 6 dB down: \(output)")
        // The prompt's stretches: no echo reaches what is sent, so no ERLE or ERL, with AEC on or off.
        for label in ["segment 3.00-4.50 s [custom mic, AEC still on]:", "segment 4.50-6.00 s [custom mic, AEC disabled (Case 1)]:"] {
            XCTAssertTrue(try line(label, in: output).hasSuffix("ERLE n/a, ERL n/a"), output)
        }
        // The whole call counts the device mic's stretch alone: its ERLE is that stretch's.
        let whole = numbers(in: try line("ERLE whole call:", in: output))
        let wholeERLE = try XCTUnwrap(whole.first)
        XCTAssertEqual(wholeERLE, segmentERLE, accuracy: 0.5, output)
        XCTAssertEqual(whole.last ?? 0, deviceMic[1], accuracy: 0.5, "the call's ERL is the device stretch's: \(output)")

        // The lint: AEC on while the prompt was the mic — from the handover (once the custom mic
        // has primed, shortly after 3 s) until AEC was disabled at 4.5 s — with its consequence
        // measured (how much the canceller altered the prompt).
        let findingLine = try line("finding aec-on-non-microphone-source", in: output)
        let finding = numbers(in: findingLine.prefix { $0 != ":" })
        XCTAssertEqual(finding.count, 2, "\(finding)")
        XCTAssertEqual(finding.first ?? 0, 3.0, accuracy: 0.25, output)
        XCTAssertEqual(finding.last ?? 0, 4.5, accuracy: 0.01, output)
        let measured = numbers(in: try line("  measured: sent_error_db", in: output))
        let alteration = try XCTUnwrap(measured.first, "no measured consequence: \(output)")
        XCTAssertLessThan(alteration, 0, output)
        XCTAssertGreaterThan(alteration, -80, output)
        XCTAssertTrue(findingLine.contains("the custom mic is not a real microphone but AEC is on"), output)
        XCTAssertEqual(output.split(separator: "\n").filter { $0.hasPrefix("finding ") }.count, 1, output)

        // The app path's latency: the timer's 20 ms, the engine's priming reserve (one 20 ms
        // burst, measured by finding the prompt in sent), the 10 ms tick.
        let latency = numbers(in: try line("app path latency:", in: output))
        XCTAssertEqual(latency.count, 6, "\(latency)")       // total, timer, engine, pushed at, in sent at, tick
        guard latency.count == 6 else { return }
        XCTAssertEqual(latency[0], 50, accuracy: 0.05, output)
        XCTAssertEqual(latency[2], 20, accuracy: 0.05, output)
        XCTAssertEqual(latency[4] - latency[3], 0.020, accuracy: 0.0011, output)

        // The reports, as `echolab run` writes them.
        let reports = try line("reports:", in: output).dropFirst("reports: ".count).replacingOccurrences(of: "/report.{json,md,html}", with: "")
        defer { try? FileManager.default.removeItem(atPath: reports) }
        let json = try String(contentsOfFile: reports + "/report.json", encoding: .utf8)
        XCTAssertTrue(json.contains("\"aec-on-non-microphone-source\""), json)
        let markdown = try String(contentsOfFile: reports + "/report.md", encoding: .utf8)
        XCTAssertTrue(markdown.contains("aec-on-non-microphone-source"), markdown)
        XCTAssertTrue(FileManager.default.fileExists(atPath: reports + "/report.html"))
    }
}
