import AudioCore
import AudioInterop
import Foundation
import XCTest
@testable import Simulation

final class RenderGraphTests: XCTestCase {
    /// A tone at −6 dBFS and a file through a mixer with per-input gains: every output sample is
    /// the exact weighted sum, and a recorder tap writes the same frames to a real WAV.
    func testMixerSumsInputsWithGainsAndTapRecordsThem() throws {
        let folder = try makeTemporaryDirectory(for: self)
        let ramp = (0..<1000).map { Float($0) / 2000 }
        let input = folder.appendingPathComponent("ramp.wav").path
        try SoundFileWriter.write(ramp, to: input, sampleRate: 48_000)
        let file = try PlayerNode(source: .file(path: input, channel: .monoOnly), sampleRate: 48_000, maximumFrames: 256)
        let tone = ToneNode(frequency: 1000, levelDBFS: -6, sampleRate: 48_000, maximumFrames: 256)
        let mixer = MixerNode(inputs: [.init(file, gain: 0.5), .init(tone, gain: 0.25)], maximumFrames: 256)
        let recorded = folder.appendingPathComponent("tap.wav").path
        let tap = RecorderTapNode(input: mixer, writer: try SoundFileWriter(path: recorded, sampleRate: 48_000))
        let graph = RenderGraph(output: tap)

        var reference = SignalGenerator(kind: .tone(frequency: 1000, levelDBFS: -6), sampleRate: 48_000, seed: 0)
        var toneBlock = [Float](repeating: 0, count: 256)
        var rendered: [Float] = []
        var statuses: [RenderStatus] = []
        for _ in 0..<4 {                     // 4 × 256 = 1024 frames: the file runs out in pull 4
            statuses.append(try graph.render(frames: 256))
            rendered += graph.output[0..<256]
        }
        try tap.writer?.finish()
        XCTAssertEqual(statuses, [.complete, .complete, .complete, .insufficientData(rendered: 1000 - 768)])
        XCTAssertEqual(graph.insufficientPulls, 1)
        XCTAssertEqual(graph.missingFrames, 24)
        for block in 0..<4 {
            reference.fill(&toneBlock, count: 256)
            for i in 0..<256 {
                let n = block * 256 + i
                let expected = (n < 1000 ? ramp[n] * 0.5 : 0) + toneBlock[i] * 0.25
                XCTAssertEqual(rendered[n], expected, "frame \(n)")
            }
        }
        let reader = try SoundFileReader(path: recorded)
        var back = [Float](repeating: 0, count: 1024)
        XCTAssertEqual(try reader.read(into: &back, frames: 1024), 1024)
        XCTAssertEqual(back, rendered)
    }

    /// A mixer's gain changes take effect at the next pull; a pull past the graph's size is a
    /// typed error, not a crash.
    func testGainChangeAndOversizedPull() throws {
        let tone = ToneNode(frequency: 500, levelDBFS: -20, sampleRate: 16_000, maximumFrames: 160)
        let mixer = MixerNode(inputs: [.init(tone)], maximumFrames: 160)
        let graph = RenderGraph(output: mixer)
        try graph.render(frames: 160)
        let unit = meanSquare(graph.output[0..<160])
        XCTAssertEqual(10 * log10(unit), -20, accuracy: 0.1)
        mixer.setGain(0.1, forInput: 0)
        try graph.render(frames: 160)
        XCTAssertEqual(10 * log10(meanSquare(graph.output[0..<160])), -40, accuracy: 0.1)
        XCTAssertThrowsError(try graph.render(frames: 161)) { error in
            XCTAssertEqual(error as? RenderGraphError, .tooManyFrames(requested: 161, maximum: 160))
        }
    }

    /// The call's playout as a node: pulled faster than the engine produces it, the graph runs
    /// dry and says so (a status and a counter, the missing frames silent) instead of crashing.
    func testPlayoutNodeReportsInsufficientDataWhenThePlayoutRunsDry() throws {
        let call = try SimulatedCall(world: CallWorld(farEnd: .generator(.tone(frequency: 440, levelDBFS: -10), seed: 0)),
                                     recordsTaps: false)
        let speaker = CustomSpeaker()
        call.audioManager.setCustomSpeaker(speaker)
        var options = AppDeviceOptions()
        options.periodMilliseconds = 10
        let graph = RenderGraph(output: PlayoutNode(speaker: speaker, options: options))
        try call.start()
        try call.run(for: .milliseconds(100))            // 10 ticks of the peer in the playout FIFO
        var complete = 0
        var last = RenderStatus.complete
        for _ in 0..<20 {
            last = try graph.render(frames: 480)
            guard last == .complete else { break }
            complete += 1
            XCTAssertEqual(10 * log10(meanSquare(graph.output[0..<480])), -10, accuracy: 0.5)
        }
        XCTAssertEqual(complete, 10)
        guard case .insufficientData(let rendered) = last else { return XCTFail("never ran dry") }
        XCTAssertLessThan(rendered, 480)
        XCTAssertEqual(meanSquare(graph.output[rendered..<480]), 0)
        XCTAssertEqual(graph.insufficientPulls, 1)
        _ = call.end()
    }

    /// The engine's loudspeaker mix: two buses the engine feeds each tick, the first one disabled
    /// while a custom speaker takes the downlink. Enabled, the mix is the exact sum; disabled, the
    /// other bus passes bit for bit and the disabled one is not pulled (its block stays for later);
    /// a bus pulled without a new block runs dry instead of repeating the old one.
    func testBusesAndADisabledMixerInputAsTheEngineUsesThem() throws {
        let downlink = BusInputNode(maximumFrames: 4), app = BusInputNode(maximumFrames: 4)
        let mixer = MixerNode(inputs: [.init(downlink), .init(app)], maximumFrames: 4)
        let graph = RenderGraph(output: mixer)
        var drive = [Float](repeating: 9, count: 4)
        downlink.set([0.5, -0.25, 0, 1], count: 4)
        app.set([0.125, 0.125, -0, -1], count: 4)
        XCTAssertEqual(try graph.render(into: &drive, frames: 4), .complete)
        XCTAssertEqual(drive, [0.625, -0.125, 0, 0])

        downlink.set([0.5, 0.5, 0.5, 0.5], count: 4)
        app.set([-0, 0.25, 0.5, 0.75], count: 4)
        mixer.setEnabled(false, forInput: 0)
        XCTAssertEqual(try graph.render(into: &drive, frames: 4), .complete)
        XCTAssertEqual(drive.map(\.bitPattern), [Float(-0), 0.25, 0.5, 0.75].map(\.bitPattern))
        // The disabled bus was not pulled: its block is still there once enabled again.
        mixer.setEnabled(true, forInput: 0)
        app.set([0, 0, 0, 0], count: 4)
        XCTAssertEqual(try graph.render(into: &drive, frames: 4), .complete)
        XCTAssertEqual(drive, [0.5, 0.5, 0.5, 0.5])
        // No new block: both buses run dry, the pull says so and is silent.
        XCTAssertEqual(try graph.render(into: &drive, frames: 4), .insufficientData(rendered: 0))
        XCTAssertEqual(drive, [0, 0, 0, 0])
        XCTAssertEqual(graph.insufficientPulls, 1)
        // Nothing enabled: silence, complete.
        mixer.setEnabled(false, forInput: 0)
        mixer.setEnabled(false, forInput: 1)
        drive = [1, 1, 1, 1]
        XCTAssertEqual(try graph.render(into: &drive, frames: 4), .complete)
        XCTAssertEqual(drive, [0, 0, 0, 0])
    }
}
