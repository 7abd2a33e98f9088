import Foundation
import Metrics

extension RecordingMetrics {
    /// Figures that files given in the wrong roles give, said with the likely cause where there
    /// is evidence for it. The near-end track given as the echo and the echo as the near end:
    /// the "echo" 20 dB or more louder than the reference, and the "talker" over nearly every
    /// far-end frame, so that almost none is single talk (−40 dB on 2 frames, read with no word;
    /// a quiet loopback alone — one tapped before the playback gain — is no evidence of a swap).
    /// An output 10 dB or more louder than the mic over far-end single talk: the mic and the
    /// output swapped (−24 dB), or a canceller or gain after it that adds that much. Where the
    /// echo stays under the mic's noise there is no ERLE, and the output's level over the mic's
    /// on those frames (`outputOverMicWhereEchoUnderNoiseDB`) says the same: a double-talk
    /// recording's processed output given as the mic, its echo removed, read "no echo to cancel"
    /// and an ERL of ≥ 36.4 dB where the room's was 10, with no word.
    public static func implausibleFigureWarnings(_ metrics: EchoMetrics, reference: String, mic: String, processed: String,
                                                 echo: String?, nearEnd: String?,
                                                 outputOverMicWhereEchoUnderNoiseDB: Double? = nil) -> [String] {
        var lines: [String] = []
        let gate = metrics.gate
        if let echo, nearEnd != nil, let erl = metrics.erlDB, erl <= -20,
           gate.farEndActiveFrames >= FigureConfidence.minimumAnalysisFrames, gate.singleTalkFrames < FigureConfidence.minimumAnalysisFrames {
            lines.append(String(format: "the echo track %@ is %.1f dB louder than %@ and its near-end track talks over nearly all the far end "
                                + "(%d single-talk of %d far-end frames): --echo and --near-end swapped?",
                                echo, -erl, reference, gate.singleTalkFrames, gate.farEndActiveFrames))
        }
        let louder: Double? = if let erle = metrics.erleDB, !metrics.erleIsLowerBound,
                                 gate.singleTalkFrames >= FigureConfidence.minimumAnalysisFrames {
            -erle
        } else if metrics.erleDB == nil, gate.echoStaysUnderNoise {
            outputOverMicWhereEchoUnderNoiseDB
        } else {
            nil
        }
        if let louder, louder >= 10 {
            lines.append(String(format: "%@ is %.1f dB louder than %@ where only the far end talks: a canceller or gain that adds that much, "
                                + "or --mic and --processed swapped?", processed, louder, mic))
        }
        return lines
    }
}
