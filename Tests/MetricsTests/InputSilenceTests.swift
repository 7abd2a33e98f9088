import AudioCore
import Foundation
import Metrics
import XCTest

/// A sent stream's gaps and clicks that its input already held are the input's: gaps covered
/// by the input's own digital silence and clicks at the input's clicks or at the edges of its
/// silence are left out; a dropout the input did not have, or a click where the input only
/// stopped being what was sent, stays.
final class InputSilenceTests: XCTestCase {
    private let rate = 48_000
    private var detector: GlitchDetector { GlitchDetector(sampleRate: rate) }

    /// A 300 Hz tone at −20 dBFS with digital silence over `silent` (sample ranges); its phase
    /// keeps its own zero crossings off whole samples.
    private func tone(_ count: Int, silent: [Range<Int>]) -> [Float] {
        var signal = (0..<count).map { Float(0.1 * sin(2 * Double.pi * 300 * Double($0) / 48_000 + 0.3)) }
        for range in silent { for i in range { signal[i] = 0 } }
        return signal
    }

    private func silence(of signal: [Float], blocks: Int = 480) -> InputSilence {
        var input = InputSilence(detector: detector)
        var offset = 0
        while offset < signal.count {
            let count = min(blocks, signal.count - offset)
            input.append(Array(signal[offset..<(offset + count)]), count: count)
            offset += count
        }
        input.finish()
        return input
    }

    func testRunsAreTheInputsSilencesOfAGapsLengthWhateverTheBlocks() {
        // 240 samples (5 ms) is a gap's length; 200 is not.
        let signal = tone(48_000, silent: [10_000..<10_240, 20_000..<20_200, 30_000..<31_000, 47_500..<48_000])
        for blocks in [480, 97, 4_096] {
            XCTAssertEqual(silence(of: signal, blocks: blocks).runs, [10_000..<10_240, 30_000..<31_000, 47_500..<48_000], "blocks of \(blocks)")
        }
    }

    func testAnInputThatPausesInZerosHasNoGapsOfItsOwnPassedOn() {
        // The input passed on as it is (a canceller that is off): every gap is the input's.
        let signal = tone(96_000, silent: [20_000..<24_800, 50_000..<52_400])
        let sent = detector.analyze(signal)
        XCTAssertEqual(sent.gaps, [20_000..<24_800, 50_000..<52_400], "the detector sees both pauses")
        let discounted = sent.discounting(silence(of: signal), inputClicks: detector.analyze(signal).events, margin: 240)
        XCTAssertEqual(discounted.gaps, [])
        XCTAssertEqual(discounted.events, [], "the steps into and out of the pauses are the input's")
    }

    func testADropoutTheInputDidNotHaveStays() {
        let input = tone(96_000, silent: [20_000..<24_800])
        // The pipeline drops 20 ms where the input played, and 10 ms more just after the pause
        // (it meets the pause but is not covered by it).
        var sent = input
        for i in 60_000..<60_960 { sent[i] = 0 }
        for i in 24_800..<25_280 { sent[i] = 0 }
        let report = detector.analyze(sent)
        XCTAssertEqual(report.gaps, [20_000..<25_280, 60_000..<60_960])
        let discounted = report.discounting(silence(of: input), inputClicks: detector.analyze(input).events, margin: 240)
        XCTAssertEqual(discounted.gaps, [20_000..<25_280, 60_000..<60_960], "neither is covered by the input's pause")
        XCTAssertFalse(discounted.events.isEmpty, "the dropout's edges are clicks of the pipeline's")
        XCTAssertTrue(discounted.events.allSatisfy { abs($0.sampleIndex - 60_000) <= 240 || abs($0.sampleIndex - 60_960) <= 240
            || abs($0.sampleIndex - 25_280) <= 240 }, "\(discounted.events)")
    }

    func testAClickInsideTheInputsSilenceIsThePipelines() {
        let input = silence(of: tone(96_000, silent: [20_000..<30_000]))
        let sent = GlitchReport(events: [GlitchEvent(sampleIndex: 20_100, strengthDB: 20), GlitchEvent(sampleIndex: 25_000, strengthDB: 20),
                                         GlitchEvent(sampleIndex: 29_900, strengthDB: 20)], gaps: [])
        XCTAssertEqual(sent.discounting(input, inputClicks: [], margin: 240).events.map(\.sampleIndex), [25_000],
                       "the pause's edges are the input's, its middle is not")
    }

    func testAClickWhereTheInputStopsBeingSentIsNotTheInputs() {
        // The input is what is sent up to 48 000, then something else (a muted stretch): a click
        // finder over the input's zeros there sees a step, which is the switch's.
        var input = InputSilence(detector: detector)
        let signal = tone(48_000, silent: [])
        input.append(signal, count: signal.count)
        input.appendSound(count: 48_000)
        input.finish()
        XCTAssertEqual(input.switches, [48_000])
        let sent = GlitchReport(events: [GlitchEvent(sampleIndex: 48_001, strengthDB: 20)], gaps: [])
        let inputClicks = [GlitchEvent(sampleIndex: 48_000, strengthDB: 30)]
        XCTAssertEqual(sent.discounting(input, inputClicks: inputClicks, margin: 240).events, sent.events)
        XCTAssertEqual(sent.discounting(silence(of: signal), inputClicks: inputClicks, margin: 240).events, [],
                       "the same click where the input itself clicked is the input's")
    }
}
