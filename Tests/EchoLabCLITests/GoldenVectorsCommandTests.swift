import EchoLabTestSupport
import Foundation
import XCTest

/// `vectors generate | bless | verify` on folders a new user makes: names used twice, broken
/// scenarios, hand-edited expectations, signals, an unusable TMPDIR. Each through the binary.
final class GoldenVectorsCommandTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private var golden: URL { root.appendingPathComponent("golden.json") }
    private var scenarios: URL { root.appendingPathComponent("scenarios") }

    /// scenarios/ with one short scenario per name, blessed into golden.json.
    private func blessedFolder(_ names: [String] = ["g"]) throws {
        try FileManager.default.createDirectory(at: scenarios, withIntermediateDirectories: true)
        for (index, name) in names.enumerated() {
            _ = try writeScenario(#"{"name": "\#(name)", "far_end": {"generator": "white_noise", "seed": \#(index + 1)}, "duration_s": 1}"#,
                                  named: "\(name).json", in: scenarios)
        }
        let bless = try runEchoLab(["vectors", "bless", "--vectors", root.path])
        XCTAssertEqual(bless.status, 0, bless.standardError)
    }

    /// golden.json edited as a dictionary, written back.
    private func editGolden(_ change: (inout [String: Any]) -> Void) throws {
        var document = try loadJSON(golden.path)
        change(&document)
        try JSONSerialization.data(withJSONObject: document).write(to: golden)
    }

    private func editEntry(_ name: String = "g", _ change: (inout [String: Any]) -> Void) throws {
        try editGolden { document in
            var entries = document["scenarios"] as! [String: Any]
            var entry = entries[name] as! [String: Any]
            change(&entry)
            entries[name] = entry
            document["scenarios"] = entries
        }
    }

    /// A call whose input stream restarts (a route change mid-call) verifies right after bless:
    /// its restart's stretch (9.9999999999998 ms measured, 10 in golden.json) was compared
    /// unrounded, and verify failed on every such vector, its message two identical 2,400-character
    /// objects. A real change names its key.
    func testAHardwareVectorVerifiesAfterBlessAndAChangeNamesItsKey() throws {
        try FileManager.default.createDirectory(at: scenarios, withIntermediateDirectories: true)
        _ = try writeScenario("""
            {"name": "r", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 1},
             "near_end": {"generator": "speech", "level_dbfs": -20, "pitch_hz": 210, "seed": 2},
             "route": "speaker", "audio_session": {"preferred_io_buffer_duration_s": 0.005}, "duration_s": 2,
             "timeline": [{"at_ms": 1000, "action": "route_change", "route": "receiver"}]}
            """, named: "r.json", in: scenarios)
        XCTAssertEqual(try runEchoLab(["vectors", "bless", "--vectors", root.path]).status, 0)
        let restarts = try XCTUnwrap(((loadJSON(golden.path)["scenarios"] as? [String: Any])?["r"] as? [String: Any])
            .flatMap { ($0["hardware"] as? [String: Any])?["capture_restarts"] as? [[String: Any]] })
        XCTAssertEqual(restarts.count, 1)
        let verify = try runEchoLab(["vectors", "verify", "--vectors", root.path])
        XCTAssertEqual(verify.status, 0, verify.standardError)
        try editEntry("r") { entry in
            var hardware = entry["hardware"] as! [String: Any]
            var routes = hardware["routes"] as! [[String: Any]]
            routes[1]["route"] = "wired_headset"
            hardware["routes"] = routes
            entry["hardware"] = hardware
        }
        let changed = try runEchoLab(["vectors", "verify", "--vectors", root.path])
        XCTAssertEqual(changed.status, 3)
        let lines = changed.standardError.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, changed.standardError)
        XCTAssertTrue(changed.standardError.contains(#"r.json: hardware.routes[1].route is "receiver" but golden has "wired_headset""#),
                      changed.standardError)
    }

    /// Two files with one name were one golden entry, the last's (bless exited 0; verify then
    /// failed on the other). Now both commands name the clash; bless leaves golden.json alone.
    func testScenariosSharingANameAreRefused() throws {
        try blessedFolder()
        try FileManager.default.createDirectory(at: scenarios.appendingPathComponent("sub"), withIntermediateDirectories: true)
        _ = try writeScenario(#"{"name": "g", "far_end": {"generator": "white_noise", "seed": 9}, "duration_s": 1}"#,
                              named: "sub/g.json", in: scenarios)
        let before = try Data(contentsOf: golden)
        let clash = "name: 'g' is already used by \(scenarios.appendingPathComponent("g.json").path)"
        let bless = try runEchoLab(["vectors", "bless", "--vectors", root.path])
        XCTAssertEqual(bless.status, 1)
        XCTAssertEqual(bless.standardError, "echolab: \(scenarios.appendingPathComponent("sub/g.json").path): \(clash)\n")
        XCTAssertEqual(try Data(contentsOf: golden), before)
        let verify = try runEchoLab(["vectors", "verify", "--vectors", root.path])
        XCTAssertEqual(verify.status, 1)
        XCTAssertEqual(verify.standardError, "echolab: \(scenarios.appendingPathComponent("sub/g.json").path): \(clash)\n")
    }

    /// A scenario that cannot be loaded stopped verify: the others' mismatches went unreported.
    /// Now it is one line, the others are checked, and bad input (1) wins over a mismatch (3).
    func testVerifyReportsABrokenScenarioAndChecksTheOthers() throws {
        try blessedFolder(["g", "h"])
        try editEntry("h") { $0["findings"] = ["mic-clipping"] }
        _ = try writeScenario(#"{"name": "a", "far_end": {"generator": "white_noise"}, "echo_path": {"gain": 1}}"#, named: "a.json", in: scenarios)
        let verify = try runEchoLab(["vectors", "verify", "--vectors", root.path])
        XCTAssertEqual(verify.status, 1)
        let lines = verify.standardError.split(separator: "\n")
        guard lines.count == 2 else { return XCTFail("two lines expected: \(verify.standardError)") }
        XCTAssertTrue(lines[0].hasPrefix("echolab: \(scenarios.appendingPathComponent("a.json").path): echo_path.gain"), verify.standardError)
        XCTAssertTrue(lines[1].contains("h.json: findings differ from golden"), verify.standardError)
        try FileManager.default.removeItem(at: scenarios.appendingPathComponent("a.json"))
        XCTAssertEqual(try runEchoLab(["vectors", "verify", "--vectors", root.path]).status, 3)
    }

    /// An entry that lost a check (its metrics, one metric, its findings, pipeline or taps)
    /// verified as "all match" for the metrics: a golden that silently stops checking. A wrong
    /// type, an unknown key or schema was a mismatch (exit 3). Each is now an error naming the
    /// key (exit 1), before anything runs.
    func testAnEntryMissingACheckOrMalformedIsAnErrorNamingTheKey() throws {
        try blessedFolder()
        let pristine = try Data(contentsOf: golden)
        let missing = "missing: an entry must check everything a run measures (vectors bless writes it all)"
        let cases: [(String, ((inout [String: Any]) -> Void)?, ((inout [String: Any]) -> Void)?, String)] = [
            ("metrics removed", { $0["metrics"] = nil }, nil, "scenarios.g.metrics: \(missing)"),
            ("metrics emptied", { $0["metrics"] = [String: Any]() }, nil, "scenarios.g.metrics.erl_db: \(missing)"),
            ("one metric removed", { var m = $0["metrics"] as! [String: Any]; m["erle_db"] = nil; $0["metrics"] = m }, nil,
             "scenarios.g.metrics.erle_db: \(missing)"),
            ("findings removed", { $0["findings"] = nil }, nil, "scenarios.g.findings: \(missing)"),
            ("pipeline removed", { $0["pipeline"] = nil }, nil, "scenarios.g.pipeline: \(missing)"),
            ("taps removed", { $0["taps_sha256"] = nil }, nil, "scenarios.g.taps_sha256: \(missing)"),
            ("ticks a string", { var p = $0["pipeline"] as! [String: Any]; p["ticks"] = "100"; $0["pipeline"] = p }, nil,
             "scenarios.g.pipeline.ticks: expected a number, found a string"),
            ("pipeline key misspelt", { var p = $0["pipeline"] as! [String: Any]; p["ticksx"] = p["ticks"]; $0["pipeline"] = p }, nil,
             "scenarios.g.pipeline.ticksx: unknown key (ticks, underruns, overruns)"),
            ("tap hash not one", { var t = $0["taps_sha256"] as! [String: Any]; t["extra.wav"] = "00"; $0["taps_sha256"] = t }, nil,
             "scenarios.g.taps_sha256.extra.wav: \"00\" is not a SHA-256 (64 hex digits)"),
            ("finding not a name", { $0["findings"] = [1] }, nil, "scenarios.g.findings[0]: expected a rule name (a string), found a number"),
            ("schema unknown", nil, { $0["schema"] = "echolab.golden/2" },
             "schema: \"echolab.golden/2\" is not a format this echolab reads (\"echolab.golden/1\")"),
        ]
        for (label, entryChange, documentChange, problem) in cases {
            try pristine.write(to: golden)
            if let entryChange { try editEntry("g", entryChange) }
            if let documentChange { try editGolden(documentChange) }
            let verify = try runEchoLab(["vectors", "verify", "--vectors", root.path])
            XCTAssertEqual(verify.status, 1, label)
            XCTAssertEqual(verify.standardError, "echolab: \(golden.path): \(problem)\n", label)
        }
    }

    /// A metric that is null on one side said "is 12  but golden has null " (the canonical
    /// text's newline, printed as a space); all taps were one line of hashes naming no tap.
    func testMismatchesAreOneLineEachNamingWhatDiffers() throws {
        try blessedFolder()
        let fakeHash = String(repeating: "0", count: 64)
        try editEntry {
            var metrics = $0["metrics"] as! [String: Any]
            metrics["erl_db"] = ["value": NSNull(), "tolerance": 0.05]
            $0["metrics"] = metrics
            var taps = $0["taps_sha256"] as! [String: Any]
            taps["sent.wav"] = fakeHash
            $0["taps_sha256"] = taps
        }
        let verify = try runEchoLab(["vectors", "verify", "--vectors", root.path])
        XCTAssertEqual(verify.status, 3)
        let file = scenarios.appendingPathComponent("g.json").path
        let lines = verify.standardError.split(separator: "\n").map(String.init)
        guard lines.count == 2 else { return XCTFail("two lines expected: \(verify.standardError)") }
        XCTAssertTrue(lines[0].hasPrefix("echolab: \(file): erl_db is "), lines[0])
        XCTAssertTrue(lines[0].hasSuffix(" but golden has null"), lines[0])
        XCTAssertFalse(lines[0].contains("  "), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("echolab: \(file): tap sent.wav: SHA-256 "), lines[1])
        XCTAssertTrue(lines[1].hasSuffix(" differs from golden \(fakeHash)"), lines[1])
    }

    /// verify on a golden.json that is a folder said "no golden expectations here".
    func testAGoldenFileThatIsAFolderIsNamedAsSuch() throws {
        try FileManager.default.createDirectory(at: golden, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: scenarios, withIntermediateDirectories: true)
        let verify = try runEchoLab(["vectors", "verify", "--vectors", root.path])
        XCTAssertEqual(verify.status, 1)
        XCTAssertEqual(verify.standardError, "echolab: \(golden.path): is a folder, not a file\n")
    }

    /// Outside the repository the default `vectors` is not there: verify said "no golden
    /// expectations here" and advised a bless, which failed on "vectors/scenarios: no such file".
    func testAVectorsFolderThatIsNotThereIsSaidToBeMissing() throws {
        let empty = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: empty) }
        for command in ["verify", "bless"] {
            let result = try runEchoLab(["vectors", command], in: empty)
            XCTAssertEqual(result.status, 1, command)
            XCTAssertEqual(result.standardError, "echolab: vectors: no such folder; give --vectors the project's vectors folder "
                           + "(the one holding golden.json and scenarios/: vectors/ in the repository)\n", command)
            XCTAssertEqual(allFiles(under: empty), [], command)
        }
        try Data().write(to: empty.appendingPathComponent("vectors"))
        let file = try runEchoLab(["vectors", "verify"], in: empty)
        XCTAssertEqual(file.standardError, "echolab: vectors: is a file, not a folder (--vectors names the folder holding golden.json and scenarios/)\n")
    }

    /// bless reset a hand-widened tolerance to 0.05. It keeps it now; a metric without one gets 0.05.
    func testBlessKeepsHandSetTolerances() throws {
        try blessedFolder()
        try editEntry {
            var metrics = $0["metrics"] as! [String: Any]
            var erle = metrics["erle_db"] as! [String: Any]
            erle["tolerance"] = 1.5
            metrics["erle_db"] = erle
            var erl = metrics["erl_db"] as! [String: Any]
            erl["tolerance"] = nil
            metrics["erl_db"] = erl
            $0["metrics"] = metrics
            // As an earlier EchoLab wrote its pipeline: bless re-measures it, and kept refusing
            // the file ("pipeline.frames: unknown key") instead.
            $0["pipeline"] = ["frames": 96_000, "underruns": 0, "overruns": 0]
        }
        XCTAssertEqual(try runEchoLab(["vectors", "verify", "--vectors", root.path]).status, 1, "verify stays strict")
        XCTAssertEqual(try runEchoLab(["vectors", "bless", "--vectors", root.path]).status, 0)
        let metrics = try XCTUnwrap(((loadJSON(golden.path)["scenarios"] as? [String: Any])?["g"] as? [String: Any])?["metrics"] as? [String: Any])
        XCTAssertEqual((metrics["erle_db"] as? [String: Any])?["tolerance"] as? Double, 1.5)
        XCTAssertEqual((metrics["erl_db"] as? [String: Any])?["tolerance"] as? Double, 0.05)
    }

    /// From a golden-vectors user's trial: bless rewrote a golden.json verify calls malformed
    /// (a misspelt metric lost its hand-set tolerance, exit 0); a tolerance of 0 failed right
    /// after a bless (golden holds four decimals, verify compared the unrounded measurement); an
    /// upper-case hash (PowerShell's) differed from itself; and a tolerance could never pass a
    /// change, since the taps' hashes moved with it — `"taps_sha256": null` compares none.
    func testBlessRefusesAMalformedGoldenAndVerifyReadsItAsWritten() throws {
        try blessedFolder()
        try editEntry {
            var metrics = $0["metrics"] as! [String: Any]
            var erle = metrics.removeValue(forKey: "erle_db") as! [String: Any]
            erle["tolerance"] = 0.5
            metrics["erle_DB"] = erle
            $0["metrics"] = metrics
        }
        let edited = try Data(contentsOf: golden)
        let bless = try runEchoLab(["vectors", "bless", "--vectors", root.path])
        XCTAssertEqual(bless.status, 1)
        XCTAssertEqual(bless.standardError, "echolab: \(golden.path): scenarios.g.metrics.erle_DB: unknown metric "
                       + "(erl_db, erle_db, erle_steady_db, convergence_s, delay_ms)\n")
        XCTAssertEqual(try Data(contentsOf: golden), edited, "left as it was")

        try FileManager.default.removeItem(at: golden)
        try blessedFolder()
        try editEntry {
            var metrics = $0["metrics"] as! [String: [String: Any]]
            for key in metrics.keys { metrics[key]!["tolerance"] = 0 }
            $0["metrics"] = metrics
            $0["taps_sha256"] = ($0["taps_sha256"] as! [String: String]).mapValues { $0.uppercased() }
        }
        let exact = try runEchoLab(["vectors", "verify", "--vectors", root.path])
        XCTAssertEqual(exact.status, 0, exact.standardError)

        // Another run of the scenario (its seed changed) with its taps not compared: the
        // metrics alone decide, and a re-bless keeps the null.
        try editEntry { $0["taps_sha256"] = NSNull() }
        _ = try writeScenario(#"{"name": "g", "far_end": {"generator": "white_noise", "seed": 99}, "duration_s": 1}"#, named: "g.json", in: scenarios)
        let other = try runEchoLab(["vectors", "verify", "--vectors", root.path])
        XCTAssertEqual(other.status, 3, other.standardError)
        XCTAssertFalse(other.standardError.contains("tap "), other.standardError)
        XCTAssertEqual(try runEchoLab(["vectors", "bless", "--vectors", root.path]).status, 0)
        XCTAssertTrue(((try loadJSON(golden.path)["scenarios"] as? [String: Any])?["g"] as? [String: Any])?["taps_sha256"] is NSNull)
        XCTAssertEqual(try runEchoLab(["vectors", "verify", "--vectors", root.path]).status, 0)
    }

    /// A `"tolerance": null` is a tolerance left out (it was refused: "expected a number, found
    /// null"); bless names golden.json without a doubled slash after a folder given with one.
    func testANullToleranceIsTheDefaultAndBlessNamesTheFileCleanly() throws {
        try blessedFolder()
        try editEntry {
            var metrics = $0["metrics"] as! [String: [String: Any]]
            metrics["erl_db"]!["tolerance"] = NSNull()
            $0["metrics"] = metrics
        }
        let verify = try runEchoLab(["vectors", "verify", "--vectors", root.path])
        XCTAssertEqual(verify.status, 0, verify.standardError)
        let bless = try runEchoLab(["vectors", "bless", "--vectors", root.path + "/"])
        XCTAssertEqual(bless.status, 0, bless.standardError)
        XCTAssertEqual(bless.standardOutput, "vectors: \(golden.path) re-measured; review its diff\n")
        let metrics = try XCTUnwrap(((loadJSON(golden.path)["scenarios"] as? [String: Any])?["g"] as? [String: Any])?["metrics"] as? [String: Any])
        XCTAssertEqual((metrics["erl_db"] as? [String: Any])?["tolerance"] as? Double, 0.05, "the default, written")
    }

    /// `--vectors ""` generated into the working folder; it is a usage error, as `--out ""` is.
    func testAnEmptyVectorsFolderIsAUsageError() throws {
        for subcommand in ["generate", "bless", "verify"] {
            let result = try runEchoLab(["vectors", subcommand, "--vectors", ""], in: root)
            XCTAssertEqual(result.status, 64, subcommand)
            XCTAssertTrue(result.standardError.hasPrefix("Error: --vectors must name a folder (got an empty string)\n"), result.standardError)
        }
        XCTAssertEqual(allFiles(under: root), [])
    }

    /// generate replaced a user's scenario that had a shipped name. A differing file is refused
    /// before anything is written; identical ones (the shipped set itself) are fine.
    func testGenerateRefusesToReplaceADifferingFileOfAShippedName() throws {
        try FileManager.default.createDirectory(at: scenarios, withIntermediateDirectories: true)
        let mine = try writeScenario(#"{"name": "nearend-only", "far_end": {"generator": "speech"}}"#, named: "nearend-only.json", in: scenarios)
        let generate = try runEchoLab(["vectors", "generate", "--vectors", root.path])
        XCTAssertEqual(generate.status, 1)
        XCTAssertEqual(generate.standardError,
                       "echolab: \(mine): exists and differs from EchoLab's shipped file of that name; move it away, or give --vectors another folder\n")
        XCTAssertEqual(allFiles(under: root), ["scenarios", "scenarios/nearend-only.json"])
        try FileManager.default.removeItem(atPath: mine)
        let first = try runEchoLab(["vectors", "generate", "--vectors", root.path])
        XCTAssertEqual(first.status, 0)
        let generated = try snapshot(root)
        let shipped = generated.keys.filter { $0.hasSuffix(".wav") || $0.hasSuffix(".json") }.count
        XCTAssertEqual(first.standardOutput, "vectors: \(shipped) files written to \(root.path)\n")
        // Run again, nothing changes, and it says so rather than "written".
        let again = try runEchoLab(["vectors", "generate", "--vectors", root.path])
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(again.standardOutput, "vectors: \(root.path) already holds the \(shipped) files shipped; none written\n")
        XCTAssertEqual(try snapshot(root), generated)
        // One shipped file removed: that one is written, the rest said to be as shipped.
        try FileManager.default.removeItem(atPath: scenarios.appendingPathComponent("nearend-only.json").path)
        let one = try runEchoLab(["vectors", "generate", "--vectors", root.path])
        XCTAssertEqual(one.standardOutput, "vectors: 1 file written to \(root.path), \(shipped - 1) already as shipped\n")
        XCTAssertEqual(try snapshot(root), generated)
    }

    /// A TMPDIR that does not exist was created (with its parents) for bless's and verify's
    /// scratch runs. It is left alone now: scratch goes to /tmp instead.
    func testAMissingTemporaryFolderIsNotCreated() throws {
        try blessedFolder()
        let missing = root.appendingPathComponent("no-such-tmp/inner")
        let verify = try run(["vectors", "verify", "--vectors", root.path], environment: ["TMPDIR": missing.path])
        XCTAssertEqual(verify.terminationStatus, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("no-such-tmp").path))
    }

    /// bless and verify died by the signal, leaving their scratch run (with .partial taps) in
    /// TMPDIR. They stop now at the next tick, remove it, leave golden.json as it was and exit
    /// 128 + the signal with one line.
    func testInterruptedBlessAndVerifyLeaveNothingAndKeepGolden() throws {
        try blessedFolder()
        _ = try writeScenario(#"{"name": "long", "far_end": {"generator": "white_noise", "seed": 3}, "aec": {"mode": "disabled"}, "duration_s": 3600}"#,
                              named: "long.json", in: scenarios)
        let before = try Data(contentsOf: golden)
        let scratch = root.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        for (subcommand, signalNumber, status, message) in [
            ("bless", SIGTERM, Int32(143), "echolab: vectors bless: interrupted; golden.json left as it was\n"),
            ("verify", SIGINT, Int32(130), "echolab: vectors verify: interrupted; not every scenario was checked\n"),
            ("bless", SIGHUP, Int32(129), "echolab: vectors bless: interrupted; golden.json left as it was\n"),
        ] {
            let process = try start(["vectors", subcommand, "--vectors", root.path], environment: ["TMPDIR": scratch.path])
            let deadline = Date().addingTimeInterval(60)
            while !allFiles(under: scratch).contains(where: { $0.hasSuffix(".wav.partial") }), Date() < deadline { usleep(10_000) }
            kill(process.processIdentifier, signalNumber)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, status, subcommand)
            XCTAssertEqual(process.terminationReason, .exit, subcommand)
            XCTAssertEqual(String(decoding: (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), message)
            XCTAssertEqual(allFiles(under: scratch), [], subcommand)
            XCTAssertEqual(try Data(contentsOf: golden), before, subcommand)
        }
    }

    /// The binary with `environment` added, its standard error on a pipe, not waited for.
    private func start(_ arguments: [String], environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = try echoLabBinary()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = Pipe()
        try process.run()
        return process
    }

    private func run(_ arguments: [String], environment: [String: String]) throws -> Process {
        let process = try start(arguments, environment: environment)
        process.waitUntilExit()
        return process
    }
}
