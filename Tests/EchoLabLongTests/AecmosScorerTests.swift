import EchoLabTestSupport
import Foundation
import XCTest

/// The reference scorer (`--scorer aecmos`, scorers/aecmos.py over speechmos) agrees with
/// speechmos itself on the same files: a second scorer keeps a copy of every stretch it is sent,
/// speechmos' own `run` scores those copies here, and EchoLab's score per talk type must be their
/// length-weighted mean within 0.01 MOS.
///
/// Long: it needs `make scorers` (the Python packages) and the models take seconds to load;
/// `make test-long` installs them and runs it.
final class AecmosScorerTests: XCTestCase {
    /// Copies each request's files into the folder argv[1] names, under the request's number, and
    /// answers a constant.
    static let keeper = #"""
        import json, os, shutil, sys
        for line in sys.stdin:
            request = json.loads(line)
            number = request["id"].rsplit("#", 1)[1]
            for key in ("reference", "mic", "output"):
                shutil.copy(request[key], os.path.join(sys.argv[1], f"{number}-{key}.wav"))
            with open(os.path.join(sys.argv[1], f"{number}.json"), "w") as kept:
                json.dump(request, kept)
            print(json.dumps({"id": request["id"], "scores": {"kept": {"value": 1, "higher_is_better": True, "min": 0, "max": 1}}}), flush=True)
        """#

    /// speechmos' own scoring of the kept copies: `number talk_type echo other` per line.
    static let direct = #"""
        import glob, json, os, sys
        from speechmos import aecmos
        for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
            request = json.load(open(path))
            number = os.path.basename(path)[:-5]
            files = {name: os.path.join(sys.argv[1], f"{number}-{key}.wav") for name, key in (("lpb", "reference"), ("mic", "mic"), ("enh", "output"))}
            result = aecmos.run(files, sr=request["sample_rate"], talk_type=request["talk_type"])
            print(number, request["talk_type"], request["end_s"] - request["start_s"], result["echo_mos"], result["deg_mos"])
        """#

    func testAecmosAgreesWithSpeechmosOnTheSameFiles() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let python = packageRoot.appendingPathComponent(".build/scorers/bin/python3").path
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: python), "make scorers installs \(python)")
        let scenario = packageRoot.appendingPathComponent("vectors/scenarios/speech-room-doubletalk.json").path
        let call = try runEchoLab(["run", scenario, "--aec", "webrtc:intensityRecommended", "--out", "call", "--all-taps"], in: root)
        XCTAssertEqual(call.status, 0, call.standardError)
        try Self.keeper.write(to: root.appendingPathComponent("keeper.py"), atomically: true, encoding: .utf8)
        try Self.direct.write(to: root.appendingPathComponent("direct.py"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("kept"), withIntermediateDirectories: true)
        let metrics = try runEchoLab(["metrics", "--reference", "call/reference.wav", "--mic", "call/mic.wav", "--processed", "call/sent.wav",
                                      "--near-end", "call/near.wav", "--echo", "call/echo.wav", "--scorer-timeout", "300",
                                      "--scorer", "aecmos", "--scorer", "keep=python3 keeper.py kept"], in: root, timeout: 900)
        XCTAssertEqual(metrics.status, 0, metrics.standardError)
        let output = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(metrics.standardOutput.utf8)) as? [String: Any])
        let aecmos = try XCTUnwrap((output["scores"] as? [[String: Any]])?.first { $0["name"] as? String == "aecmos" })
        XCTAssertTrue(aecmos["unscored_reason"] is NSNull, "\(aecmos)")
        XCTAssertEqual((aecmos["model_sha256"] as? String)?.count, 64)
        XCTAssertEqual(aecmos["reported_name"] as? String, "speechmos aecmos_48kHz")

        let direct = try runProgram(URL(fileURLWithPath: python), [root.appendingPathComponent("direct.py").path,
                                                                  root.appendingPathComponent("kept").path])
        XCTAssertEqual(direct.status, 0, direct.output)
        var expected: [String: (echo: Double, other: Double, seconds: Double)] = [:]
        for line in direct.output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 5, let seconds = Double(fields[2]), let echo = Double(fields[3]), let other = Double(fields[4]) else { continue }
            // speechmos' MOS may leave 1…5 by a little; EchoLab's scorer holds it to the scale.
            let talk = String(fields[1])
            expected[talk, default: (0, 0, 0)].echo += min(5, max(1, echo)) * seconds
            expected[talk, default: (0, 0, 0)].other += min(5, max(1, other)) * seconds
            expected[talk, default: (0, 0, 0)].seconds += seconds
        }
        let talkTypes = try XCTUnwrap(aecmos["talk_types"] as? [[String: Any]])
        XCTAssertEqual(Set(talkTypes.map { $0["talk_type"] as! String }), Set(expected.keys))
        XCTAssertEqual(Set(expected.keys), ["st", "dt"])
        for talkType in talkTypes {
            let talk = talkType["talk_type"] as! String, known = try XCTUnwrap(expected[talk])
            let scores = try XCTUnwrap(talkType["scores"] as? [String: [String: Any]])
            XCTAssertEqual(scores["aecmos_echo"]?["value"] as! Double, known.echo / known.seconds, accuracy: 0.01, talk)
            XCTAssertEqual(scores["aecmos_other"]?["value"] as! Double, known.other / known.seconds, accuracy: 0.01, talk)
        }
        // The two axes, as the field knows them: in double talk WebRTC's AEC removes echo and
        // damages the near talker more than in far-end single talk.
        let byType = Dictionary(uniqueKeysWithValues: talkTypes.map { ($0["talk_type"] as! String, $0["scores"] as! [String: [String: Any]]) })
        XCTAssertGreaterThan(byType["st"]!["aecmos_echo"]!["value"] as! Double, 4.0)
        XCTAssertLessThan(byType["dt"]!["aecmos_other"]!["value"] as! Double, byType["st"]!["aecmos_other"]!["value"] as! Double)
    }
}
