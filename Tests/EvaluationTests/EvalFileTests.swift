import EchoLabJSON
@testable import Evaluation
import XCTest

/// `merge` reads a shard's eval.json back as `EvalFile`: what the document rendered from the
/// runs says of its header and of which runs ran where.
final class EvalFileTests: XCTestCase {
    private func document(modesAsked: Bool, shard: String?, plan: JSONValue?) throws -> JSONValue {
        let failed = EvalDocument.Run(mode: "speex:intensityMax", folder: "b/speex-intensityMax", summary: nil, error: "b.json: no far end")
        let items = [EvalDocument.Item(index: 4, name: "a", file: "corpus/a.json",
                                       results: [HandBuiltRuns.run("webrtc:intensityMax"), HandBuiltRuns.run("speex:intensityMax")]),
                     EvalDocument.Item(index: 7, name: "b", file: "corpus/b.json", results: [failed])]
        return try EvalDocument.make(items: items, modes: ["webrtc:intensityMax", "speex:intensityMax"], modesAsked: modesAsked, planned: 3,
                                     isComplete: false, shard: shard, plan: plan, wallSeconds: 2.5).document
    }

    func testAShardsFileReadsAsTheValuesItWasRenderedFrom() throws {
        let plan: JSONValue = .object(["entries": .number(9), "digest": .string("abc")])
        let file = EvalFile(checked: try document(modesAsked: true, shard: "2/3", plan: plan))
        XCTAssertEqual(file.shard, "2/3")
        XCTAssertEqual(file.plan?.entries, 9)
        XCTAssertEqual(file.plan?.digest, "abc")
        XCTAssertEqual(file.plan?.written, plan)
        XCTAssertEqual(file.planned, 3)
        XCTAssertFalse(file.isComplete)
        XCTAssertEqual(file.wallSeconds, 2.5)
        XCTAssertEqual(file.tool?["name"]?.stringValue, "echolab")
        XCTAssertEqual(file.modes, ["webrtc:intensityMax", "speex:intensityMax"])
        XCTAssertEqual(file.items.map(\.index), [4, 7])
        XCTAssertEqual(file.items.map(\.file), ["corpus/a.json", "corpus/b.json"])
        XCTAssertEqual(file.items[1].results, [EvalFile.Run(mode: "speex:intensityMax", folder: "b/speex-intensityMax", error: "b.json: no far end")])
        XCTAssertEqual(file.runFolders, ["x/webrtc:intensityMax", "x/speex:intensityMax"], "a failed run has no folder on disk")
    }

    func testScenariosAsWrittenHaveNoModesAndTheirModesInTheOrderRun() throws {
        let file = EvalFile(checked: try document(modesAsked: false, shard: nil, plan: nil))
        XCTAssertNil(file.modes, "\"as_written\" is no list of modes")
        XCTAssertNil(file.shard)
        XCTAssertNil(file.plan)
        XCTAssertEqual(file.modeNames, ["webrtc:intensityMax", "speex:intensityMax"])
    }

    /// Shards of one plan share its modes and EchoLab build as their files have them: a key one
    /// file lacks is not another's null, and a value of another kind is no value, not an error.
    func testTheBuildAndModesAreComparedAsWritten() throws {
        var written = try XCTUnwrap(try document(modesAsked: true, shard: "1/2", plan: nil).objectValue)
        let whole = EvalFile(checked: .object(written))
        written["tool"] = nil
        let noTool = EvalFile(checked: .object(written))
        written["tool"] = .null
        XCTAssertEqual(noTool.differs(from: EvalFile(checked: .object(written))), "tool")
        XCTAssertEqual(whole.differs(from: noTool), "tool")
        XCTAssertNil(whole.differs(from: whole))
        written["modes"] = .array([.string("speex:intensityMax"), .number(1)])
        let odd = EvalFile(checked: .object(written))
        XCTAssertEqual(odd.modes, ["speex:intensityMax"], "a list of modes keeps its names")
        XCTAssertEqual(odd.differs(from: noTool), "modes")
        written["shard"] = .number(1)
        XCTAssertNil(EvalFile(checked: .object(written)).shard, "not \"K/N\": no shard")
    }
}
