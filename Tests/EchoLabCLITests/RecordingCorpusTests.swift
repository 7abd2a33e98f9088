import AudioInterop
import EchoLabTestSupport
import Foundation
@testable import Evaluation
@testable import ScenarioFiles
import Reporting
import XCTest

/// The AEC-Challenge layouts, read as they are: item names, partner files, order, and a
/// missing partner named by its item, which fails alone.
final class RecordingCorpusTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    private func wav(_ relative: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try SoundFileWriter.write([Float](repeating: 0.01, count: 1600), to: url.path, sampleRate: 16_000, encoding: .pcm16)
    }

    /// The recordings among `items`, failing the test at a broken one.
    private func recordings(_ items: [CorpusItem], file: StaticString = #filePath, line: UInt = #line) -> [RecordingItem] {
        items.compactMap { item in
            if case .recording(let recording) = item { return recording }
            XCTFail("not a recording: \(item)", file: file, line: line)
            return nil
        }
    }

    func testSyntheticLayout() throws {
        for id in ["10", "2", "1"] {
            try wav("syn/farend_speech/farend_speech_fileid_\(id).wav")
            try wav("syn/nearend_mic_signal/nearend_mic_fileid_\(id).wav")
            try wav("syn/nearend_speech/nearend_speech_fileid_\(id).wav")
            if id != "2" { try wav("syn/echo_signal/echo_fileid_\(id).wav") }
        }
        try Data("fileid,ser\n1,0\n".utf8).write(to: root.appendingPathComponent("syn/meta.csv"))
        let folder = root.appendingPathComponent("syn").path
        XCTAssertEqual(RecordingCorpus.layout(of: folder), .synthetic)
        let items = recordings(try RecordingCorpus.items(in: folder))
        XCTAssertEqual(items.map(\.name), ["fileid_1", "fileid_2", "fileid_10"])
        XCTAssertEqual(items[0].mic, folder + "/nearend_mic_signal/nearend_mic_fileid_1.wav")
        XCTAssertEqual(items[0].loopback, folder + "/farend_speech/farend_speech_fileid_1.wav")
        XCTAssertEqual(items[0].echo, folder + "/echo_signal/echo_fileid_1.wav")
        XCTAssertEqual(items[0].nearEnd, folder + "/nearend_speech/nearend_speech_fileid_1.wav")
        XCTAssertNil(items[1].echo, "fileid_2 has no echo track")
        // Scenario files beside the recordings run too (they were passed over).
        try Data("{\"duration_s\": 1}".utf8).write(to: root.appendingPathComponent("syn/beside.json"))
        let corpus = try Corpus.items(in: [folder], excluding: nil)
        XCTAssertEqual(corpus.count, 4)
        guard case .scenario(let scenario) = corpus[3] else { return XCTFail("\(corpus[3])") }
        XCTAssertEqual(scenario, folder + "/beside.json")
        try FileManager.default.removeItem(at: root.appendingPathComponent("syn/beside.json"))
        try FileManager.default.removeItem(at: root.appendingPathComponent("syn/farend_speech/farend_speech_fileid_10.wav"))
        let withBroken = try RecordingCorpus.items(in: folder)
        XCTAssertEqual(recordings(Array(withBroken.prefix(2))).map(\.name), ["fileid_1", "fileid_2"], "the others still run")
        guard case .broken(let name, let file, let problem) = withBroken[2] else { return XCTFail("\(withBroken[2])") }
        XCTAssertEqual(name, "fileid_10")
        XCTAssertEqual(file, folder + "/nearend_mic_signal/nearend_mic_fileid_10.wav")
        XCTAssertTrue(problem.contains("farend_speech_fileid_10.wav: missing"), problem)
        // A WAV that fits no name in any of the four folders, and a file of an id that has no mic,
        // fail too, after the items, each named by its folder and file: skipped, a gate would
        // pass on less work.
        try wav("syn/nearend_mic_signal/nearend_mic_fileid_3.WAV")
        try wav("syn/echo_signal/echo_3.wav")
        try wav("syn/farend_speech/farend_speech_fileid_7.wav")
        try wav("syn/nearend_speech/nearend_speech_fileid_7.wav")
        try wav("syn/echo_signal/.hidden.wav")
        try wav("syn/nearend_mic_signal/nearend_mic_fileid_a b.wav")
        let strays = try RecordingCorpus.items(in: folder)
        XCTAssertEqual(recordings(Array(strays.prefix(2))).map(\.name), ["fileid_1", "fileid_2"])
        let broken = strays.dropFirst(3).map { item -> String in
            guard case .broken(let name, let file, let problem) = item else { XCTFail("\(item)"); return "" }
            XCTAssertTrue(problem.hasPrefix(file + ": "), problem)
            return "\(name) | " + problem.dropFirst(folder.count + 1)
        }
        XCTAssertEqual(broken, [
            "nearend_mic_signal/nearend_mic_fileid_3.WAV | nearend_mic_signal/nearend_mic_fileid_3.WAV: not an AEC-Challenge synthetic name "
                + "(nearend_mic_signal/nearend_mic_fileid_N.wav); rename or move it",
            "nearend_mic_signal/nearend_mic_fileid_a b.wav | nearend_mic_signal/nearend_mic_fileid_a b.wav: not an AEC-Challenge synthetic name "
                + "(nearend_mic_signal/nearend_mic_fileid_N.wav); rename or move it",
            "echo_signal/echo_3.wav | echo_signal/echo_3.wav: not an AEC-Challenge synthetic name (echo_signal/echo_fileid_N.wav); rename or move it",
            "farend_speech/farend_speech_fileid_7.wav | farend_speech/farend_speech_fileid_7.wav: a far-end file without its mic (nearend_mic_fileid_7.wav)",
            "nearend_speech/nearend_speech_fileid_7.wav | nearend_speech/nearend_speech_fileid_7.wav: a near-end speech file without its mic "
                + "(nearend_mic_fileid_7.wav)",
        ])
    }

    func testRealLayout() throws {
        try wav("real/0AB_doubletalk_mic.wav")
        try wav("real/0AB_doubletalk_lpb.wav")
        try wav("real/1CD_farend_singletalk_with_movement_mic.wav")
        try wav("real/1CD_farend_singletalk_with_movement_lpb.wav")
        try wav("real/2EF_nearend_singletalk_mic.wav")
        // The challenge's sweeps for an RT60 estimate sit beside the recordings: not items.
        try wav("real/9SW_sweep_mic.wav")
        try wav("real/9SW_sweep_lpb.wav")
        try Data("notes".utf8).write(to: root.appendingPathComponent("real/readme.txt"))
        let folder = root.appendingPathComponent("real").path
        XCTAssertEqual(RecordingCorpus.layout(of: folder), .real)
        let items = recordings(try RecordingCorpus.items(in: folder))
        XCTAssertEqual(items.map(\.name), ["0AB_doubletalk", "1CD_farend_singletalk_with_movement", "2EF_nearend_singletalk"])
        XCTAssertEqual(items.map(\.talkType), [.doubleTalk, .farEndSingleTalkWithMovement, .nearEndSingleTalk])
        XCTAssertEqual(items[0].loopback, folder + "/0AB_doubletalk_lpb.wav")
        XCTAssertNil(items[2].loopback, "near-end single talk is the mic alone")
        try FileManager.default.removeItem(at: root.appendingPathComponent("real/0AB_doubletalk_lpb.wav"))
        let withBroken = try RecordingCorpus.items(in: folder)
        XCTAssertEqual(recordings(Array(withBroken.dropFirst())).map(\.name), ["1CD_farend_singletalk_with_movement", "2EF_nearend_singletalk"])
        guard case .broken(let name, _, let problem) = withBroken[0] else { return XCTFail("\(withBroken[0])") }
        XCTAssertEqual(name, "0AB_doubletalk")
        XCTAssertTrue(problem.contains("0AB_doubletalk_lpb.wav: missing"), problem)
        // A WAV that fits no name, or a loopback without its mic, fails too: skipped, a gate
        // would pass on less work.
        try wav("real/3XY_Doubletalk_mic.wav")
        try wav("real/4ZZ_doubletalk_lpb.wav")
        let odd = try RecordingCorpus.items(in: folder)
        XCTAssertEqual(odd.count, 5)
        guard case .broken(let oddName, _, let oddProblem) = odd[3], case .broken(let lonely, _, let lonelyProblem) = odd[4] else {
            return XCTFail("\(odd)")
        }
        XCTAssertEqual(oddName, "3XY_Doubletalk_mic.wav")
        XCTAssertTrue(oddProblem.hasSuffix("3XY_Doubletalk_mic.wav: not an AEC-Challenge recording name (ID_<talk type>_mic.wav or _lpb.wav; "
                                           + "talk types farend_singletalk, farend_singletalk_with_movement, doubletalk, doubletalk_with_movement, "
                                           + "nearend_singletalk, or with hyphens for underscores); rename or move it"), oddProblem)
        XCTAssertEqual(lonely, "4ZZ_doubletalk")
        XCTAssertTrue(lonelyProblem.hasSuffix("4ZZ_doubletalk_lpb.wav: a loopback without its mic (4ZZ_doubletalk_mic.wav)"), lonelyProblem)
        // A recording whose name could not be a run's folder (a space here) fails once, by its
        // mic, named by the whole file name; the others still run.
        try wav("real/5A B_doubletalk_mic.wav")
        try wav("real/5A B_doubletalk_lpb.wav")
        let spaced = try RecordingCorpus.items(in: folder)
        XCTAssertEqual(spaced.count, 6)
        guard case .broken(let spacedName, _, let spacedProblem) = spaced[5] else { return XCTFail("\(spaced)") }
        XCTAssertEqual(spacedName, "5A B_doubletalk_mic.wav")
        XCTAssertTrue(spacedProblem.hasSuffix("5A B_doubletalk_mic.wav: the recording's name '5A B_doubletalk' must be 1 to 128 letters, digits, "
                                              + "'-', '_', '.' or '+', not starting with '.'; rename it"), spacedProblem)
    }

    /// The blind test sets' layout: one subfolder per talk type, the talk types written with
    /// hyphens, one GUID in several talk types; the sweeps' folder holds no items. A folder of
    /// WAVs of another name, and a WAV beside the talk types' folders, fail as items of their own
    /// (passed over, a gate would pass on fewer recordings than the folder holds).
    func testTalkTypeSubfoldersAndHyphenatedNames() throws {
        try wav("blind/doubletalk/01a6_doubletalk-with-movement_mic.wav")
        try wav("blind/doubletalk/01a6_doubletalk-with-movement_lpb.wav")
        try wav("blind/doubletalk/01a6_doubletalk_mic.wav")
        try wav("blind/doubletalk/01a6_doubletalk_lpb.wav")
        try wav("blind/farend-singletalk/05b0_farend-singletalk_mic.wav")
        try wav("blind/farend-singletalk/05b0_farend-singletalk_lpb.wav")
        try wav("blind/nearend-singletalk/02c3_nearend-singletalk_mic.wav")
        try wav("blind/nearend-singletalk/02c3_nearend-singletalk_lpb.wav")
        try wav("blind/sweep/0d4e_sweep_mic.wav")
        try wav("blind/sweep/0d4e_sweep_lpb.wav")
        try wav("blind/sweep/0d4f_doubletalk_mic.wav")   // named like a recording: the folder is not read
        try wav("blind/extra/0f5a_doubletalk_mic.wav")
        try wav("blind/stray.wav")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("blind/notes"), withIntermediateDirectories: true)
        try Data("# The blind test set\n".utf8).write(to: root.appendingPathComponent("blind/README.md"))
        try Data("no WAVs here\n".utf8).write(to: root.appendingPathComponent("blind/notes/n.txt"))
        let folder = root.appendingPathComponent("blind").path
        XCTAssertEqual(RecordingCorpus.layout(of: folder), .real)
        let all = try RecordingCorpus.items(in: folder)
        XCTAssertEqual(all.count, 6)
        guard case .broken(let strayName, let strayFile, _) = all.first, case .broken(let extraName, let extraFile, let extraProblem) = all.last
        else { return XCTFail("\(all)") }
        XCTAssertEqual([strayName, strayFile], ["stray.wav", folder + "/stray.wav"])
        XCTAssertEqual([extraName, extraFile], ["extra/", folder + "/extra"])
        XCTAssertEqual(extraProblem, folder + "/extra: a folder of WAVs not named for a talk type (farend-singletalk/, "
                       + "farend-singletalk-with-movement/, doubletalk/, doubletalk-with-movement/, nearend-singletalk/): its "
                       + "recordings are not read; rename or move it")
        let items = recordings(Array(all.dropFirst().dropLast()))
        XCTAssertEqual(items.map(\.name), ["01a6_doubletalk-with-movement", "01a6_doubletalk", "05b0_farend-singletalk",
                                           "02c3_nearend-singletalk"])
        XCTAssertEqual(items.map(\.talkType), [.doubleTalkWithMovement, .doubleTalk, .farEndSingleTalk, .nearEndSingleTalk])
        XCTAssertEqual(items[2].mic, folder + "/farend-singletalk/05b0_farend-singletalk_mic.wav")
        XCTAssertEqual(items[2].loopback, folder + "/farend-singletalk/05b0_farend-singletalk_lpb.wav")
        // One talk type's folder alone is a real layout too.
        let doubleTalk = recordings(try RecordingCorpus.items(in: folder + "/doubletalk"))
        XCTAssertEqual(doubleTalk.map(\.name), ["01a6_doubletalk-with-movement", "01a6_doubletalk"])
    }

    /// A sub-folder of a recording corpus that cannot be read was passed over: the scenarios in
    /// it left out, and the eval passed on the recordings alone. It is an error, as in a folder
    /// of scenarios, before anything runs. (Run as `nobody` when the tests run as root.)
    func testAnUnreadableFolderBesideRecordingsIsAnError() throws {
        try wav("syn/farend_speech/farend_speech_fileid_1.wav")
        try wav("syn/nearend_mic_signal/nearend_mic_fileid_1.wav")
        let hidden = root.appendingPathComponent("syn/private")
        try FileManager.default.createDirectory(at: hidden, withIntermediateDirectories: true)
        try Data(#"{"name": "s", "far_end": {"generator": "speech", "seed": 1}, "duration_s": 1}"#.utf8).write(to: hidden.appendingPathComponent("s.json"))
        for folder in try [root!] + FileManager.default.subpathsOfDirectory(atPath: root.path).map(root.appendingPathComponent) {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: hidden.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hidden.path) }
        let arguments = ["eval", "syn", "--modes", "disabled", "--no-taps", "--out", "out"]
        let (status, output) = try runEchoLabUnprivileged(arguments, in: root)
        XCTAssertEqual(status, 1, output)
        XCTAssertEqual(output, "echolab: syn/private: cannot be read (Permission denied): the scenarios in it would be left out\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/eval.json").path))
    }

    /// Two synthetic folders in one eval name their items alike: the second folder's items fail,
    /// each said of both mics and of what to do about it; so do the first folder's (a name is
    /// one item to eval.json and the gate).
    func testTwoSyntheticFoldersInOneEvalClashByName() throws {
        for set in ["train", "test"] {
            try wav("\(set)/farend_speech/farend_speech_fileid_1.wav")
            try wav("\(set)/nearend_mic_signal/nearend_mic_fileid_1.wav")
        }
        let result = try runEchoLab(["eval", "train", "test", "--modes", "disabled", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.standardOutput.hasPrefix("0 of 2 runs succeeded"), result.standardOutput)
        XCTAssertTrue(result.standardError.contains("echolab: train/nearend_mic_signal/nearend_mic_fileid_1.wav: name: 'fileid_1' is also used by "
                                                    + "test/nearend_mic_signal/nearend_mic_fileid_1.wav: neither runs"), result.standardError)
        XCTAssertTrue(result.standardError.contains("echolab: test/nearend_mic_signal/nearend_mic_fileid_1.wav: name: 'fileid_1' is already used by "
                                                    + "train/nearend_mic_signal/nearend_mic_fileid_1.wav: two recording folders name their items "
                                                    + "alike; evaluate them apart, or list one's recordings in a manifest under names of their own\n"),
                      result.standardError)
        // One folder given twice is said as such.
        let twice = try runEchoLab(["eval", "train", "train", "--modes", "disabled", "--out", "out2", "--no-taps"], in: root)
        XCTAssertEqual(twice.status, 1)
        XCTAssertTrue(twice.standardError.contains("echolab: train/nearend_mic_signal/nearend_mic_fileid_1.wav: listed twice in the corpus "
                                                   + "(also as train/nearend_mic_signal/nearend_mic_fileid_1.wav): give each item once\n"),
                      twice.standardError)
    }

    /// A partner file that is there but cannot be read (here a folder) is named for what it is,
    /// not "missing"; an echo or near-end track like that fails its item instead of silently
    /// changing the gate; the other items run (through the real binary).
    func testAPartnerThatIsAFolderIsNamedAsOne() throws {
        for id in 1...3 { try wav("syn/nearend_mic_signal/nearend_mic_fileid_\(id).wav") }
        try wav("syn/farend_speech/farend_speech_fileid_1.wav")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("syn/farend_speech/farend_speech_fileid_2.wav"),
                                                withIntermediateDirectories: true)
        try wav("syn/farend_speech/farend_speech_fileid_3.wav")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("syn/echo_signal/echo_fileid_3.wav"),
                                                withIntermediateDirectories: true)
        try wav("real/5NE_nearend_singletalk_mic.wav")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("real/5NE_nearend_singletalk_lpb.wav"),
                                                withIntermediateDirectories: true)
        let inputs = try snapshot(root)
        let result = try runEchoLab(["eval", "syn", "real", "--out", "out", "--no-taps"], in: root)
        XCTAssertEqual(result.status, 1, result.standardError)
        XCTAssertTrue(result.standardOutput.hasPrefix("1 of 4 runs succeeded"), result.standardOutput)
        let lines = result.standardError.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, [
            "echolab: syn/farend_speech/farend_speech_fileid_2.wav: is a folder, not a file; the far end of nearend_mic_fileid_2.wav",
            "echolab: syn/echo_signal/echo_fileid_3.wav: is a folder, not a file; the echo track of nearend_mic_fileid_3.wav",
            "echolab: real/5NE_nearend_singletalk_lpb.wav: is a folder, not a file; the loopback of 5NE_nearend_singletalk_mic.wav",
        ])
        try FileManager.default.removeItem(at: root.appendingPathComponent("out"))
        XCTAssertEqual(try snapshot(root), inputs, "inputs untouched")
    }

    func testAFolderOfScenariosIsNoRecordingLayout() throws {
        try Data("{}".utf8).write(to: root.appendingPathComponent("a.json"))
        XCTAssertNil(RecordingCorpus.layout(of: root.path))
        XCTAssertThrowsError(try RecordingCorpus.items(in: root.path))
        // Whatever its subfolders are called: a talk type's name holding a recording included.
        try wav("doubletalk/0a1b_doubletalk_mic.wav")
        try wav("doubletalk/0a1b_doubletalk_lpb.wav")
        XCTAssertNil(RecordingCorpus.layout(of: root.path))
    }
}
