import AudioCore
import EchoLabJSON
import ScenarioFiles
import XCTest

/// The `channel` key, as manifests, scenario files and recording reports write it, reads back as
/// the selection it came from; anything else names no channel.
final class ChannelSelectionJSONTests: XCTestCase {
    func testEachSelectionReadsBack() {
        for selection in [ChannelSelection.monoOnly, .downmix, .channel(0), .channel(5), .channel(ChannelSelection.highestChannel)] {
            XCTAssertEqual(ChannelSelection(json: selection.json), selection, "\(selection)")
        }
        XCTAssertEqual(ChannelSelection.channel(2).json, .number(2))
        XCTAssertEqual(ChannelSelection.monoOnly.json, .null)
        XCTAssertEqual(ChannelSelection(json: nil), .monoOnly, "a missing key: mono files only")
    }

    func testWhatNamesNoChannel() {
        for value: JSONValue in [.number(-1), .number(1.5), .number(Double(ChannelSelection.highestChannel + 1)), .string("left"), .bool(true), .array([])] {
            XCTAssertNil(ChannelSelection(json: value), "\(value)")
        }
    }
}
