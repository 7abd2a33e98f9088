import EchoLabJSON
import Metrics

/// What `echolab metrics` reports about recorded files: the echo metrics, why the ones that are
/// null are, how the processed file was aligned with the mic, a length mismatch it was scored
/// through, and the scorers' scores. Built once from the analysis; its JSON is the command's
/// output.
public struct RecordingMetrics: Sendable {
    public var metrics: EchoMetrics
    /// Why ERL and ERLE are null, in the words a run's report uses; nil where they are measured.
    public var echoUnmeasured: String?
    /// Why `delay_ms` is null; nil where it is measured.
    public var delayUnmeasured: String?
    /// Why `convergence_s` is null where there is a steady ERLE (`RunEvaluator.convergenceUnmeasuredReason`).
    public var convergenceUnmeasured: String?
    /// How far the processed file lags the mic, and where that figure came from.
    public var processedLag: ProcessedLag
    public var lengthMismatch: LengthMismatch?
    /// The mic's and the loopback's samples at full scale (nil for signals analysed in memory).
    public var inputs: InputCensus?
    /// nil where no scorer was asked for (the JSON then has no `scores`).
    public var scores: [ScorerResult]?

    public init(analysis: EchoAnalysis, processedLag: ProcessedLag, scores: [ScorerResult]? = nil) {
        metrics = analysis.whole
        echoUnmeasured = RunEvaluator.echoUnmeasuredReason(analysis.whole, states: [],
                                                           durationSeconds: Double(analysis.sampleCount) / Double(max(1, analysis.sampleRate)),
                                                           referenceIsSilent: analysis.inputs?.referenceIsSilent ?? false,
                                                           micIsSilent: analysis.inputs?.micIsSilent ?? false)
        if let echoUnmeasured { metrics.sayWhyNoSingleTalk(echoUnmeasured) }
        delayUnmeasured = RunEvaluator.delayUnmeasuredReason(analysis.whole)
        convergenceUnmeasured = RunEvaluator.convergenceUnmeasuredReason(analysis.whole)
        self.processedLag = processedLag
        lengthMismatch = analysis.lengthMismatch
        inputs = analysis.inputs
        self.scores = scores
    }

    /// The command's JSON: the metrics object with the fields above beside its own.
    public func json() -> JSONValue {
        guard case .object(var object) = metrics.json else { preconditionFailure("the metrics encode as a JSON object") }
        if let lengthMismatch { object["length_mismatch"] = lengthMismatch.json }
        // As a recording run's report.json counts them: the echo metrics of a clipped recording are uncertain.
        if let inputs {
            object["clipped_samples"] = .object(["mic": .number(Double(inputs.micFullScaleSamples)),
                                                 "loopback": .number(Double(inputs.referenceFullScaleSamples))])
            // The figures rest on these: a DC offset taken off, a drift the gate resampled by.
            object["input_corrections"] = JSONValue(encoding: inputs.corrections)
        }
        object["echo_unmeasured"] = echoUnmeasured.map(JSONValue.string) ?? .null
        object["delay_unmeasured"] = delayUnmeasured.map(JSONValue.string) ?? .null
        object["convergence_unmeasured"] = convergenceUnmeasured.map(JSONValue.string) ?? .null
        object["processed_lag_ms"] = .number(processedLag.milliseconds)
        object["processed_lag_source"] = .string(processedLag.source.rawValue)
        if let scores { object["scores"] = .array(scores.map(JSONValue.init(encoding:))) }
        return .object(object)
    }
}
