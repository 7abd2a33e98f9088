import AudioCore
import Foundation
import Metrics

extension RecordingProcessor {
    /// What a finished run should warn of, in the order `echolab process` prints them: a loopback
    /// at another rate or of another length than the mic, a file of digital silence, clipping, a
    /// DC offset fed to the canceller, and an echo in the mic that comes before the loopback (no
    /// canceller removes it).
    /// Throws where the files cannot be read again for the last check.
    public func warnings(of outcome: Outcome, mic: String, reference: String) throws -> [String] {
        var warnings = [outcome.rateWarning(mic: mic, reference: reference), outcome.lengthWarning(mic: mic, reference: reference)].compactMap { $0 }
        // In metrics' words: a loopback of zeros gave the canceller nothing to cancel with, and
        // process said nothing of it.
        if outcome.micPeak == 0 { warnings.append("\(mic) is digital silence throughout: nothing was recorded") }
        if outcome.referenceRate != nil, outcome.loopbackPeak == 0 {
            warnings.append("\(reference) is digital silence throughout: nothing was played, so there was no echo to cancel")
        }
        warnings += outcome.clippingWarnings(mic: mic, reference: reference, cancellerRan: mode.intensity != .disabled)
        warnings += [outcome.dcOffsetWarning(mic: mic, mode: mode)].compactMap { $0 }
        if try LeadingEcho.isFound(inMicFile: mic, referenceFile: reference, channel: channel) {
            warnings.append("the echo in \(mic) leads \(reference) (a loopback recorded late, or --mic and "
                            + "--reference swapped?): no canceller removes an echo that comes before its reference")
        }
        return warnings
    }

    /// Each scorer's scores of a run's `output`, cut into talk types by the tap-free gate (a
    /// recording has no clean tracks). Files that cannot be scored together (a loopback at
    /// another rate than the mic) leave every scorer unscored, with why.
    public func scores(ofOutput output: String, mic: String, reference: String, scorers: [ScorerProcess],
                       cancellation: RunCancellation? = nil) -> [ScorerResult] {
        let analysis: EchoAnalysis
        do {
            analysis = try EchoAnalyzer().analyzeFiles(reference: reference, mic: mic, processed: output, channel: channel)
        } catch {
            return RunScoring.unscored(scorers, because: "the files cannot be scored together: \(error)")
        }
        let tracks = FileTracks(sampleRate: analysis.sampleRate, length: analysis.sampleCount, reference: reference, mic: mic, output: output,
                                channel: channel)
        return RunScoring.score(tracks, talk: analysis.talkRuns, frameSize: analysis.frameSize,
                                id: URL(fileURLWithPath: output).lastPathComponent, scorers: scorers, cancellation: cancellation)
    }
}
