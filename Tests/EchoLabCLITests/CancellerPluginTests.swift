import AudioCore
import AudioInterop
import EchoLabTestSupport
import Foundation
import XCTest

/// Canceller plugins (include/echolab_canceller.h) through the binary, with plugins the tests
/// build with cc from Plugins/misbehaving.c and Examples/Plugins/nlms.c: foreign code fails only
/// its own runs, with one line naming the plugin and what happened.
final class CancellerPluginTests: XCTestCase {
    static let header = packageRoot.appendingPathComponent("Sources/CEchoLabPluginHost/include").path

    /// Builds `source` into `folder/name.so` with `defines`.
    static func build(_ source: String, _ name: String, in folder: URL, defines: [String] = []) throws -> String {
        let output = folder.appendingPathComponent("\(name).so").path
        let compiled = try runProgram(URL(fileURLWithPath: "/usr/bin/cc"),
                                      ["-shared", "-fPIC", "-O2", "-I", header] + defines.map { "-D\($0)" }
                                      + [packageRoot.appendingPathComponent(source).path, "-o", output, "-lm"])
        XCTAssertEqual(compiled.status, 0, compiled.output)
        return output
    }

    /// ROOT/corpus (the two-item corpus) and an empty ROOT/plugins, which it returns.
    static func corpusAndPluginFolder(in root: URL) throws -> URL {
        try writeTwoItemCorpus(in: root.appendingPathComponent("corpus"))
        let plugins = root.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        return plugins
    }

    static func misbehaving(_ behaviour: String, in folder: URL) throws -> String {
        try build("Tests/EchoLabCLITests/Plugins/misbehaving.c", behaviour, in: folder, defines: ["BEHAVIOUR=B_\(behaviour)"])
    }

    /// eval.json's runs: "item mode" → the run's result object.
    static func results(_ evalJSON: String) throws -> [String: [String: Any]] {
        var runs: [String: [String: Any]] = [:]
        for item in try loadJSON(evalJSON)["items"] as! [[String: Any]] {
            for result in item["results"] as! [[String: Any]] { runs["\(item["name"]!) \(result["mode"]!)"] = result }
        }
        return runs
    }

    func testEachMisbehaviourFailsOnlyItsOwnRunsWithOneLine() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let plugins = try Self.corpusAndPluginFolder(in: root)
        // What each says, after "plugin NAME (PATH): ".
        let expected: [String: String] = [
            "crash": "crashed at frame 30 (signal 11, Segmentation fault)",
            "hang": "sent no frame back within 2000 ms at frame 30 (hung?): stopped",
            "error": "capture returned 7 at frame 30",
            "render_error": "render returned 5 at frame 30",
            // Read as a reply, the text was "capture returned 1734698849".
            "scribbles": "sent a reply that is not EchoLab's protocol at frame 30 (did it write into the frame socket?)",
            "nan": "wrote nan at sample 3 of frame 30, 0.30 s after it started",
            "huge": "wrote 1e+19 at sample 3 of frame 30, 0.30 s after it started (±2^20, +120 dBFS, or louder: not audio)",
            "create_fails": "create failed: no licence for this room (it was asked for 48000 Hz; --plugin-rate create-fails=HZ, "
                + "or a scenario's aec.plugin_rate, runs it at 8000, 16000, 32000 or 48000)",   // its reason's line breaks and double space as one space each
            "create_crash": "crashed while loading or creating (signal 11, Segmentation fault)",
            "no_entry": "not a canceller plugin: it exports no echolab_canceller_entry",
            "abi2": "its ABI version is 2; EchoLab speaks version 1",
            "bad_latency": "latency_samples returned -5 (it must be 0 to 48000: at most a second)",
            "no_name": "its name is NULL or empty (the reports name a plugin by it)",
            "no_functions": "its function table has no render, destroy (create, render, capture and destroy are required)",
            // Every frame answered: a plugin that fails only as it lets go does not pass.
            "destroy_crash": "crashed after its last frame, in destroy or as it exited (signal 11, Segmentation fault)",
            "destroy_exit": "exited with status 9 after its last frame",
            "destroy_hang": "did not exit within 2000 ms of its last frame (a destroy that hangs?), and was killed",
        ]
        let failsToStart: Set = ["create_fails", "create_crash", "no_entry", "abi2", "bad_latency", "no_name", "no_functions"]
        var arguments = ["eval", "corpus", "--out", "out", "--no-taps", "--jobs", "2"]
        for behaviour in expected.keys.sorted() {
            arguments += ["--plugin", "\(behaviour.replacingOccurrences(of: "_", with: "-"))=plugins/\(behaviour).so"]
            _ = try Self.misbehaving(behaviour, in: plugins)
        }
        let modes = ["speex:intensityRecommended"] + expected.keys.sorted().map { "\($0.replacingOccurrences(of: "_", with: "-")):intensityMax" }
        arguments += ["--modes", modes.joined(separator: ",")]
        let inputs = try snapshot(root.appendingPathComponent("corpus"))
        let eval = try runEchoLab(arguments, in: root)
        XCTAssertEqual(eval.status, 1, eval.standardOutput + eval.standardError)
        XCTAssertTrue(eval.standardOutput.hasPrefix("2 of 36 runs succeeded"), eval.standardOutput)
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        for item in ["delay40-intensityRecommended", "speech"] {
            XCTAssertNil(runs["\(item) speex:intensityRecommended"]?["error"] as? String, "the built-in backend's run completes")
            for (behaviour, problem) in expected {
                let name = behaviour.replacingOccurrences(of: "_", with: "-")
                let error = try XCTUnwrap(runs["\(item) \(name):intensityMax"]?["error"] as? String, "\(item) \(name)")
                let path = plugins.appendingPathComponent("\(behaviour).so").path
                XCTAssertTrue(error.hasSuffix("plugin \(name) (\(path)): \(problem)"), "\(item) \(name): \(error)")
                XCTAssertFalse(error.contains("\n"), error)
                XCTAssertTrue(eval.standardError.contains("plugin \(name) (\(path)): \(problem)"), eval.standardError)
                // Which build failed, as a run that ran names its plugin: a CI artifact of a crash
                // says it. By the name it gave itself where it got as far as saying it.
                let digest = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [path]).output.prefix(64)
                let said = failsToStart.contains(behaviour) ? name : "misbehaving"
                XCTAssertEqual(runs["\(item) \(name):intensityMax"]?["library"] as? String, "plugin \(said), sha256 \(digest)", "\(item) \(name)")
            }
        }
        // …and eval.md, whose "Measured with" left out the plugins whose runs all failed.
        let markdown = try String(contentsOf: root.appendingPathComponent("out/eval.md"), encoding: .utf8)
        let crashDigest = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [plugins.appendingPathComponent("crash.so").path]).output.prefix(64)
        XCTAssertTrue(markdown.contains("crash: plugin misbehaving, sha256 \(crashDigest)"), markdown)
        // The line names the runs it stopped (the message names the plugin, not the items).
        let crashPath = plugins.appendingPathComponent("crash.so").path
        XCTAssertTrue(eval.standardError.contains("plugin crash (\(crashPath)): crashed at frame 30 (signal 11, Segmentation fault) "
                                                  + "(2 runs: delay40-intensityRecommended crash:intensityMax, speech crash:intensityMax)\n"),
                      eval.standardError)
        XCTAssertEqual(runs["speech crash:intensityMax"]?["canceller_failure"] as? Bool, true)
        XCTAssertEqual(try snapshot(root.appendingPathComponent("corpus")), inputs, "inputs unchanged")
        // No child is left behind, hung or not.
        let children = try runProgram(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-f", "plugin-host .*\(root.lastPathComponent)"])
        XCTAssertEqual(children.output, "", "plugin hosts still running")
    }

    /// A plugin that crashes beside a built-in backend that ran: each item's section names the
    /// plugin's mode, not "every mode" (eval.html said so where every failed run was of one mode).
    func testAFailureOfOneModeIsNamedForThatMode() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let plugins = try Self.corpusAndPluginFolder(in: root)
        _ = try Self.misbehaving("crash", in: plugins)
        // 0.2 s: 20 frames, ended before the plugin's 30th, so it runs there.
        _ = try writeScenario(#"{"name": "short", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}, "duration_s": 0.2}"#,
                              named: "short.json", in: root.appendingPathComponent("corpus"))
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--jobs", "1", "--plugin", "crash=plugins/crash.so",
                                   "--modes", "speex:intensityRecommended,crash:intensityMax"], in: root)
        XCTAssertEqual(eval.status, 1, eval.standardOutput + eval.standardError)
        let page = try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
        let failed = page.components(separatedBy: "Failed: ").dropFirst().map { $0.prefix { $0 != "<" } }
        XCTAssertEqual(failed.count, 2, page)
        for line in failed { XCTAssertTrue(line.hasSuffix("crashed at frame 30 (signal 11, Segmentation fault) (crash:intensityMax)."), String(line)) }
        // One file, named once: as the plugin names itself where it ran, not again by the name
        // the failed runs knew it under.
        let markdown = try String(contentsOf: root.appendingPathComponent("out/eval.md"), encoding: .utf8)
        let digest = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [plugins.appendingPathComponent("crash.so").path]).output.prefix(64)
        XCTAssertTrue(markdown.contains("crash: plugin misbehaving, sha256 \(digest)."), markdown)
        XCTAssertFalse(markdown.contains("plugin crash, sha256"), markdown)
    }

    /// A plugin's options and a rate other than 48 kHz are part of what a run measured: its
    /// `library` names them, so `compare` lists a re-tuned plugin as another canceller instead
    /// of judging its runs as regressions of the same one.
    func testAPluginsOptionsAndRateAreInItsLibrary() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let plugins = try Self.corpusAndPluginFolder(in: root)
        let through = try Self.misbehaving("passthrough", in: plugins)
        let digest = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [through]).output.prefix(64)
        let plain = try runEchoLab(["eval", "corpus", "--out", "plain", "--no-taps", "--plugin", "mine=plugins/passthrough.so",
                                    "--modes", "mine:intensityMax"], in: root)
        XCTAssertEqual(plain.status, 0, plain.standardError)
        let tuned = try runEchoLab(["eval", "corpus", "--out", "tuned", "--no-taps", "--plugin", "mine=plugins/passthrough.so",
                                    "--plugin-options", #"mine={"mu": 0.5}"#, "--plugin-rate", "mine=16000", "--modes", "mine:intensityMax"], in: root)
        XCTAssertEqual(tuned.status, 0, tuned.standardError)
        let plainRuns = try Self.results(root.appendingPathComponent("plain/eval.json").path)
        let tunedRuns = try Self.results(root.appendingPathComponent("tuned/eval.json").path)
        XCTAssertEqual(plainRuns["speech mine:intensityMax"]?["library"] as? String, "plugin misbehaving, sha256 \(digest)")
        XCTAssertEqual(tunedRuns["speech mine:intensityMax"]?["library"] as? String,
                       #"plugin misbehaving, sha256 \#(digest), options {"mu":0.5}, at 16000 Hz"#)
        let compared = try runEchoLab(["compare", "plain/eval.json", "tuned/eval.json"], in: root)
        XCTAssertEqual(compared.status, 0, compared.standardOutput + compared.standardError)
        XCTAssertTrue(compared.standardOutput.contains("2 runs measured with another canceller library or plugin build were not judged"),
                      compared.standardOutput)
    }

    /// A plugin file replaced while an eval runs (rebuilt: here by its own first create, so the
    /// second run finds the other file): the runs after fail, naming both hashes, and the mode's
    /// figures stand on the file the eval started with only. Before, both files' runs were
    /// summed as one mode.
    func testAPluginFileReplacedWhileTheEvalRunsFailsTheRunsAfter() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let plugins = try Self.corpusAndPluginFolder(in: root)
        let rebuilt = try Self.misbehaving("mute", in: plugins)
        let target = plugins.appendingPathComponent("mine.so").path
        _ = try Self.build("Tests/EchoLabCLITests/Plugins/misbehaving.c", "mine", in: plugins,
                           defines: ["BEHAVIOUR=B_replaces_itself", "SWAP_FROM=\"\(rebuilt)\"", "SWAP_TO=\"\(target)\""])
        let started = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [target]).output.prefix(64)
        let replacement = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [rebuilt]).output.prefix(64)
        XCTAssertNotEqual(started, replacement)
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--jobs", "1", "--plugin", "mine=plugins/mine.so",
                                   "--modes", "mine:intensityMax"], in: root)
        XCTAssertEqual(eval.status, 1, eval.standardOutput + eval.standardError)
        XCTAssertTrue(eval.standardOutput.hasPrefix("1 of 2 runs succeeded"), eval.standardOutput)
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        XCTAssertNil(runs["delay40-intensityRecommended mine:intensityMax"]?["error"] as? String, "the first run ran the file the eval started with")
        let error = try XCTUnwrap(runs["speech mine:intensityMax"]?["error"] as? String)
        XCTAssertEqual(error, "plugin mine: \(target) changed while the eval ran (sha256 \(started.prefix(12))… when it started, "
                       + "sha256 \(replacement.prefix(12))… now): one name is one canceller, so this run is not measured; run the eval again")
        XCTAssertTrue(eval.standardError.contains(error + " (speech mine:intensityMax)"), eval.standardError)
    }

    /// A plugin rebuilt in place while it runs crashes in code that changed under it: the run's
    /// error says the file changed, where it blamed the plugin alone ("crashed at frame 390").
    func testAPluginThatCrashesAfterItsFileChangedSaysSo() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let plugins = try Self.corpusAndPluginFolder(in: root)
        let target = plugins.appendingPathComponent("mine.so").path
        _ = try Self.build("Tests/EchoLabCLITests/Plugins/misbehaving.c", "mine", in: plugins,
                           defines: ["BEHAVIOUR=B_rewritten_crash", "SWAP_TO=\"\(target)\""])
        let started = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [target]).output.prefix(12)
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--jobs", "1", "--plugin", "mine=plugins/mine.so",
                                   "--modes", "mine:intensityMax"], in: root)
        XCTAssertEqual(eval.status, 1, eval.standardOutput + eval.standardError)
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        let error = try XCTUnwrap(runs["delay40-intensityRecommended mine:intensityMax"]?["error"] as? String)
        XCTAssertTrue(error.hasPrefix("plugin mine (\(target)): crashed at frame 30 (signal 11, Segmentation fault) (its file changed while it ran: "
                                      + "sha256 \(started)… when the eval started, "), error)
        // `run` and `process` say it too, of the file as they found it.
        let mic = root.appendingPathComponent("mic.wav").path, loopback = root.appendingPathComponent("lpb.wav").path
        let noise = SignalGenerator.render(.whiteNoise(levelDBFS: -30), sampleRate: 48_000, count: 48_000, seed: 3)
        try SoundFileWriter.write(noise, to: mic, sampleRate: 48_000)
        try SoundFileWriter.write(noise, to: loopback, sampleRate: 48_000)
        for (command, arguments) in [("run", ["run", "corpus/delay.json", "--out", "run", "--no-taps", "--aec", "mine:intensityMax"]),
                                     ("process", ["process", "--mic", "mic.wav", "--reference", "lpb.wav", "--out", "sent.wav", "--aec", "mine:intensityMax"])] {
            _ = try Self.build("Tests/EchoLabCLITests/Plugins/misbehaving.c", "mine", in: plugins,
                               defines: ["BEHAVIOUR=B_rewritten_crash", "SWAP_TO=\"\(target)\""])
            let before = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [target]).output.prefix(12)
            let result = try runEchoLab(arguments + ["--plugin", "mine=plugins/mine.so"], in: root)
            XCTAssertEqual(result.status, 1, result.standardError)
            XCTAssertTrue(result.standardError.contains("crashed at frame 30 (signal 11, Segmentation fault) (its file changed while it ran: "
                                                        + "sha256 \(before)… when the \(command) started, "), result.standardError)
        }
    }

    /// The report's SHA-256 is of the file the plugin ran from. A host started by a wrapper that
    /// first replaces the plugin (renamed over it, or written in place) — a rebuild in the ~30 ms
    /// between the run hashing the file and its host loading it — fails the run; before, the
    /// report named the hash of the file that did not run.
    func testAPluginReplacedBetweenItsHashAndItsLoadFailsItsRun() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try Self.misbehaving("passthrough", in: root), second = try Self.misbehaving("mute", in: root)
        let target = root.appendingPathComponent("mine.so").path
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "delay.json", in: root)
        for (replace, says) in [("cp \"\(second)\" \"$PLUGIN.new\" && mv \"$PLUGIN.new\" \"$PLUGIN\"", "another file was loaded"),
                                ("cat \"\(second)\" > \"$PLUGIN\"", "then the file was written")] {
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: first, toPath: target)
            let wrapper = root.appendingPathComponent("host.sh")
            // Once, as a rebuild happens, not at every start of a host (a file written in place
            // under a running host is another failure: its relocated pages are dropped).
            let once = root.appendingPathComponent("replaced").path
            try? FileManager.default.removeItem(atPath: once)
            try "#!/bin/sh\nPLUGIN=\"\(target)\"\nif [ ! -e \"\(once)\" ]; then : > \"\(once)\"; \(replace); fi\nexec \"\(try echoLabBinary().path)\" \"$@\"\n".write(to: wrapper, atomically: true, encoding: .utf8)
            chmod(wrapper.path, 0o755)
            let errors = Pipe()
            let process = try startEchoLab(["run", "delay.json", "--out", "run", "--no-taps", "--plugin", "mine=mine.so", "--aec", "mine:intensityMax"],
                                           in: root, standardError: errors, environment: ["ECHOLAB_PLUGIN_HOST": wrapper.path])
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 1, text)
            XCTAssertTrue(text.contains("plugin mine (\(target)): the file changed while the run started its plugin (sha256 "), text)
            XCTAssertTrue(text.contains(says), text)
            XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("run/report.json").path), "no report")
        }
    }

    /// A plugin file whose canceller comes from a library it links (a thin shim over a vendor's
    /// library) is the file loaded: the check of what was hashed looks at the shim, not at the
    /// library that holds the entry symbol (which read as "another file was loaded", every run).
    func testAPluginWhoseEntryComesFromALibraryItLinksRuns() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let vendor = try Self.build("Tests/EchoLabCLITests/Plugins/misbehaving.c", "libvendor", in: root, defines: ["BEHAVIOUR=B_passthrough"])
        let shimSource = root.appendingPathComponent("shim.c")
        try "int echolab_shim_marker = 1;\n".write(to: shimSource, atomically: true, encoding: .utf8)
        let shim = root.appendingPathComponent("shim.so").path
        let linked = try runProgram(URL(fileURLWithPath: "/usr/bin/cc"),
                                    ["-shared", "-fPIC", shimSource.path, "-o", shim, "-Wl,--no-as-needed", "-L", root.path, "-l:libvendor.so",
                                     "-Wl,-rpath,\(root.path)"])
        XCTAssertEqual(linked.status, 0, linked.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: vendor))
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "delay.json", in: root)
        let run = try runEchoLab(["run", "delay.json", "--out", "run", "--no-taps", "--plugin", "shim=shim.so", "--aec", "shim:intensityMax"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
    }

    /// The echolab binary hosts its plugins itself, whatever its file is named: a copy named
    /// `echolab-bin` (a new user's trial) looked for a file named `echolab` beside it and failed
    /// every plugin run.
    func testABinaryOfAnotherNameHostsItsPlugins() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try Self.misbehaving("passthrough", in: root)
        let copy = root.appendingPathComponent("echolab-bin")
        try FileManager.default.copyItem(at: try echoLabBinary(), to: copy)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "delay.json", in: root)
        var environment = ProcessInfo.processInfo.environment
        environment["ECHOLAB_PLUGIN_HOST"] = nil
        let run = try runCapturingErrors(copy, ["run", "delay.json", "--out", "run", "--no-taps", "--plugin", "mine=passthrough.so",
                                                "--aec", "mine:intensityMax"], in: root, environment: environment)
        XCTAssertEqual(run.status, 0, run.errors)
        let report = try loadJSON(root.appendingPathComponent("run/report.json").path)
        XCTAssertEqual((report["aec"] as? [String: Any])?["backend"] as? String, "mine")
    }

    /// A host that is not EchoLab's (`ECHOLAB_PLUGIN_HOST` naming another program) is named as
    /// the trouble, not the plugin: it never sends the host's greeting. A new user's trial read
    /// "crashed while loading or creating (signal 11)" for a host that was a shared library, and
    /// "exited … (status 0) without answering" for /bin/true, of a plugin that was fine.
    func testAHostThatIsNotEchoLabsIsNamed() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let plugin = try Self.misbehaving("passthrough", in: root)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "delay.json", in: root)
        // A program that writes a line of its own where the greeting goes (the socket is its stdin).
        let other = root.appendingPathComponent("other-host.sh")
        try "#!/bin/sh\necho \"hello from $1\" >&0\n".write(to: other, atomically: true, encoding: .utf8)
        chmod(other.path, 0o755)
        for (host, says) in [("/bin/true", "it exited at start (status 0) without answering"), (other.path, "it answered 'hello from plugin-host'")] {
            let errors = Pipe()
            let process = try startEchoLab(["run", "delay.json", "--out", "run", "--no-taps", "--plugin", "mine=passthrough.so", "--aec", "mine:intensityMax"],
                                           in: root, standardError: errors, environment: ["ECHOLAB_PLUGIN_HOST": host])
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 1, text)
            XCTAssertTrue(text.contains("plugin mine (\(plugin)): its host \(host) is not EchoLab's plugin host of this version: \(says)"), text)
            XCTAssertTrue(text.contains("(set ECHOLAB_PLUGIN_HOST to this echolab binary)"), text)
            XCTAssertFalse(text.contains("loading or creating"), text)
        }
    }

    /// A plugin's library is one of a command's inputs: `process --out` naming it, and a `run` or
    /// `eval` output folder holding it (given with --plugin or a scenario's aec.plugin), are
    /// refused before anything is written, and the library is unchanged (a new user's trial:
    /// `process --out plug.wav --plugin acme=plug.wav` replaced the plugin with its own output).
    func testAnOutputNeverReplacesThePluginThatWritesIt() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let out = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let built = try Self.misbehaving("passthrough", in: root)
        let plugin = out.appendingPathComponent("plug.wav").path
        try FileManager.default.copyItem(atPath: built, toPath: plugin)
        let original = try Data(contentsOf: URL(fileURLWithPath: plugin))
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "delay.json", in: root)
        _ = try writeScenario("""
            {"name": "own", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "echo_path": {"delay_ms": 40, "gain_db": -6}, "duration_s": 1,
             "aec": {"mode": "intensityMax", "backend": "p", "plugin": "out/plug.wav"}}
            """, named: "own.json", in: root)
        let run = try runEchoLab(["run", "delay.json", "--out", "out"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        let cases: [([String], String)] = [
            (["process", "--mic", "out/mic.wav", "--reference", "out/reference.wav", "--out", "out/plug.wav", "--plugin", "p=out/plug.wav",
              "--aec", "p:intensityMax"], "out/plug.wav"),
            (["run", "delay.json", "--out", "out", "--plugin", "p=out/plug.wav", "--aec", "p:intensityMax"],
             "out: output folder holds the plugin p's library \(plugin); choose a folder that holds no input"),
            (["run", "own.json", "--out", "out"], "out: output folder holds the plugin p's library \(plugin); choose a folder that holds no input"),
            (["eval", "delay.json", "--out", "out", "--plugin", "p=out/plug.wav", "--modes", "p:intensityMax"],
             "out: output folder holds the plugin p's library \(plugin); choose a folder that holds no input"),
            (["eval", "own.json", "--out", "out"], "out: output folder holds the plugin p's library \(plugin); choose a folder that holds no input"),
        ]
        for (arguments, message) in cases {
            let refused = try runEchoLab(arguments, in: root)
            XCTAssertEqual(refused.status, 1, "\(arguments): \(refused.standardError)")
            XCTAssertTrue(refused.standardError.contains(message), "\(arguments): \(refused.standardError)")
            XCTAssertEqual(refused.standardError.split(separator: "\n").count, 1, "\(arguments): \(refused.standardError)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: plugin)), original, "\(arguments)")
        }
    }

    /// A mode change that retires a plugin mid-call ends its run there: one that exits in its
    /// destroy fails the run with that reason (the retired plugin stayed in place, and the next
    /// frame's "has already failed" hid it); one that lets go cleanly runs on, AEC off.
    func testAPluginRetiredMidCallIsFinishedThere() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let exits = try Self.misbehaving("destroy_exit", in: root), through = try Self.misbehaving("passthrough", in: root)
        for (plugin, name) in [(exits, "exits"), (through, "through")] {
            _ = try writeScenario("""
                {"name": "\(name)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
                 "echo_path": {"delay_ms": 40, "gain_db": -6}, "duration_s": 2,
                 "aec": {"mode": "intensityMax", "backend": "p", "plugin": "\(plugin)"},
                 "timeline": [{"action": "set_aec", "at_ms": 1000, "mode": "disabled"}]}
                """, named: "\(name).json", in: root)
        }
        let failed = try runEchoLab(["run", "exits.json", "--out", "exits"], in: root)
        XCTAssertEqual(failed.status, 1)
        XCTAssertEqual(failed.standardError, "echolab: plugin p (\(exits)): exited with status 9 after its last frame\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("exits/report.json").path))
        let passed = try runEchoLab(["run", "through.json", "--out", "through"], in: root)
        XCTAssertEqual(passed.status, 0, passed.standardError)
    }

    /// An eval into the folder of an earlier one, where a plugin of the same name now fails: the
    /// run's folder, which eval.json names, no longer holds the earlier plugin's report (it stood
    /// there beside this eval's failure); the user's own file there stays, and a folder left
    /// empty goes.
    func testAFailedPluginRunLeavesNoEarlierReportInItsFolder() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let plugins = try Self.corpusAndPluginFolder(in: root)
        let through = try Self.misbehaving("passthrough", in: plugins), crash = try Self.misbehaving("crash", in: plugins)
        func eval(_ plugin: String) throws -> Int32 {
            try runEchoLab(["eval", "corpus", "--out", "out", "--jobs", "1", "--plugin", "p=\(plugin)", "--modes", "p:intensityMax"], in: root).status
        }
        XCTAssertEqual(try eval(through), 0)
        let folder = root.appendingPathComponent("out/speech/p-intensityMax")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("sent.wav").path))
        try "mine".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try eval(crash), 1)
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        XCTAssertNotNil(runs["speech p:intensityMax"]?["error"] as? String)
        XCTAssertEqual(runs["speech p:intensityMax"]?["folder"] as? String, "speech/p-intensityMax")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(left, ["notes.txt"])
        // A folder that held the earlier run alone goes with it, and so does its item's, left
        // empty (a re-eval left an empty folder per failed run).
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/speech").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/delay40-intensityRecommended").path))
        XCTAssertEqual(runs["delay40-intensityRecommended p:intensityMax"]?["folder"] as? String, "delay40-intensityRecommended/p-intensityMax")
    }

    /// The pids of the plugin hosts whose command line matches `pattern`, once the same ones have
    /// lasted 250 ms (empty after 5 s without): the run's own host, which a hung plugin keeps. The
    /// latency check's host comes and goes before it.
    static func lastingHost(_ pattern: String) throws -> String {
        var seen: (pids: String, tick: Int)?
        for tick in 0..<250 {
            let pids = try runProgram(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-f", pattern]).output
            if pids.isEmpty {
                seen = nil
            } else if let first = seen, first.pids == pids {
                if tick - first.tick >= 12 { return pids }
            } else {
                seen = (pids, tick)
            }
            usleep(20_000)
        }
        return ""
    }

    /// A plugin hung in a call dies with EchoLab, even when EchoLab is killed outright; a
    /// terminal's Ctrl-C is EchoLab's to handle, not a plugin crash.
    func testAHungPluginDiesWithEchoLab() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let hang = try Self.misbehaving("hang", in: root)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 2), named: "delay.json", in: root)
        let process = Process()
        process.executableURL = try echoLabBinary()
        process.arguments = ["run", "delay.json", "--out", "run", "--plugin", "stuck=\(hang)", "--aec", "stuck:intensityMax"]
        process.currentDirectoryURL = root
        process.standardError = FileHandle.nullDevice
        try process.run()
        let pattern = "plugin-host \(hang)"
        func hosts() throws -> String { try runProgram(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-f", pattern]).output }
        XCTAssertFalse(try Self.lastingHost(pattern).isEmpty, "the plugin host started")
        usleep(200_000)   // the plugin is in its endless capture now
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        var waited = 0
        while try !hosts().isEmpty && waited < 100 { usleep(20_000); waited += 1 }
        XCTAssertEqual(try hosts(), "", "a plugin host outlived EchoLab")
    }

    /// Ctrl-C or SIGTERM while a hung plugin holds the run stops it at once (exit 130/143,
    /// "interrupted"), as with any other run: it waited out the plugin's 2 s and then exited 1,
    /// blaming the plugin ("sent no frame back … (hung?)").
    func testAnInterruptStopsARunThatAHungPluginHolds() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let hang = try Self.misbehaving("hang", in: root)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 2), named: "delay.json", in: root)
        for (signal, code) in [(SIGTERM, 143), (SIGINT, 130)] {
            let process = Process()
            process.executableURL = try echoLabBinary()
            process.arguments = ["run", "delay.json", "--out", "run", "--plugin", "stuck=\(hang)", "--aec", "stuck:intensityMax"]
            process.currentDirectoryURL = root
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            _ = try Self.lastingHost("plugin-host \(hang)")
            usleep(100_000)   // the plugin is in its endless capture now
            let sent = DispatchTime.now()
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - sent.uptimeNanoseconds) / 1e6
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(process.terminationStatus, Int32(code), message)
            XCTAssertEqual(message, "echolab: delay.json: interrupted; nothing written\n")
            // Under the plugin's 2 s: the interrupt cut the wait (it is cut in 50 ms slices).
            XCTAssertLessThan(milliseconds, 2_000)
            XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("run/report.json").path))
        }
    }

    /// A pass-through removes no echo (ERLE ≈ 0 dB); a plugin that sends nothing removes all of it
    /// and the near talker with it, and wins nothing — not even an item without double talk,
    /// which is judged on ERLE alone (a trial's mute won one so, and its pass-through was starred).
    /// No built-in canceller at its strongest is taken for a mute, in a room without noise, a
    /// quiet one or a noisy one: the room's own sound is judged without its echo (an echo's tail,
    /// which the gate calls silence and a canceller takes down, is all a noiseless room holds).
    func testNoCancellerMutesTheRoomOfAQuietCall() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        for (name, noise) in [("noiseless", ""), ("quiet", #", "noise": {"level_dbfs": -90, "seed": 2}"#),
                              ("noisy", #", "noise": {"level_dbfs": -65, "seed": 2}"#)] {
            _ = try writeScenario("""
                {"name": "\(name)", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 5},
                 "echo_path": {"delay_ms": 30, "gain_db": -8, "synthetic_room": {"rt60_ms": 200, "seed": 1}},
                 "aec": {"mode": "intensityRecommended", "backend": "speex"}, "duration_s": 8\(noise)}
                """, named: "\(name).json", in: root.appendingPathComponent("corpus"))
        }
        let modes = ["speex", "webrtc", "webrtc-mobile", "aec3", "echolab"].map { "\($0):intensityMax" }
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--modes", modes.joined(separator: ",")], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        XCTAssertEqual(runs.count, 15)
        for (run, result) in runs {
            let findings = result["findings"] as? [String] ?? []
            XCTAssertFalse(findings.contains("send-mutes-the-room") || findings.contains("silent-send-in-single-talk"), "\(run): \(findings)")
        }
    }

    func testAPassThroughReadsNoERLEAndAMutingPluginWinsNothing() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        _ = try writeScenario("""
            {"name": "room", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "near_end": {"generator": "speech", "level_dbfs": -26, "pitch_hz": 210, "seed": 9},
             "noise": {"level_dbfs": -65, "seed": 2},
             "echo_path": {"delay_ms": 30, "gain_db": -8, "synthetic_room": {"rt60_ms": 200, "seed": 1}},
             "aec": {"mode": "intensityRecommended", "backend": "speex"}, "duration_s": 8}
            """, named: "room.json", in: root.appendingPathComponent("corpus"))
        _ = try writeScenario("""
            {"name": "far", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 5},
             "noise": {"level_dbfs": -65, "seed": 2},
             "echo_path": {"delay_ms": 30, "gain_db": -8, "synthetic_room": {"rt60_ms": 200, "seed": 1}},
             "aec": {"mode": "intensityRecommended", "backend": "speex"}, "duration_s": 8}
            """, named: "far.json", in: root.appendingPathComponent("corpus"))
        let passthrough = try Self.misbehaving("passthrough", in: root), mute = try Self.misbehaving("mute", in: root)
        // Mutes that evade a test for digital silence in every far-end single-talk frame: one lets
        // its first half-second through, one sends a −100 dBFS floor. Each won the far-end item.
        let lateMute = try Self.misbehaving("late_mute", in: root), faintMute = try Self.misbehaving("faint_mute", in: root)
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--plugin", "through=\(passthrough)", "--plugin", "silent=\(mute)",
                                   "--plugin", "late=\(lateMute)", "--plugin", "faint=\(faintMute)",
                                   "--modes", "speex:intensityRecommended,through:intensityRecommended,silent:intensityRecommended,"
                                       + "late:intensityRecommended,faint:intensityRecommended"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        let through = try XCTUnwrap(runs["room through:intensityRecommended"]?["metrics"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(through["erle_db"] as? Double), 0, accuracy: 0.1)
        let document = try loadJSON(root.appendingPathComponent("out/eval.json").path)
        let best = try XCTUnwrap((document["best_modes"] as? [String: Any])?["modes"] as? [String], "\(document["best_modes"] ?? "no best_modes")")
        XCTAssertFalse(best.contains("silent:intensityRecommended"), "\(best)")
        let summaries = document["mode_summary"] as! [[String: Any]]
        let silent = try XCTUnwrap(summaries.first { $0["mode"] as? String == "silent:intensityRecommended" })
        XCTAssertEqual(silent["wins"] as? Int, 0, "\(silent)")
        for muting in ["late:intensityRecommended", "faint:intensityRecommended"] {
            let summary = try XCTUnwrap(summaries.first { $0["mode"] as? String == muting })
            XCTAssertEqual(summary["wins"] as? Int, 0, "\(summary)")
        }
        let throughSummary = try XCTUnwrap(summaries.first { $0["mode"] as? String == "through:intensityRecommended" })
        XCTAssertEqual(throughSummary["wins"] as? Int, 0, "\(throughSummary)")
        XCTAssertEqual(best, ["speex:intensityRecommended"])
        // It has no convergence (it never left 0 dB): its first window read as the fastest.
        let markdown = try String(contentsOf: root.appendingPathComponent("out/eval.md"), encoding: .utf8)
        let lines = markdown.split(separator: "\n")
        let throughRow = try XCTUnwrap(lines.first { $0.hasPrefix("| `through:intensityRecommended`") })
        func cells(_ row: Substring) -> [String] { row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        let column = try XCTUnwrap(cells(try XCTUnwrap(lines.first { $0.hasPrefix("| mode | runs |") })).firstIndex(of: "convergence median"))
        XCTAssertEqual(cells(throughRow)[column], "—", String(throughRow))
        XCTAssertTrue(markdown.contains("| `speex:intensityRecommended` ★"), markdown)
        XCTAssertFalse(throughRow.contains("★") || markdown.contains("| `silent:intensityRecommended` ★"), markdown)
        // Said of the runs that muted, not of the mode: a half-duplex gate wins an item with a
        // near talker alone (nothing to mute there), and "wins nothing" sat beside its one win.
        XCTAssertTrue(markdown.contains("silent:intensityRecommended in 2 of 2 runs; late:intensityRecommended in 2 of 2 runs; "
                                        + "faint:intensityRecommended in 2 of 2 runs. Such a run's ERLE is a bound at the noise floor and its "
                                        + "convergence tells only how that floor moved (it is left out of the convergence median): it cut the line "
                                        + "instead of the echo, and wins no item where it did so."), markdown)
        // A mute's runs have a "convergence" of their own (the floor, at once: ≥ 0.0 s); no median counts it.
        for muting in ["silent:intensityRecommended", "late:intensityRecommended", "faint:intensityRecommended"] {
            let row = try XCTUnwrap(lines.first { $0.hasPrefix("| `\(muting)`") })
            XCTAssertEqual(cells(row)[column], "—", String(row))
        }
        // The mute's runs say what it did; the pass-through's and speex's do not.
        for item in ["room", "far"] {
            XCTAssertEqual(runs["\(item) silent:intensityRecommended"]?["findings"] as? [String], ["silent-send-in-single-talk"], item)
            XCTAssertFalse((runs["\(item) through:intensityRecommended"]?["findings"] as? [String] ?? []).contains("silent-send-in-single-talk"))
            XCTAssertFalse((runs["\(item) speex:intensityRecommended"]?["findings"] as? [String] ?? []).contains("silent-send-in-single-talk"))
            // The room's own sound, cut where neither side talked; the canceller and the
            // pass-through send it on.
            for muting in ["late", "faint"] {
                XCTAssertEqual(runs["\(item) \(muting):intensityRecommended"]?["findings"] as? [String], ["send-mutes-the-room"], "\(item) \(muting)")
            }
            for sending in ["through", "speex"] {
                XCTAssertFalse((runs["\(item) \(sending):intensityRecommended"]?["findings"] as? [String] ?? []).contains("send-mutes-the-room"))
            }
        }
        // …and the pages say it, under the table where the mute's bound ERLE reads as the best.
        XCTAssertTrue(markdown.contains("Sent silence while the far end talked alone (silent-send-in-single-talk), or cut the room's own sound "
                                        + "where neither side talked (send-mutes-the-room): silent:intensityRecommended in 2 of 2 runs; "), markdown)
        let evalPage = try String(contentsOf: root.appendingPathComponent("out/eval.html"), encoding: .utf8)
        XCTAssertTrue(evalPage.contains("silent:intensityRecommended in 2 of 2 runs"))
        // The report names the plugin: its own name and the file's SHA-256.
        let report = try loadJSON(root.appendingPathComponent("out/room/through-intensityRecommended/report.json").path)
        let aec = try XCTUnwrap(report["aec"] as? [String: Any])
        XCTAssertEqual(aec["plugin_name"] as? String, "misbehaving")
        XCTAssertEqual(aec["plugin_latency_samples"] as? Double, 0, "it has no latency_samples: 0")
        let digest = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [passthrough]).output.prefix(64)
        XCTAssertEqual(aec["plugin_sha256"] as? String, String(digest))
        // eval.md says what each backend's runs were measured with, as eval.json does per run.
        let muteDigest = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [mute]).output.prefix(64)
        XCTAssertTrue(markdown.contains("Measured with: speex: speexdsp 1."), markdown)
        XCTAssertTrue(markdown.contains("; through: plugin misbehaving, sha256 \(digest); silent: plugin misbehaving, sha256 \(muteDigest); late: plugin misbehaving"),
                      markdown)
        XCTAssertEqual(aec["plugin_path"] as? String, passthrough)
        // The page's AEC line says the name and digest once, in the library's words.
        let page = try String(contentsOfFile: root.appendingPathComponent("out/room/through-intensityRecommended/report.md").path, encoding: .utf8)
        XCTAssertEqual(page.components(separatedBy: String(digest)).count, 2, page)
        XCTAssertTrue(page.contains("library plugin misbehaving, sha256 \(digest), plugin\\_latency\\_samples 0, plugin\\_path "), page)
    }

    /// A pass-through run at 8 kHz on a 48 kHz call never sends the band above 4 kHz: on white
    /// noise that reads as 8 dB of ERLE, and with the near end kept whole it was starred best on
    /// both axes beside speexdsp and WebRTC (a plugin author's trial). Removing nothing in the
    /// band it runs in, it is no canceller: off the front, and eval.md says why.
    func testAPassThroughBelowTheCallsRateIsNoCancellerWhateverItsBandAdds() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("corpus"), withIntermediateDirectories: true)
        _ = try writeScenario("""
            {"name": "noise", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "near_end": {"generator": "speech", "level_dbfs": -26, "seed": 5}, "noise": {"level_dbfs": -60, "seed": 7},
             "echo_path": {"delay_ms": 40, "gain_db": -6}, "aec": {"mode": "intensityRecommended", "backend": "speex"}, "duration_s": 8}
            """, named: "noise.json", in: root.appendingPathComponent("corpus"))
        _ = try Self.misbehaving("passthrough", in: root)
        let inputs = try snapshot(root)
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--plugin", "p8=passthrough.so", "--plugin-rate", "p8=8000",
                                   "--modes", "p8:intensityMax,speex:intensityRecommended,webrtc:intensityRecommended"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        let through = try XCTUnwrap(runs["noise p8:intensityMax"]?["metrics"] as? [String: Any])
        // What the band above 4 kHz adds: 10·log10(24/4) = 7.8 dB, and the roll-off a little more.
        XCTAssertEqual(try XCTUnwrap(through["erle_steady_db"] as? Double), 8.2, accuracy: 0.5)
        let bands = try XCTUnwrap(through["erle_bands"] as? [[String: Any]])
        for band in bands where try XCTUnwrap(band["high_hz"] as? Double) <= 2000 {
            XCTAssertEqual(try XCTUnwrap(band["erle_db"] as? Double), 0, accuracy: 0.05, "\(band)")
        }
        let document = try loadJSON(root.appendingPathComponent("out/eval.json").path)
        let best = try XCTUnwrap((document["best_modes"] as? [String: Any])?["modes"] as? [String])
        XCTAssertEqual(best, ["speex:intensityRecommended", "webrtc:intensityRecommended"])
        // Its run's own "convergence" (the band settling at once) is no canceller's: none in its median.
        XCTAssertNotNil(through["convergence_s"] as? Double, "the run's report keeps what it measured")
        let summaries = try XCTUnwrap(document["mode_summary"] as? [[String: Any]])
        let convergence = { (mode: String) in summaries.first { $0["mode"] as? String == mode }?["convergence_s"] as? [String: Any] }
        XCTAssertEqual(try XCTUnwrap(convergence("p8:intensityMax"))["count"] as? Int, 0)
        XCTAssertEqual(try XCTUnwrap(convergence("speex:intensityRecommended"))["count"] as? Int, 1)
        let markdown = try String(contentsOf: root.appendingPathComponent("out/eval.md"), encoding: .utf8)
        XCTAssertFalse(markdown.contains("| `p8:intensityMax` ★"), markdown)
        XCTAssertTrue(markdown.contains("Removed no echo in the band it runs in (every octave band under a quarter of its rate reads 0.0 dB): "
                                        + "p8 (1 of 1 runs); no canceller there, those runs stand on no front and have no convergence in the median."), markdown)
        XCTAssertEqual(try snapshot(root).filter { !$0.key.hasPrefix("/out/") }, inputs)
    }

    /// A plugin whose output comes a frame late while its latency_samples says 0 would be measured
    /// on misaligned audio (a trial's read as a near end lost): its runs fail, saying by how much,
    /// at the engine's rate and resampled around it at its own; so do those of a pass-through
    /// that claims a frame, and of a late one whose output is upside down (the metrics line it up
    /// as any other). One that says its frame runs, and reads as the pass-through it is. A crash in
    /// the check's instance says so.
    func testAPluginsLatencyIsCheckedAgainstItsOutput() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let plugins = try Self.corpusAndPluginFolder(in: root)
        let late = try Self.misbehaving("late", in: plugins), claims = try Self.misbehaving("claims", in: plugins)
        let early = try Self.misbehaving("early_crash", in: plugins), inverted = try Self.misbehaving("late_inverted", in: plugins)
        _ = try Self.misbehaving("late_said", in: plugins)
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--jobs", "2",
                                   "--plugin", "late=plugins/late.so", "--plugin", "said=plugins/late_said.so",
                                   "--plugin", "late16=plugins/late.so", "--plugin-rate", "late16=16000",
                                   "--plugin", "said16=plugins/late_said.so", "--plugin-rate", "said16=16000",
                                   "--plugin", "claims=plugins/claims.so", "--plugin", "early=plugins/early_crash.so",
                                   "--plugin", "inverted=plugins/late_inverted.so",
                                   "--modes", "late:intensityMax,said:intensityMax,late16:intensityMax,said16:intensityMax,"
                                   + "claims:intensityMax,early:intensityMax,inverted:intensityMax"], in: root)
        XCTAssertEqual(eval.status, 1, eval.standardOutput + eval.standardError)
        XCTAssertTrue(eval.standardOutput.hasPrefix("4 of 14 runs succeeded"), eval.standardOutput)
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        for item in ["delay40-intensityRecommended", "speech"] {
            for (name, file, says, samples) in [("late", late, 0, 480), ("late16", late, 0, 160), ("claims", claims, 480, 0),
                                                ("inverted", inverted, 0, 480)] {
                let error = try XCTUnwrap(runs["\(item) \(name):intensityMax"]?["error"] as? String, "\(item) \(name)")
                let milliseconds = samples == 0 ? "0.0" : "10.0"
                XCTAssertTrue(error.hasSuffix("plugin \(name) (\(file)): latency_samples says \(says), but its output comes \(samples) samples "
                                              + "(\(milliseconds) ms) after its input (a noise burst through a fresh instance, nothing played): "
                                              + "every figure would be measured on misaligned audio; return \(samples) from latency_samples"), error)
                XCTAssertEqual(runs["\(item) \(name):intensityMax"]?["canceller_failure"] as? Bool, true)
            }
            for name in ["said", "said16"] {
                XCTAssertNil(runs["\(item) \(name):intensityMax"]?["error"] as? String, "\(item) \(name)")
            }
            // At 16 kHz the resampling takes what lies above 8 kHz out of the delay item's white noise.
            let said = try XCTUnwrap(runs["\(item) said:intensityMax"]?["metrics"] as? [String: Any])
            XCTAssertEqual(try XCTUnwrap(said["erle_db"] as? Double), 0, accuracy: 0.5, item)
            let crashed = try XCTUnwrap(runs["\(item) early:intensityMax"]?["error"] as? String)
            XCTAssertTrue(crashed.hasSuffix("plugin early (\(early)): crashed at frame 7 (signal 11, Segmentation fault) "
                                            + "(in the latency check: a noise burst through a fresh instance, before the run)"), crashed)
        }
    }

    /// A latency_samples off by a few samples fails too (the near end of a pass-through two
    /// samples off reads as partly lost): at the engine's rate by any whole sample, resampled
    /// around a 16 kHz plugin by one of its own. Said rightly, the same shifts run.
    func testAPluginsLatencyOffByAFewSamplesIsTold() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let plugins = try Self.corpusAndPluginFolder(in: root)
        var built: [String: String] = [:]
        for (name, shift, said) in [("two", 2, 0), ("one", 1, 0), ("two_said", 2, 2), ("one_said", 1, 1)] {
            built[name] = try Self.build("Tests/EchoLabCLITests/Plugins/misbehaving.c", name, in: plugins,
                                         defines: ["BEHAVIOUR=B_shifted", "SHIFT=\(shift)", "SAID=\(said)"])
        }
        _ = try writeScenario("""
            {"name": "talk", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "near_end": {"generator": "speech", "level_dbfs": -26, "seed": 9}, "noise": {"level_dbfs": -65, "seed": 2},
             "echo_path": {"delay_ms": 25, "gain_db": -8}, "aec": {"mode": "intensityMax"}, "duration_s": 4}
            """, named: "talk.json", in: root.appendingPathComponent("corpus"))
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--jobs", "2",
                                   "--plugin", "two=plugins/two.so", "--plugin", "one16=plugins/one.so", "--plugin-rate", "one16=16000",
                                   "--plugin", "two_said=plugins/two_said.so",
                                   "--plugin", "one_said16=plugins/one_said.so", "--plugin-rate", "one_said16=16000",
                                   "--modes", "two:intensityMax,one16:intensityMax,two_said:intensityMax,one_said16:intensityMax"], in: root)
        XCTAssertEqual(eval.status, 1, eval.standardOutput + eval.standardError)
        XCTAssertTrue(eval.standardOutput.hasPrefix("6 of 12 runs succeeded"), eval.standardOutput)
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        for item in ["delay40-intensityRecommended", "speech", "talk"] {
            for (name, file, samples, milliseconds) in [("two", built["two"]!, "2 samples", "0.04"), ("one16", built["one"]!, "1 sample", "0.06")] {
                let error = try XCTUnwrap(runs["\(item) \(name):intensityMax"]?["error"] as? String, "\(item) \(name)")
                XCTAssertTrue(error.hasSuffix("plugin \(name) (\(file)): latency_samples says 0, but its output comes \(samples) "
                                              + "(\(milliseconds) ms) after its input (a noise burst through a fresh instance, nothing played): "
                                              + "every figure would be measured on misaligned audio; return \(samples.prefix(1)) from latency_samples"), error)
            }
            for name in ["two_said", "one_said16"] {
                XCTAssertNil(runs["\(item) \(name):intensityMax"]?["error"] as? String, "\(item) \(name)")
            }
        }
        // Lined up, the pass-through keeps its near end whole where it talks alone.
        let said = try XCTUnwrap(runs["talk two_said:intensityMax"]?["metrics"] as? [String: Any])
        let nearEnd = try XCTUnwrap(said["near_end"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(nearEnd["single_talk_attenuation_db"] as? Double), 0, accuracy: 0.1, "\(nearEnd)")
    }

    /// The check's instance is made once per configuration in an eval: two items, one mode,
    /// three creates.
    func testAPluginsLatencyIsCheckedOncePerConfiguration() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let plugins = try Self.corpusAndPluginFolder(in: root)
        let creates = root.appendingPathComponent("creates.txt").path
        _ = try Self.build("Tests/EchoLabCLITests/Plugins/misbehaving.c", "counts", in: plugins,
                           defines: ["BEHAVIOUR=B_counts", "COUNT_TO=\"\(creates)\""])
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--jobs", "1", "--plugin", "counts=plugins/counts.so",
                                   "--modes", "counts:intensityMax"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        XCTAssertEqual(try String(contentsOfFile: creates, encoding: .utf8), String(repeating: "create\n", count: 3))
    }

    /// The example plugin, built as `make plugins` builds it, beside the built-in backends, at
    /// 16 kHz (resampled around it), from a scenario file that names it relative to itself.
    func testTheExamplePluginRunsBesideTheBuiltInBackends() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let nlms = try Self.build("Examples/Plugins/nlms.c", "nlms", in: root)
        try writeTwoItemCorpus(in: root.appendingPathComponent("corpus"))
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps", "--plugin", "nlms=\(nlms)", "--plugin-rate", "nlms=16000",
                                   "--plugin-options", "nlms={\"filter_ms\": 48}",
                                   "--modes", "speex:intensityRecommended,nlms:intensityRecommended,aec3:intensityRecommended"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        let metrics = try XCTUnwrap(runs["delay40-intensityRecommended nlms:intensityRecommended"]?["metrics"] as? [String: Any])
        XCTAssertGreaterThan(try XCTUnwrap(metrics["erle_steady_db"] as? Double), 10, "\(metrics)")
        let aec = try XCTUnwrap(try loadJSON(root.appendingPathComponent("out/delay40-intensityRecommended/nlms-intensityRecommended/report.json").path)["aec"] as? [String: Any])
        XCTAssertEqual(aec["plugin_name"] as? String, "nlms (EchoLab example)")
        XCTAssertEqual(aec["rate_hz"] as? Double, 16000)
        XCTAssertEqual(aec["plugin_options"] as? String, #"{"filter_ms":48}"#, "the options the plugin got, on one line")

        // A scenario names the plugin itself, relative to its own folder; run from elsewhere.
        let scenarios = root.appendingPathComponent("scenarios")
        try FileManager.default.createDirectory(at: scenarios, withIntermediateDirectories: true)
        _ = try writeScenario("""
            {"name": "own", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -60, "seed": 7}, "echo_path": {"delay_ms": 20, "gain_db": -6},
             "aec": {"mode": "intensityMax", "backend": "mine", "plugin": "../nlms.so", "plugin_rate": 16000,
                     "plugin_options": {"filter_ms": 32}},
             "duration_s": 3}
            """, named: "own.json", in: scenarios)
        let elsewhere = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let run = try runEchoLab(["run", "../scenarios/own.json", "--out", "run", "--no-taps"], in: elsewhere)
        XCTAssertEqual(run.status, 0, run.standardError)
        let own = try loadJSON(elsewhere.appendingPathComponent("run/report.json").path)
        XCTAssertEqual((own["aec"] as? [String: Any])?["backend"] as? String, "mine")
        XCTAssertEqual((own["aec"] as? [String: Any])?["plugin_options"] as? String, #"{"filter_ms":32}"#)
        XCTAssertGreaterThan(try XCTUnwrap((own["metrics"] as? [String: Any])?["erle_steady_db"] as? Double), 10)
    }

    /// Shards of an eval with a plugin — given by `--plugin` to a mode, and named by a scenario of
    /// its own — merge into what the unsharded eval writes (timing aside): `merge` runs nothing,
    /// so it knows the plugin's backend by the name its modes give it.
    func testShardsOfPluginRunsMergeAsTheUnshardedEval() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let nlms = try Self.build("Examples/Plugins/nlms.c", "nlms", in: root)
        let corpus = root.appendingPathComponent("corpus")
        try writeTwoItemCorpus(in: corpus)
        _ = try writeScenario("""
            {"name": "own", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "noise": {"level_dbfs": -60, "seed": 7}, "echo_path": {"delay_ms": 20, "gain_db": -6},
             "aec": {"mode": "intensityMax", "backend": "mine", "plugin": "../nlms.so"}, "duration_s": 2}
            """, named: "own.json", in: corpus)
        func eval(_ extra: [String]) throws {
            let result = try runEchoLab(["eval", "corpus", "--no-taps", "--jobs", "2"] + extra, in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
        }
        let modes = ["--plugin", "nlms=\(nlms)", "--plugin-rate", "nlms=16000", "--modes", "nlms:intensityRecommended,speex:intensityRecommended"]
        try eval(modes + ["--out", "whole"])
        try eval(modes + ["--out", "shard-1", "--shard", "1/2"])
        try eval(modes + ["--out", "shard-2", "--shard", "2/2"])
        let merged = try runEchoLab(["merge", "shard-1", "shard-2", "--out", "merged"], in: root)
        XCTAssertEqual(merged.status, 0, merged.standardError)
        func document(_ folder: String) throws -> String {
            try String(contentsOf: root.appendingPathComponent("\(folder)/eval.json"), encoding: .utf8)
                .split(separator: "\n").filter { !$0.contains("\"wall_s\"") }.joined(separator: "\n")
        }
        XCTAssertEqual(try document("merged"), try document("whole"))
        XCTAssertTrue(try document("merged").contains("\"nlms:intensityRecommended\""))
        // eval.md names the plugin run below the call's rate, with its rate, in the merge too: the
        // rate is in the runs' reports, not in eval.json (the merge's page left the note out).
        func page(_ folder: String) throws -> String {
            try String(contentsOf: root.appendingPathComponent("\(folder)/eval.md"), encoding: .utf8)
                .split(separator: "\n").filter { !$0.contains("real time") }.joined(separator: "\n")
        }
        let whole = try page("whole")
        XCTAssertTrue(whole.contains("Cancellers run below the call's rate (nlms at 16 kHz)"), whole)
        XCTAssertEqual(try page("merged"), whole)

        // Without --modes: the scenario's own plugin runs as written.
        try eval(["--out", "own-1", "--shard", "1/2"])
        try eval(["--out", "own-2", "--shard", "2/2"])
        let own = try runEchoLab(["merge", "own-1", "own-2", "--out", "own-merged"], in: root)
        XCTAssertEqual(own.status, 0, own.standardError)
        XCTAssertTrue(try document("own-merged").contains("\"mine:intensityMax\""))
    }

    /// A merge of shards in which a plugin crashed says so as the unsharded eval did, naming the
    /// runs it stopped (the message names the plugin alone): eval.json keeps that the failure was
    /// the canceller's (`canceller_failure`), which the merge read as any other failure.
    func testAMergeNamesTheRunsAPluginCrashStopped() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let crash = try Self.misbehaving("crash", in: root)
        try writeTwoItemCorpus(in: root.appendingPathComponent("corpus"))
        let arguments = ["corpus", "--no-taps", "--plugin", "crash=\(crash)", "--modes", "crash:intensityMax,speex:intensityMin"]
        let whole = try runEchoLab(["eval"] + arguments + ["--out", "whole"], in: root)
        XCTAssertEqual(whole.status, 1)
        XCTAssertTrue(whole.standardError.contains("(2 runs: delay40-intensityRecommended crash:intensityMax, speech crash:intensityMax)"),
                      whole.standardError)
        for index in 1...2 { _ = try runEchoLab(["eval"] + arguments + ["--out", "s\(index)", "--shard", "\(index)/2"], in: root) }
        let merged = try runEchoLab(["merge", "s1", "s2", "--out", "merged"], in: root)
        XCTAssertEqual(merged.status, 1)
        XCTAssertEqual(merged.standardError, withoutModesWarnings(whole.standardError))
    }

    /// One plugin name is one canceller: two scenarios, or a scenario and `--plugin`, that give
    /// one name two different files (or options, or rates) would be summed as one mode. The
    /// later one fails with a line naming both; a copy of the same file is the same plugin;
    /// `--modes` and `--aec` replace a scenario's own plugin, so nothing conflicts there.
    func testOneNameIsOneCancellerAcrossScenariosAndTheCommandLine() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let nlms = try Self.build("Examples/Plugins/nlms.c", "nlms", in: root)
        let passthrough = try Self.misbehaving("passthrough", in: root)
        try FileManager.default.copyItem(atPath: nlms, toPath: root.appendingPathComponent("nlms-copy.so").path)
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        func item(_ name: String, plugin: String, extra: String = "") throws {
            _ = try writeScenario("""
                {"name": "\(name)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
                 "echo_path": {"delay_ms": 20, "gain_db": -6}, "duration_s": 2,
                 "aec": {"mode": "intensityMax", "backend": "mine", "plugin": "../\(plugin)"\(extra)}}
                """, named: "\(name).json", in: corpus)
        }
        try item("a", plugin: "nlms.so")
        try item("b", plugin: "passthrough.so")
        try item("c", plugin: "nlms-copy.so")
        try item("d", plugin: "nlms.so", extra: #", "plugin_rate": 16000"#)
        let before = try snapshot(root)

        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 1, eval.standardError)
        let lines = eval.standardError.split(separator: "\n").filter { $0.contains("aec.plugin") }
        XCTAssertEqual(lines, [
            "echolab: corpus/b.json: aec.plugin: plugin 'mine' is \(passthrough) (sha256 \(try Self.digest(passthrough))…) here but \(nlms) "
            + "(sha256 \(try Self.digest(nlms))…) in corpus/a.json; one name is one canceller (its runs are summed and compared as one mode): "
            + "give this one another aec.backend",
            "echolab: corpus/d.json: aec.plugin: plugin 'mine' runs at 16000 Hz here but at 48000 Hz in corpus/a.json; one name is one "
            + "canceller (its runs are summed and compared as one mode): give this one another aec.backend",
        ])
        let runs = try Self.results(root.appendingPathComponent("out/eval.json").path)
        XCTAssertNotNil(runs["a mine:intensityMax"]?["metrics"], "the first to name it runs")
        XCTAssertNotNil(runs["c mine:intensityMax"]?["metrics"], "a copy of the same file is the same plugin")
        XCTAssertEqual(runs.values.filter { $0["error"] is String }.count, 2, "\(runs)")

        // `--plugin` names it first.
        let registered = try runEchoLab(["eval", "corpus", "--out", "out2", "--no-taps", "--plugin", "mine=passthrough.so"], in: root)
        XCTAssertEqual(registered.status, 1)
        let second = try Self.results(root.appendingPathComponent("out2/eval.json").path)
        XCTAssertNotNil(second["b mine:intensityMax"]?["metrics"], "b's plugin is the one registered")
        XCTAssertTrue(registered.standardError.contains("corpus/a.json: aec.plugin: plugin 'mine' is \(nlms)"), registered.standardError)
        XCTAssertTrue(registered.standardError.contains("in --plugin mine;"), registered.standardError)
        // Every scenario that names the plugin refused for it: it still names it, and the
        // registration is not said to be unused (the line advised what the scenario already did).
        let conflicting = try runEchoLab(["eval", "corpus/b.json", "--out", "out4", "--no-taps", "--plugin", "mine=nlms.so"], in: root)
        XCTAssertEqual(conflicting.status, 1)
        XCTAssertTrue(conflicting.standardError.contains("corpus/b.json: aec.plugin: plugin 'mine' is"), conflicting.standardError)
        XCTAssertFalse(conflicting.standardError.contains("registered but no mode runs it"), conflicting.standardError)
        // --modes replaces every scenario's own aec: nothing of theirs runs, nothing conflicts.
        let replaced = try runEchoLab(["eval", "corpus", "--out", "out3", "--no-taps", "--plugin", "mine=passthrough.so",
                                       "--modes", "mine:intensityMax"], in: root)
        XCTAssertEqual(replaced.status, 0, replaced.standardError)

        // A run: the scenario's own plugin against --plugin; --aec replaces it.
        let run = try runEchoLab(["run", "corpus/a.json", "--out", "run", "--no-taps", "--plugin", "mine=passthrough.so"], in: root)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.standardError.hasPrefix("echolab: corpus/a.json: aec.plugin: plugin 'mine' is \(nlms)"), run.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("run").path), "nothing written")
        let copy = try runEchoLab(["run", "corpus/a.json", "--out", "run2", "--no-taps", "--plugin", "mine=nlms-copy.so"], in: root)
        XCTAssertEqual(copy.status, 0, copy.standardError)
        let chosen = try runEchoLab(["run", "corpus/a.json", "--out", "run3", "--no-taps", "--plugin", "mine=passthrough.so",
                                     "--aec", "mine:intensityMax"], in: root)
        XCTAssertEqual(chosen.status, 0, chosen.standardError)

        // A conflict fails the item under its own name (which its baseline runs are known by),
        // and an item refused for its name claims no plugin name.
        let other = root.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        func scenario(_ file: String, name: String, plugin: String) throws {
            _ = try writeScenario("""
                {"name": "\(name)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
                 "echo_path": {"delay_ms": 20, "gain_db": -6}, "duration_s": 2,
                 "aec": {"mode": "intensityMax", "backend": "mine", "plugin": "../\(plugin)"}}
                """, named: "\(file).json", in: other)
        }
        try scenario("1-dup", name: "dup", plugin: "passthrough.so")
        try scenario("2-dup", name: "dup", plugin: "passthrough.so")
        try scenario("3-runs", name: "runs", plugin: "nlms.so")
        try scenario("4-file", name: "named", plugin: "passthrough.so")
        let named = try runEchoLab(["eval", "other", "--out", "out4", "--no-taps"], in: root)
        XCTAssertEqual(named.status, 1)
        let fourth = try Self.results(root.appendingPathComponent("out4/eval.json").path)
        XCTAssertNotNil(fourth["runs mine:intensityMax"]?["metrics"], "the dup items, refused, gave 'mine' no canceller: \(named.standardError)")
        XCTAssertTrue(fourth.first { $0.key.hasPrefix("named ") }?.value["error"] is String, "\(fourth.keys.sorted())")

        let inputs = try snapshot(root).filter { before[$0.key] != nil }
        XCTAssertEqual(inputs, before, "inputs unchanged")
    }

    /// The first 12 hex digits of a file's SHA-256, as the conflict names it.
    static func digest(_ path: String) throws -> String {
        let result = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [path])
        return String(result.output.prefix(12))
    }

    /// A recording's report names a plugin as a call's does: by the name the plugin reports
    /// itself, and the SHA-256 of its file.
    func testARecordingNamesThePluginByItsOwnNameAndDigest() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let nlms = try Self.build("Examples/Plugins/nlms.c", "nlms", in: root)
        _ = try writeScenario(delayScenario(aec: "disabled", seconds: 2), in: root)
        let taps = try runEchoLab(["run", "scenario.json", "--all-taps", "--out", "rec"], in: root)
        XCTAssertEqual(taps.status, 0, taps.standardError)
        try Data(#"{"corpus": [{"name": "office", "mic": "rec/mic.wav", "loopback": "rec/reference.wav"}]}"#.utf8)
            .write(to: root.appendingPathComponent("corpus.json"))
        let eval = try runEchoLab(["eval", "corpus.json", "--out", "out", "--no-taps", "--plugin", "nlms=\(nlms)",
                                   "--modes", "nlms:intensityRecommended"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let digest = try runProgram(URL(fileURLWithPath: "/usr/bin/sha256sum"), [nlms]).output.prefix(64)
        let aec = try XCTUnwrap(try loadJSON(root.appendingPathComponent("out/office/nlms-intensityRecommended/report.json").path)["aec"] as? [String: Any])
        XCTAssertEqual(aec["library"] as? String, "plugin nlms (EchoLab example), sha256 \(digest)")
        // Its pages name it too (only report.json did).
        let named = try String(contentsOf: root.appendingPathComponent("out/office/nlms-intensityRecommended/report.md"), encoding: .utf8)
        XCTAssertTrue(named.contains("mode `nlms:intensityRecommended` (plugin nlms (EchoLab example), sha256 \(digest));"), named)

        // A plugin that sends nothing is a mute on a recording too: the finding, and no win on
        // an item judged on ERLE alone (a recording's findings were never written).
        let mute = try Self.misbehaving("mute", in: root)
        let muted = try runEchoLab(["eval", "corpus.json", "--out", "muted", "--no-taps", "--plugin", "nlms=\(nlms)", "--plugin", "silent=\(mute)",
                                    "--modes", "nlms:intensityRecommended,speex:intensityRecommended,silent:intensityRecommended"], in: root)
        XCTAssertEqual(muted.status, 0, muted.standardError)
        let runs = try Self.results(root.appendingPathComponent("muted/eval.json").path)
        XCTAssertEqual(runs["office silent:intensityRecommended"]?["findings"] as? [String], ["silent-send-in-single-talk"])
        XCTAssertEqual(runs["office speex:intensityRecommended"]?["findings"] as? [String], [])
        let summaries = try XCTUnwrap(try loadJSON(root.appendingPathComponent("muted/eval.json").path)["mode_summary"] as? [[String: Any]])
        XCTAssertEqual(summaries.first { $0["mode"] as? String == "silent:intensityRecommended" }?["wins"] as? Int, 0, "\(summaries)")
        let page = try String(contentsOf: root.appendingPathComponent("muted/office/silent-intensityRecommended/report.md"), encoding: .utf8)
        XCTAssertTrue(page.contains("silent-send-in-single-talk"), page)
    }

    /// A plugin's prints go to stderr, never into the frames; `process` runs a plugin too.
    func testAPluginThatPrintsCannotCorruptItsFrames() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let chatty = try Self.misbehaving("chatty", in: root)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 2), named: "delay.json", in: root)
        let run = try runEchoLab(["run", "delay.json", "--out", "run", "--plugin", "talk=\(chatty)", "--aec", "talk:intensityMin"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        // Each line named after the plugin, whole: under --jobs 2 two runs' prints interleaved
        // part way through their lines, unnamed.
        XCTAssertTrue(run.standardError.contains("[plugin talk] frame 199\n"), String(run.standardError.suffix(300)))
        XCTAssertFalse(run.standardOutput.contains("frame 1\n"), run.standardOutput)
        let processed = try runEchoLab(["process", "--mic", "run/mic.wav", "--reference", "run/reference.wav", "--out", "out.wav",
                                        "--plugin", "talk=\(chatty)", "--aec", "talk:intensityRecommended"], in: root)
        XCTAssertEqual(processed.status, 0, processed.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("out.wav").path))
        // A plugin that fails on a recording is named with it and the time, as a built-in
        // backend is: the line said neither.
        let nan = try Self.misbehaving("nan", in: root)
        let failed = try runEchoLab(["process", "--mic", "run/mic.wav", "--reference", "run/reference.wav", "--out", "nan.wav",
                                     "--plugin", "n=\(nan)", "--aec", "n:intensityRecommended"], in: root)
        XCTAssertEqual(failed.status, 1, failed.standardError)
        XCTAssertTrue(failed.standardError.contains("run/mic.wav: plugin n (\(nan)): wrote nan at sample 3 of frame 30, 0.30 s after it started"), failed.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("nan.wav").path))
        // So is one that fails before its first frame (create, or its latency).
        for behaviour in ["create_fails", "bad_latency"] {
            let plugin = try Self.misbehaving(behaviour, in: root)
            let refused = try runEchoLab(["process", "--mic", "run/mic.wav", "--reference", "run/reference.wav", "--out", "refused.wav",
                                          "--plugin", "p=\(plugin)", "--aec", "p:intensityRecommended"], in: root)
            XCTAssertEqual(refused.status, 1, refused.standardError)
            XCTAssertTrue(refused.standardError.hasPrefix("echolab: run/mic.wav: plugin p (\(plugin)): "), refused.standardError)
            XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("refused.wav").path))
        }
    }

    /// A registered plugin no mode runs is warned of: `process --plugin` without `--aec NAME:…`
    /// ran speex without a word (a plugin author's trial), and so did eval and run.
    func testARegisteredPluginNoModeRunsIsWarnedOf() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let passthrough = try Self.misbehaving("passthrough", in: root)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 2), named: "delay.json", in: root)
        let warning = "warning: --plugin mine is registered but no mode runs it"
        let run = try runEchoLab(["run", "delay.json", "--out", "run", "--no-taps", "--plugin", "mine=\(passthrough)"], in: root)
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertEqual(run.standardError, "echolab run: " + warning + " (name it in --aec mine:INTENSITY)\n")
        _ = try runEchoLab(["run", "delay.json", "--out", "taps", "--aec", "disabled"], in: root)
        let processed = try runEchoLab(["process", "--mic", "taps/mic.wav", "--reference", "taps/reference.wav", "--out", "out.wav",
                                        "--plugin", "mine=\(passthrough)"], in: root)
        XCTAssertEqual(processed.status, 0, processed.standardError)
        XCTAssertTrue(processed.standardError.hasPrefix("echolab process: " + warning + " (name it in --aec mine:INTENSITY)\n"), processed.standardError)
        let eval = try runEchoLab(["eval", "delay.json", "--out", "eval", "--no-taps", "--plugin", "mine=\(passthrough)",
                                   "--modes", "speex:intensityMin"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        XCTAssertEqual(withoutModesWarnings(eval.standardError), "echolab eval: " + warning + " (name it in --modes mine:INTENSITY)\n")
        // Named, it runs and nothing is said.
        let used = try runEchoLab(["eval", "delay.json", "--out", "used", "--no-taps", "--plugin", "mine=\(passthrough)",
                                   "--modes", "mine:intensityMin"], in: root)
        XCTAssertEqual(used.standardError, "")
        // Without --modes each scenario runs its own aec: speex here, so the plugin runs nowhere
        // (eval said nothing); a scenario that names it runs it, and nothing is said.
        let asWritten = try runEchoLab(["eval", "delay.json", "--out", "written", "--no-taps", "--plugin", "mine=\(passthrough)"], in: root)
        XCTAssertEqual(asWritten.status, 0, asWritten.standardError)
        XCTAssertEqual(asWritten.standardError, "echolab eval: " + warning + " (name it in --modes mine:INTENSITY, or in a scenario's aec.backend)\n")
        _ = try writeScenario("""
            {"name": "mine", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1},
             "echo_path": {"delay_ms": 40, "gain_db": -6}, "duration_s": 2,
             "aec": {"mode": "intensityMin", "backend": "mine", "plugin": "\(passthrough)"}}
            """, named: "mine.json", in: root)
        let named = try runEchoLab(["eval", "delay.json", "mine.json", "--out", "named", "--no-taps", "--plugin", "mine=\(passthrough)"], in: root)
        XCTAssertEqual(named.status, 0, named.standardError)
        XCTAssertEqual(named.standardError, "")
    }

    /// A process the plugin starts and never stops goes with its run: left, it held the stderr
    /// EchoLab was given, so `echolab … 2>&1 | tee log` never ended, and it ignored SIGTERM.
    func testAProcessThePluginLeavesRunningGoesWithItsRun() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let forks = try Self.misbehaving("forks", in: root)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "delay.json", in: root)
        let errors = Pipe()
        let process = try startEchoLab(["run", "delay.json", "--out", "run", "--no-taps", "--plugin", "f=\(forks)", "--aec", "f:intensityMin"],
                                       in: root, standardError: errors)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        // The end of the pipe comes once every process holding it is gone.
        let reader = errors.fileHandleForReading
        let ended = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var text = Data()
        DispatchQueue.global().async {
            text = reader.readDataToEndOfFile()
            ended.signal()
        }
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "stderr still held open 10 s after echolab ended")
        let printed = String(decoding: text, as: UTF8.self)
        let helper = try XCTUnwrap(printed.split(separator: "\n").first { $0.hasPrefix("[plugin f] helper ") }, printed)
        let pid = try XCTUnwrap(Int32(helper.dropFirst("[plugin f] helper ".count)))
        // Killed as its run ended; gone once reaped (a zombie meanwhile), which may take a moment.
        func isRunning() -> Bool {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
            return !status.contains("State:\tZ") && !status.contains("State:\tX")
        }
        let deadline = Date().addingTimeInterval(5)
        while isRunning(), Date() < deadline { usleep(10_000) }
        XCTAssertFalse(isRunning(), "the plugin's process \(pid) still runs")
    }

    /// A plugin that hangs printing without end is still a hang: stopped after 2 s. Its lines
    /// relayed to a stderr slower than it writes, the pipe was never empty, and the relay never
    /// looked at the clock (nor at SIGTERM).
    func testAPluginThatHangsPrintingIsStopped() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let floods = try Self.misbehaving("floods", in: root)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "delay.json", in: root)
        let errors = Pipe()
        let process = try startEchoLab(["run", "delay.json", "--out", "run", "--no-taps", "--plugin", "f=\(floods)", "--aec", "f:intensityMin"],
                                       in: root, standardError: errors)
        // A slow reader (a terminal over a slow link): 4 KiB every 10 ms.
        let reader = errors.fileHandleForReading
        let ended = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var tail = Data()
        DispatchQueue.global().async {
            while true {
                let chunk = reader.readData(ofLength: 4096)
                if chunk.isEmpty { break }
                tail = (tail + chunk).suffix(4096)
                usleep(10_000)
            }
            ended.signal()
        }
        let stopped = ended.wait(timeout: .now() + 60) == .success
        if !stopped { process.terminate() }
        process.waitUntilExit()
        XCTAssertTrue(stopped, "still relaying after 60 s")
        XCTAssertEqual(process.terminationStatus, 1)
        let text = String(decoding: tail, as: UTF8.self)
        XCTAssertTrue(text.contains("sent no frame back within 2000 ms at frame 30 (hung?): stopped"), text)
    }

    /// What a plugin prints is relayed up to 1 MiB a run, then dropped with one line saying so: one
    /// that printed in a loop filled 560 MB of stderr in the 2 s before its hang was stopped.
    func testAPluginsOutputIsCutAtOneMebibyte() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let floods = try Self.misbehaving("floods", in: root)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "delay.json", in: root)
        let result = try runEchoLab(["run", "delay.json", "--out", "run", "--no-taps", "--plugin", "f=\(floods)", "--aec", "f:intensityMin"], in: root)
        XCTAssertEqual(result.status, 1)
        let bytes = result.standardError.utf8.count
        XCTAssertGreaterThan(bytes, 1 << 19, "the first of it is shown")
        XCTAssertLessThan(bytes, (1 << 20) + (1 << 14), "cut at 1 MiB")
        XCTAssertTrue(result.standardError.contains("(more than 1024 KiB of the plugin's output relayed in this run: the rest is not shown)\n"),
                      String(result.standardError.suffix(2000)))
        XCTAssertTrue(result.standardError.contains("sent no frame back within 2000 ms at frame 30 (hung?): stopped"),
                      String(result.standardError.suffix(2000)))
    }

    /// Shards whose plugin was another build, or given other options or another rate, are of
    /// another plan, which merge refuses: their runs were summed as one mode, exit 0.
    func testShardsOfAnotherPluginBuildOrSettingDoNotMerge() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        for (name, seconds) in [("a", 1), ("b", 2)] {
            _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: seconds).replacingOccurrences(of: "delay40", with: name),
                                  named: "\(name).json", in: corpus)
        }
        let through = try Self.misbehaving("passthrough", in: root), other = try Self.misbehaving("mute", in: root)
        func shard(_ index: Int, _ out: String, _ extra: [String]) throws {
            let result = try runEchoLab(["eval", "corpus", "--modes", "x:intensityRecommended", "--shard", "\(index)/2", "--out", out, "--no-taps"] + extra,
                                        in: root)
            XCTAssertEqual(result.status, 0, result.standardError)
        }
        try shard(1, "s1", ["--plugin", "x=\(through)", "--plugin", "unused=\(through)"])
        // A plugin registered but run by no mode is no part of the plan, whatever its build.
        try shard(2, "s2", ["--plugin", "x=\(through)", "--plugin", "unused=\(other)"])
        XCTAssertEqual(try runEchoLab(["merge", "s1", "s2", "--out", "merged"], in: root).status, 0)
        for (out, extra) in [("build", ["--plugin", "x=\(other)"]), ("rate", ["--plugin", "x=\(through)", "--plugin-rate", "x=16000"]),
                             ("options", ["--plugin", "x=\(through)", "--plugin-options", #"x={"k":1}"#])] {
            try shard(2, out, extra)
            let refused = try runEchoLab(["merge", "s1", out, "--out", "bad-\(out)"], in: root)
            XCTAssertEqual(refused.status, 1, out)
            XCTAssertTrue(refused.standardError.hasPrefix("echolab: \(out)/eval.json: its plan differs from s1/eval.json's"), refused.standardError)
        }
    }

    /// A scenario whose `aec.plugin` is a device or a named pipe fails its own item with one
    /// line; the other items run and eval.json is written (hashing /dev/zero took the whole eval,
    /// and the machine's memory, down).
    func testAScenarioPluginThatIsADeviceFailsItsItemOnly() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(corpus.appendingPathComponent("pipe.so").path, 0o600), 0)
        for (name, plugin) in [("zero", "/dev/zero"), ("pipe", "pipe.so")] {
            _ = try writeScenario(#"{"name": "\#(name)", "far_end": {"generator": "white_noise", "level_dbfs": -20, "seed": 1}, "#
                                  + #""aec": {"backend": "x", "plugin": "\#(plugin)"}, "duration_s": 1}"#, named: "\(name).json", in: corpus)
        }
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "delay.json", in: corpus)
        let eval = try runEchoLab(["eval", "corpus", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(eval.status, 1, eval.standardError)
        XCTAssertTrue(eval.standardError.contains("corpus/zero.json: aec.plugin: /dev/zero: is not a regular file (a device, pipe or socket), not a shared library"),
                      eval.standardError)
        XCTAssertTrue(eval.standardError.contains("aec.plugin: \(corpus.path)/pipe.so: is not a regular file (a device, pipe or socket), not a shared library"),
                      eval.standardError)
        XCTAssertTrue(eval.standardOutput.hasPrefix("1 of 3 runs succeeded"), eval.standardOutput)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/eval.json").path))
    }

    func testBadPluginOptionsAreUsageErrorsNamingTheOption() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let through = try Self.misbehaving("passthrough", in: root)
        _ = try writeScenario(delayScenario(aec: "intensityRecommended", seconds: 1), named: "delay.json", in: root)
        XCTAssertEqual(mkfifo(root.appendingPathComponent("pipe.so").path, 0o600), 0)
        let cases: [([String], String)] = [
            (["--plugin", "x=missing.so"], "--plugin x: \(root.path)/missing.so: no such readable file"),
            // A folder failed each run at dlopen ("Is a directory"); it is refused as a missing file is.
            (["--plugin", "x=."], "--plugin x: \(root.path): a folder, not a shared library"),
            // Hashing /dev/zero read until the kernel killed EchoLab; a named pipe blocked in open().
            (["--plugin", "x=/dev/zero"], "--plugin x: /dev/zero: is not a regular file (a device, pipe or socket), not a shared library"),
            (["--plugin", "x=pipe.so"], "--plugin x: \(root.path)/pipe.so: is not a regular file (a device, pipe or socket), not a shared library"),
            (["--plugin", "speex=\(through)"], "--plugin: plugin name 'speex' is a built-in backend's; choose another"),
            (["--plugin", "a=\(through)", "--plugin", "a=\(through)"], "--plugin: a is registered twice"),
            // Folders are named after modes: on a case-insensitive file system these would be one.
            (["--plugin", "Speex=\(through)"], "--plugin: plugin name 'Speex' is a built-in backend's but for case; choose another"),
            (["--plugin", "a=\(through)", "--plugin", "A=\(through)"],
             "--plugin: a and A differ only in case (their runs' folders would be one on a case-insensitive file system)"),
            (["--plugin", "x="], "--plugin x: the path is empty"),
            (["--plugin", "a=\(through)", "--plugin-options", "a=[1]"], "--plugin-options a: not a JSON object: [1]"),
            (["--plugin", "a=\(through)", "--plugin-options", #"a={"k":1,"k":2}"#],
             #"--plugin-options a: {"k":1,"k":2}: column 8: duplicate key 'k' (JSON readers disagree on which one wins; give it once)"#),
            (["--plugin", "a=\(through)", "--plugin-options", #"a={"k": 1e400}"#], #"--plugin-options a: {"k": 1e400}: column 7: the number 1e400 is out of range"#),
            // An argument's text, not a file, ends there.
            (["--plugin", "a=\(through)", "--plugin-options", #"a={"a":"#], #"--plugin-options a: {"a":: column 6: the text ends where a value should be"#),
            (["--plugin", "a=\(through)", "--plugin-rate", "a=44100"], "--plugin-rate a: 44100 Hz is not one of 8000, 16000, 32000, 48000"),
            (["--aec", "nope:intensityMax"], "unknown backend 'nope' (one of speex, webrtc, webrtc-mobile, aec3, echolab; "
                + "a canceller plugin is registered with --plugin nope=PATH: a scenario's own aec.plugin goes with the aec that --aec or --modes replaces)"),
        ]
        for (extra, message) in cases {
            let run = try runEchoLab(["run", "delay.json", "--out", "run"] + extra + (extra.contains("--aec") ? [] : ["--aec", "speex:intensityMax"]), in: root)
            XCTAssertEqual(run.status, 64, "\(extra): \(run.standardError)")
            XCTAssertTrue(run.standardError.contains(message), "\(extra): \(run.standardError)")
            guard !extra.contains("--aec") else { continue }
            // The same without a mode to run: the scenario's own (a bad --plugin-options was
            // ignored then, and a missing file failed the run with exit 1).
            for command in [["run", "delay.json", "--out", "own"], ["eval", "delay.json", "--out", "own"]] {
                let own = try runEchoLab(command + extra, in: root)
                XCTAssertEqual(own.status, 64, "\(command[0]) \(extra): \(own.standardError)")
                XCTAssertTrue(own.standardError.contains(message), "\(command[0]) \(extra): \(own.standardError)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("own").path))
    }
}
