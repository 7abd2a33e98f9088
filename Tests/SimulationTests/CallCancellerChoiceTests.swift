import AudioCore
import XCTest
@testable import Simulation

/// library.md's way to choose the canceller a call starts with, as written there: the backend and
/// intensity the settings name are the call's, and an intensity set later keeps the backend.
final class CallCancellerChoiceTests: XCTestCase {
    func testTheSettingsNameTheCancellerTheCallStartsWith() throws {
        let world = CallWorld(farEnd: .generator(.speechLike(levelDBFS: -20, pitchHz: 120), seed: 1),
                              echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -6))
        let aec3Call = try SimulatedCall(world: world, voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityMax,
                                                                                                 backend: .aec3))
        try aec3Call.start()
        try aec3Call.run(for: .seconds(1))
        XCTAssertEqual(aec3Call.sendVoiceProcessor.backend, .aec3)
        XCTAssertEqual(aec3Call.sendVoiceProcessor.echoCancellerMode, .intensityMax)
        try aec3Call.sendVoiceProcessor.setAcousticEchoCanceller(mode: .intensityMin)
        try aec3Call.run(for: .seconds(1))
        XCTAssertEqual(aec3Call.sendVoiceProcessor.backend, .aec3, "an intensity changes, not the backend")
        XCTAssertEqual(aec3Call.sendVoiceProcessor.echoCancellerMode, .intensityMin)
        _ = aec3Call.end()
        // A plugin is checked by name and rate when registered; its file is opened when the call makes its canceller.
        let mine = try CancellerPlugin(name: "mine", path: "/path/to/mine.so")
        XCTAssertEqual(VoiceProcessingSettings(backend: EchoCancellerBackend(plugin: mine)).backend.plugin?.name, "mine")
        XCTAssertEqual(mine.path, "/path/to/mine.so")
        // A relative path is the current folder's, as the CLI reads `--plugin mine=nlms.so`: as
        // given, dlopen searched the system's library path for it.
        let folder = FileManager.default.currentDirectoryPath
        XCTAssertEqual(try CancellerPlugin(name: "mine", path: "nlms.so").path, (folder as NSString).appendingPathComponent("nlms.so"))
        XCTAssertEqual(try CancellerPlugin(name: "mine", path: "plugins/../nlms.so").path, (folder as NSString).appendingPathComponent("nlms.so"))
    }
}
