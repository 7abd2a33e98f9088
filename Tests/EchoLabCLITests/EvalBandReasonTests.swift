import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// eval.html's band chart per item left a band's slot empty with no reason where no mode had a
/// value there (a 16 kHz far end's 8–16 kHz), though every run's report gave one.
final class EvalBandReasonTests: XCTestCase {
    func testABandNoModeMeasuresIsExplainedOnTheEvalPage() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        let far = SignalGenerator.render(.speechLike(levelDBFS: -20, pitchHz: 120), sampleRate: 16_000, count: 4 * 16_000, seed: 3)
        try SoundFileWriter.write(far, to: corpus.appendingPathComponent("far16k.wav").path, sampleRate: 16_000, encoding: .pcm16)
        _ = try writeScenario("""
            {"name": "narrow", "far_end": "far16k.wav", "echo_path": {"delay_ms": 20, "gain_db": -6},
             "noise": {"level_dbfs": -60, "seed": 1}, "duration_s": 4}
            """, named: "narrow.json", in: corpus)
        let eval = try runEchoLab(["eval", "corpus", "--modes", "disabled,speex:intensityRecommended", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let page = try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("No ERLE in 8000–16000 Hz: no far-end content in this band (the reference stays under its floor): "
                                    + "no echo to remove (every mode)."), page)
    }
}
