import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Scorers (docs/scorers.md) through the binary: programs the test writes, speaking JSON lines.
/// What a scorer is sent is checked against the files themselves; a scorer that crashes, hangs,
/// answers garbage, says it cannot score or is missing leaves its own scores null with a reason,
/// and every other scorer and the metrics stand.
final class ScorerTests: XCTestCase {
    /// A scorer that logs each request with what it found in the output WAV (its frame count and
    /// level), and answers that level.
    static let logging = #"""
        import json, math, struct, sys, wave
        log = open(sys.argv[1], "a")
        for line in sys.stdin:
            request = json.loads(line)
            with wave.open(request["output"]) as w:
                rate, frames, data = w.getframerate(), w.getnframes(), w.readframes(w.getnframes())
            samples = struct.unpack("<%dh" % (len(data) // 2), data)
            level = 10 * math.log10(max(1e-20, sum(s * s for s in samples) / max(1, len(samples)) / 32768.0 ** 2))
            log.write(json.dumps({"request": request, "frames": frames, "rate": rate, "level": level}) + "\n"); log.flush()
            print(json.dumps({"id": request["id"], "scorer": {"name": "logger", "version": "2.1", "model_sha256": "ab" * 32},
                              "scores": {"output_dbfs": {"value": level, "higher_is_better": False, "min": -200, "max": 10}}}), flush=True)
        """#

    /// A scorer answering `answer(request)` (a Python expression) to every request.
    static func answering(_ answer: String) -> String {
        "import json, sys\nfor line in sys.stdin:\n    request = json.loads(line)\n    print(json.dumps(\(answer)), flush=True)\n"
    }

    func testScoresAreWhatTheStretchesHoldAndMisbehavingScorersFailAlone() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let scenario = packageRoot.appendingPathComponent("vectors/scenarios/speech-room-doubletalk.json").path
        let call = try runEchoLab(["run", scenario, "--aec", "webrtc:intensityRecommended", "--out", "call", "--all-taps"], in: root)
        XCTAssertEqual(call.status, 0, call.standardError)
        let scripts: [String: String] = [
            "logging.py": Self.logging,
            "error.py": Self.answering(#"{"id": request["id"], "error": "no speech found"}"#),
            "range.py": Self.answering(#"{"id": request["id"], "scores": {"mos": {"value": 7, "higher_is_better": True, "min": 1, "max": 5}}}"#),
            "nomin.py": Self.answering(#"{"id": request["id"], "scores": {"mos": {"value": 3, "higher_is_better": True, "max": 5}}}"#),
            "wrongid.py": Self.answering(#"{"id": "stretch-1", "scores": {"mos": {"value": 3, "higher_is_better": True, "min": 1, "max": 5}}}"#),
            "nan.py": Self.answering(#"{"id": request["id"], "scores": {"mos": {"value": float("nan"), "higher_is_better": True, "min": 1, "max": 5}}}"#),
            "empty.py": Self.answering(#"{"id": request["id"], "scores": {}}"#),
            // Its words go into the pages: an escape sequence and a bidirectional override shown, not obeyed.
            "loud-error.py": Self.answering(#"{"id": request["id"], "error": "boom \u001b]0;pwned\u0007 \u202e"}"#),
            // A name's escape sequence reached a terminal through compare's stdout and report.md;
            // a score of 1.7e308 in its own range was written as null, "inf" on the pages.
            "bell.py": Self.answering(#"{"id": request["id"], "scores": {"mos\u0007": {"value": 3, "higher_is_better": True, "min": 1, "max": 5}}}"#),
            "huge.py": Self.answering(#"{"id": request["id"], "scores": {"mos": {"value": 1e299, "higher_is_better": True, "min": 0, "max": 1e300}}}"#),
            "once.py": "import json, sys\nrequest = json.loads(sys.stdin.readline())\nprint(json.dumps({'id': request['id'], 'scores': {'x': {'value': 1, 'higher_is_better': True, 'min': 0, 'max': 2}}}), flush=True)\n",
            // 3 MB with no end of line, then silence: it read past the timeout, scanning the whole
            // of what it had at every arrival (50 MB took 75 s of CPU).
            "flood.py": "import sys, time\nsys.stdin.readline()\nsys.stdout.write('x' * 3000000)\nsys.stdout.flush()\ntime.sleep(30)\n",
            "unnamed.py": Self.answering(#"{"id": request["id"], "scores": {"": {"value": 3, "higher_is_better": True, "min": 1, "max": 5}}}"#),
            // Answers that disagree between one run's stretches: averaged, a value outside the
            // range it was reported with (−2.4 in 0…5), or statistics in the first's direction.
            "versions.py": "import json, sys, itertools\nfor n, line in zip(itertools.count(), sys.stdin):\n    request = json.loads(line)\n"
                + "    print(json.dumps({'id': request['id'], 'scorer': {'version': str(n)}, 'scores': {'x': {'value': 1, 'higher_is_better': True, 'min': 0, 'max': 2}}}), flush=True)\n",
            "ranges.py": "import json, sys\nseen = {}\nfor line in sys.stdin:\n    request = json.loads(line)\n    n = seen.get(request['talk_type'], 0)\n"
                + "    seen[request['talk_type']] = n + 1\n"
                + "    print(json.dumps({'id': request['id'], 'scores': {'x': {'value': 1, 'higher_is_better': n % 2 == 0, 'min': 0, 'max': 2 + n}}}), flush=True)\n",
        ]
        for (name, text) in scripts { try text.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let inputs = try snapshot(root.appendingPathComponent("call"))
        let metrics = try runEchoLab(["metrics", "--reference", "call/reference.wav", "--mic", "call/mic.wav", "--processed", "call/sent.wav",
                                      "--echo", "call/echo.wav", "--near-end", "call/near.wav", "--scorer-timeout", "2",
                                      "--scorer", "log=python3 logging.py log.jsonl",
                                      "--scorer", "crash=read line; echo 'model file missing' >&2; exit 3",
                                      "--scorer", "hang=sleep 30",
                                      "--scorer", "garbage=while read line; do echo hello; done",
                                      "--scorer", "refuses=python3 error.py",
                                      "--scorer", "out-of-range=python3 range.py",
                                      "--scorer", "missing=/nonexistent/scorer",
                                      "--scorer", "no-min=python3 nomin.py", "--scorer", "wrong-id=python3 wrongid.py",
                                      "--scorer", "once=python3 once.py", "--scorer", "gone=exit 4",
                                      "--scorer", "nan=python3 nan.py", "--scorer", "empty=python3 empty.py",
                                      "--scorer", "bell=python3 bell.py", "--scorer", "huge=python3 huge.py",
                                      "--scorer", "loud-error=python3 loud-error.py",
                                      "--scorer", "flood=python3 flood.py",
                                      "--scorer", "unnamed=python3 unnamed.py", "--scorer", "versions=python3 versions.py",
                                      "--scorer", "ranges=python3 ranges.py",
                                      // Exits, leaving a child that holds its stdout open: read as a hang until the timeout.
                                      "--scorer", "orphan=read line; sleep 1000 & exit 2"], in: root)
        XCTAssertEqual(metrics.status, 0, metrics.standardError)
        XCTAssertEqual(try snapshot(root.appendingPathComponent("call")), inputs, "inputs are never changed")
        let output = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(metrics.standardOutput.utf8)) as? [String: Any])
        XCTAssertNotNil(output["erle_db"] as? Double, "the metrics stand")
        let results = Dictionary(uniqueKeysWithValues: try XCTUnwrap(output["scores"] as? [[String: Any]]).map { ($0["name"] as! String, $0) })
        XCTAssertEqual(Set(results.keys), ["log", "crash", "hang", "garbage", "refuses", "out-of-range", "missing", "no-min", "wrong-id", "once", "gone",
                                           "nan", "empty", "flood", "bell", "huge", "loud-error", "orphan", "unnamed", "versions", "ranges"])

        // Each misbehaviour: no scores, the reason, and a warning on stderr.
        let reasons: [String: String] = [
            "crash": "exited with status 3 before answering sent.wav#1: model file missing",
            "hang": "gave no answer within 2.0 s",
            "garbage": "answered something that is not JSON: 'hello'",
            "refuses": "could not score sent.wav#1: no speech found",
            "out-of-range": "answered score 'mos' = 7.0, outside its own range 1.0…5.0",
            "no-min": "answered score 'mos' whose \"min\" is not a finite number",
            "wrong-id": "answered for id \"stretch-1\", not \"sent.wav#1\"",
            "once": "exited with status 0 before answering sent.wav#2 (a scorer reads requests until its stdin closes)",
            // Gone before the first request is written, or while it is: the same line either way.
            "gone": "exited with status 4 before answering sent.wav#1",
            "empty": "answered an empty \"scores\" object",
            "bell": "answered a score name that holds a control character (U+0007)",
            "loud-error": "could not score sent.wav#1: boom \\x1b]0;pwned\\x07 \\u{202E}",
            "huge": "answered score 'mos' whose \"value\" 1e+299 is past ±1e9",
            "flood": "wrote a line of over 1 MiB on stdout (an answer is one line of at most 1 MiB)",
            "orphan": "exited with status 2 before answering sent.wav#1",
            "unnamed": "answered a score with an empty name",
            "versions": "answered as different scorers (name, version or model) for one run's stretches",
            "ranges": "answered score 'x' with another direction or range for stretches of one talk type",
        ]
        for (name, reason) in reasons {
            let result = try XCTUnwrap(results[name])
            XCTAssertTrue(result["talk_types"] is NSNull, name)
            XCTAssertEqual(result["unscored_reason"] as? String, reason, name)
            XCTAssertTrue(metrics.standardError.contains("warning: scorer \(name): \(reason)"), metrics.standardError)
        }
        // Python writes NaN, which JSON has not: said as such, with the answer up to it.
        XCTAssertTrue((results["nan"]?["unscored_reason"] as? String)?.hasPrefix(
            "answered NaN or Infinity, which JSON has not (a score must be a finite number): '{\"id\": \"sent.wav#1\", \"scores\": {\"mos\": {\"value\": NaN,") == true,
                      "\(results["nan"] ?? [:])")
        XCTAssertTrue((results["missing"]?["unscored_reason"] as? String)?.hasPrefix("exited with status 127 before answering sent.wav#1: /bin/sh: ") == true,
                      "\(results["missing"] ?? [:])")

        // The working scorer: its identity, and per talk type the length-weighted mean of what it
        // found in each stretch's output — which is the aligned output over the stretch.
        let log = try XCTUnwrap(results["log"])
        XCTAssertEqual(log["reported_name"] as? String, "logger")
        XCTAssertEqual(log["version"] as? String, "2.1")
        XCTAssertEqual(log["model_sha256"] as? String, String(repeating: "ab", count: 32))
        let requests = try String(contentsOf: root.appendingPathComponent("log.jsonl"), encoding: .utf8).split(separator: "\n")
            .map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let sent = try AudioFileStream.readAll(path: root.appendingPathComponent("call/sent.wav").path).samples
        let lag = Int(((output["processed_lag_ms"] as! Double) * 48).rounded())
        var byType: [String: (weighted: Double, seconds: Double, count: Int)] = [:]
        for entry in requests {
            let request = entry["request"] as! [String: Any]
            XCTAssertEqual(request["protocol"] as? Int, 1)
            XCTAssertEqual(request["sample_rate"] as? Int, 48_000)
            let start = Int(((request["start_s"] as! Double) * 48_000).rounded()), end = Int(((request["end_s"] as! Double) * 48_000).rounded())
            XCTAssertEqual(entry["frames"] as? Int, end - start)
            XCTAssertGreaterThanOrEqual(end - start, 48_000, "a stretch lasts a second at least")
            for key in ["reference", "mic", "output", "near_end", "echo"] {
                let path = try XCTUnwrap(request[key] as? String, key)
                XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(path): removed once scored")
            }
            let slice = sent[(start + lag)..<(end + lag)]
            let expected = 10 * log10(slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count))
            XCTAssertEqual(entry["level"] as! Double, expected, accuracy: 0.05, "the output, aligned, over the stretch")
            let type = request["talk_type"] as! String
            let seconds = Double(end - start) / 48_000
            byType[type, default: (0, 0, 0)].weighted += (entry["level"] as! Double) * seconds
            byType[type, default: (0, 0, 0)].seconds += seconds
            byType[type, default: (0, 0, 0)].count += 1
        }
        XCTAssertEqual(Set(byType.keys), ["st", "dt"], "the call has far-end single talk and double talk")
        for talkType in try XCTUnwrap(log["talk_types"] as? [[String: Any]]) {
            let type = talkType["talk_type"] as! String, known = try XCTUnwrap(byType[type])
            XCTAssertEqual(talkType["stretches"] as? Int, known.count)
            XCTAssertEqual(talkType["duration_s"] as! Double, known.seconds, accuracy: 1e-3)
            let score = try XCTUnwrap((talkType["scores"] as? [String: Any])?["output_dbfs"] as? [String: Any])
            XCTAssertEqual(score["value"] as! Double, known.weighted / known.seconds, accuracy: 1e-3)
            XCTAssertEqual(score["higher_is_better"] as? Bool, false)
        }
    }

    /// A signal while a scorer is thinking stops the command within a second or two, with the
    /// signal's status: `process` and `metrics` went on to the scorer's timeout and exited 0, `run`
    /// waited for it (a minute by default) before exiting 143.
    func testASignalWhileAScorerThinksStopsTheCommand() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let scenario = packageRoot.appendingPathComponent("vectors/scenarios/speech-room-doubletalk.json").path
        let call = try runEchoLab(["run", scenario, "--out", "call", "--all-taps"], in: root)
        XCTAssertEqual(call.status, 0, call.standardError)
        let inputs = try snapshot(root.appendingPathComponent("call"))
        let hang = ["--scorer", "hang=sleep 60", "--scorer-timeout", "50"]
        for (arguments, status, message) in [
            (["process", "--mic", "call/mic.wav", "--reference", "call/reference.wav", "--out", "out.wav"] + hang, Int32(143),
             "echolab: out.wav: interrupted while scoring; the output is written, its scores are not\n"),
            (["metrics", "--reference", "call/reference.wav", "--mic", "call/mic.wav", "--processed", "call/sent.wav"] + hang, Int32(143),
             "echolab: call/sent.wav: interrupted while scoring; nothing printed\n"),
            (["run", scenario, "--out", "scored"] + hang, Int32(143), "echolab: \(scenario): interrupted; nothing written\n"),
        ] {
            let errors = Pipe()
            let started = Date()
            let process = try startEchoLab(arguments, in: root, standardError: errors)
            // Past the call and the canceller: the scorer has its first request.
            usleep(1_500_000)
            process.terminate()
            let said = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, status, "\(arguments[0]): \(String(decoding: said, as: UTF8.self))")
            XCTAssertLessThan(Date().timeIntervalSince(started), 10, "\(arguments[0]) stopped long before the scorer's 50 s")
            XCTAssertTrue(String(decoding: said, as: UTF8.self).hasSuffix(message), "\(arguments[0]): \(String(decoding: said, as: UTF8.self))")
        }
        XCTAssertEqual(try snapshot(root.appendingPathComponent("call")), inputs, "inputs are never changed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("scored/report.json").path))
    }

    func testABadScorerOptionIsAUsageError() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for (arguments, message) in [(["--scorer", "noequals"], "--scorer 'noequals': expected NAME=PROGRAM"),
                                     (["--scorer", "Bad Name=x"], "--scorer 'Bad Name=x': a scorer's name is 1 to 64 of a-z, 0-9, '-' and '_'"),
                                     (["--scorer", "a=x", "--scorer", "a=y"], "--scorer: a is given twice"),
                                     (["--scorer-timeout", "0"], "--scorer-timeout must be a number of seconds above 0 (got 0.0)")] {
            let result = try runEchoLab(["metrics", "--reference", "r.wav", "--mic", "m.wav", "--processed", "p.wav"] + arguments, in: root)
            XCTAssertEqual(result.status, 64, result.standardError)
            XCTAssertTrue(result.standardError.contains(message), result.standardError)
        }
    }
}
