import Evaluation
import Metrics
import XCTest

/// What `echolab metrics` warns of where figures point to files given in the wrong roles.
final class ImplausibleFigureWarningsTests: XCTestCase {
    private func metrics(erl: Double?, erle: Double?, farEndActive: Int, single: Int) -> EchoMetrics {
        let gate = ActivityGateSummary(method: .nearEndTrack, frames: farEndActive + 10, farEndActiveFrames: farEndActive, singleTalkFrames: single,
                                       doubleTalkFrames: farEndActive - single)
        return EchoMetrics(erlDB: erl, erleDB: erle, erleSteadyDB: nil, convergenceSeconds: nil, delayMilliseconds: nil,
                           erleSeries: [], erleBands: [], gate: gate)
    }

    private func warnings(_ m: EchoMetrics, tracks: Bool = true, outputOverMicWhereEchoUnderNoise: Double? = nil) -> [String] {
        RecordingMetrics.implausibleFigureWarnings(m, reference: "ref.wav", mic: "mic.wav", processed: "out.wav",
                                                   echo: tracks ? "echo.wav" : nil, nearEnd: tracks ? "near.wav" : nil,
                                                   outputOverMicWhereEchoUnderNoiseDB: outputOverMicWhereEchoUnderNoise)
    }

    /// An echo 25 dB over the reference and a talker over all but 2 of 100 far-end frames: the
    /// tracks swapped. Without the tracks, or with single talk to stand on, nothing is said.
    func testSwappedTracksAreNamed() {
        XCTAssertEqual(warnings(metrics(erl: -25, erle: nil, farEndActive: 100, single: 2)),
                       ["the echo track echo.wav is 25.0 dB louder than ref.wav and its near-end track talks over nearly all the far end "
                        + "(2 single-talk of 100 far-end frames): --echo and --near-end swapped?"])
        XCTAssertEqual(warnings(metrics(erl: -25, erle: nil, farEndActive: 100, single: 2), tracks: false), [])
        XCTAssertEqual(warnings(metrics(erl: -25, erle: nil, farEndActive: 100, single: 40)), [])
    }

    /// An output 12 dB over the mic in far-end single talk: a gain, or mic and output swapped.
    func testAnOutputLouderThanTheMicIsNamed() {
        XCTAssertEqual(warnings(metrics(erl: 10, erle: -12, farEndActive: 100, single: 80)),
                       ["out.wav is 12.0 dB louder than mic.wav where only the far end talks: a canceller or gain that adds that much, "
                        + "or --mic and --processed swapped?"])
        XCTAssertEqual(warnings(metrics(erl: 10, erle: -9, farEndActive: 100, single: 80)), [])
    }

    /// No single talk because the mic's echo stays under its noise, so no ERLE: the output's level
    /// over the mic's on those frames speaks instead (a canceller's output given as the mic).
    func testAnOutputLouderThanAMicWithoutEchoIsNamed() {
        var underNoise = metrics(erl: 36, erle: nil, farEndActive: 0, single: 0)
        underNoise.gate.echoUnderNoiseFrames = 50
        underNoise.erlIsLowerBound = true
        XCTAssertEqual(warnings(underNoise, tracks: false, outputOverMicWhereEchoUnderNoise: 27.1),
                       ["out.wav is 27.1 dB louder than mic.wav where only the far end talks: a canceller or gain that adds that much, "
                        + "or --mic and --processed swapped?"])
        XCTAssertEqual(warnings(underNoise, tracks: false, outputOverMicWhereEchoUnderNoise: 9.9), [])
        // Too few such frames to say the echo stays under the noise: no word.
        underNoise.gate.echoUnderNoiseFrames = 19
        XCTAssertEqual(warnings(underNoise, tracks: false, outputOverMicWhereEchoUnderNoise: 27.1), [])
    }
}
