/// What one scorer said of one run: its scores per talk type, or why there are none. A score is
/// never taken for a number it is not: it carries the scorer's name (as `--scorer` gave it and
/// as the program reports itself), its version and its model file's SHA-256 when it reports them.
public struct ScorerResult: Codable, Equatable, Sendable {
    /// The name `--scorer NAME=…` gave.
    public var name: String
    /// How the program names itself, its version and its model's SHA-256 (nil: not reported).
    public var reportedName: String?
    public var version: String?
    public var modelSHA256: String?
    /// One entry per talk type the run had stretches of; nil when the scorer failed.
    public var talkTypes: [TalkTypeScores]?
    /// Why there are no scores: the scorer crashed, hung, answered something else, said it could
    /// not score, or the run had no stretch long enough to score.
    public var unscoredReason: String?

    public init(name: String, reportedName: String? = nil, version: String? = nil, modelSHA256: String? = nil,
                talkTypes: [TalkTypeScores]?, unscoredReason: String?) {
        self.name = name
        self.reportedName = reportedName
        self.version = version
        self.modelSHA256 = modelSHA256
        self.talkTypes = talkTypes
        self.unscoredReason = unscoredReason
    }

    /// No scores from scorer `name`, and why.
    public static func unscored(_ name: String, because reason: String) -> ScorerResult {
        ScorerResult(name: name, talkTypes: nil, unscoredReason: reason)
    }

    enum CodingKeys: String, CodingKey {
        case name, reportedName = "reported_name", version, modelSHA256 = "model_sha256"
        case talkTypes = "talk_types", unscoredReason = "unscored_reason"
    }
}

/// A scorer's scores over the stretches of one talk type: each score the duration-weighted mean
/// of its stretches' values.
public struct TalkTypeScores: Codable, Equatable, Sendable {
    /// `st`, `nst` or `dt`.
    public var talkType: String
    public var stretches: Int
    public var seconds: Double
    /// By score name, in name order.
    public var scores: [String: ScoreValue]

    public init(talkType: String, stretches: Int, seconds: Double, scores: [String: ScoreValue]) {
        self.talkType = talkType
        self.stretches = stretches
        self.seconds = seconds
        self.scores = scores
    }

    enum CodingKeys: String, CodingKey {
        case talkType = "talk_type", stretches, seconds = "duration_s", scores
    }
}

/// One score with what reading it needs: which way is better and the range it lives in.
public struct ScoreValue: Codable, Equatable, Sendable {
    public var value: Double
    public var higherIsBetter: Bool
    public var minimum: Double
    public var maximum: Double

    public init(value: Double, higherIsBetter: Bool, minimum: Double, maximum: Double) {
        self.value = value
        self.higherIsBetter = higherIsBetter
        self.minimum = minimum
        self.maximum = maximum
    }

    enum CodingKeys: String, CodingKey {
        case value, higherIsBetter = "higher_is_better", minimum = "min", maximum = "max"
    }

    /// Whether `other` is declared as this score is (its direction and range): only then are the
    /// two values one score's, to average or compare.
    public func isDeclared(like other: ScoreValue) -> Bool {
        higherIsBetter == other.higherIsBetter && minimum == other.minimum && maximum == other.maximum
    }
}
