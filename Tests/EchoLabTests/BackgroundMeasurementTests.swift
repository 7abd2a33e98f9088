import Foundation
import Evaluation
import Reporting
import Simulation
import XCTest

/// `run` measures on a second thread from a copy of each tick holding only the signals its
/// consumers read (`BackgroundTap`); `eval` measures inline. Both must give the same report and
/// the same taps, bit for bit — also where the send path lags (speex), the near end is scored,
/// custom devices switch mid-call — without taps (only what the measurement reads is copied)
/// and with every tap (played.wav too).
final class BackgroundMeasurementTests: XCTestCase {
    func testBackgroundAndInlineMeasurementGiveTheSameReportAndTaps() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for name in ["device-transitions", "speech-room-doubletalk", "recording-speaker"] {
            let scenario = try ScenarioLoader.load(path: packageRoot.appendingPathComponent("vectors/scenarios/\(name).json").path)
            for (label, selection) in [("no taps", TapSelection.none), ("all taps", .all)] {
                var reports: [Data] = [], files: [[String: Data]] = []
                for background in [true, false] {
                    let folder = root.appendingPathComponent("\(name)-\(label)-\(background)")
                    var output = RunOutput(scenario: scenario, outputDirectory: folder.path, taps: selection)
                    output.measuresInBackground = background
                    var report = try output.run()
                    report.wallSeconds = 0
                    reports.append(Data(report.json().canonicalText().utf8))
                    var written = try snapshot(folder)
                    for page in ["report.json", "report.md", "report.html"] { written["/" + page] = nil }   // they carry the wall time
                    files.append(written)
                }
                XCTAssertEqual(reports[0], reports[1], "\(name), \(label): report")
                XCTAssertEqual(files[0], files[1], "\(name), \(label): files")
                let taps = selection == .none ? [] : ["mic.wav", "reference.wav", "echo.wav", "sent.wav", "near.wav", "played.wav"]
                XCTAssertEqual(Set(files[0].keys), Set((taps + scenario.deviceOutputFiles).map { "/" + $0 }), "\(name), \(label)")
            }
        }
    }
}
