import AudioCore
import Foundation
import VirtualTime
import XCTest
@testable import Simulation

/// A call must be freed once the app lets go of it after `end()`, whatever device it used: a
/// device holding its call while the call's `AudioManager` holds the device would leak every
/// eval item's FFT plans, speex state and buffers.
final class CallLifetimeTests: XCTestCase {
    private func makeCall() throws -> SimulatedCall {
        try SimulatedCall(world: CallWorld(farEnd: .generator(.whiteNoise(levelDBFS: -30), seed: 1)),
                          voiceProcessing: VoiceProcessingSettings(echoCancellerMode: .intensityRecommended), recordsTaps: false)
    }

    /// Builds a call with devices made by `attach`, runs it 200 ms, ends it; returns a weak reference.
    private func weakCallAfterEnd(_ attach: (SimulatedCall) throws -> Void) throws -> () -> SimulatedCall? {
        weak var weakCall: SimulatedCall?
        do {
            let call = try makeCall()
            weakCall = call
            try attach(call)
            try call.start()
            try call.run(for: .milliseconds(200))
            let counters = call.end()
            XCTAssertEqual(counters.ticks, 20)
            XCTAssertEqual(call.counters, counters, "the counters survive releasing the devices")
        }
        return { weakCall }
    }

    func testEveryShippedDeviceKindLetsTheCallGo() throws {
        let folder = try makeTemporaryDirectory(for: self)
        let options = AppDeviceOptions()
        let micKinds: [(String, MicDevice)] = [
            ("default", .default),
            ("file", .file(.generator(.tone(frequency: 440, levelDBFS: -20), seed: 0), loops: false, options: options)),
            ("generator", .generator(.tone(frequency: 440, levelDBFS: -20), seed: 0, options: options)),
            ("passthrough", .passThrough(options: options)),
        ]
        let speakerKinds: [(String, SpeakerDevice)] = [
            ("default", .default),
            ("recording", .recording(fileName: "rec.wav", options: options)),
            ("mixing", .mixing(music: .generator(.musicLike(levelDBFS: -30), seed: 2), musicGainDB: 0, putsReference: true, options: options)),
            ("passthrough", .passThrough(putsReference: true, options: options)),
        ]
        for (micName, mic) in micKinds {
            for (speakerName, speaker) in speakerKinds {
                // Driven the way `ScenarioRunner` drives a scenario's devices.
                let weakCall = try weakCallAfterEnd { call in
                    let driver = DeviceDriver(call: call, outputDirectory: folder.path, scenarioFile: "lifetime.json")
                    try driver.apply(.setCustomMic(mic))
                    try driver.apply(.setCustomSpeaker(speaker))
                    call.scheduler.schedule(at: .zero + .milliseconds(100), phase: .transition) {
                        try? driver.apply(.resetCustomMic)   // a retired device too
                    }
                    call.scheduler.schedule(at: .zero + .milliseconds(199), phase: .transition) {
                        try? driver.finish()
                    }
                }
                XCTAssertNil(weakCall(), "mic \(micName), speaker \(speakerName): the call is still alive after end()")
            }
        }
    }

    func testAppMadeDevicesLetTheCallGo() throws {
        let weakCall = try weakCallAfterEnd { call in
            let mic = PassThroughMicrophone(call: call)
            call.audioManager.setCustomMic(mic)
            mic.start()
            let speaker = PassThroughSpeaker(call: call, putsReference: true)
            call.audioManager.setCustomSpeaker(speaker)
            speaker.start()
        }
        XCTAssertNil(weakCall())
    }
}
