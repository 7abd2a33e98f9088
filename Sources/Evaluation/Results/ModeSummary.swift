import Metrics

/// One mode's statistics over a corpus: an entry of eval.json's `mode_summary` (its `Codable`
/// encoding), and what eval.md and eval.html show per mode. Computed by `EvalDocument` from the
/// runs' values as eval.json prints them, so a merge of shards gets the same numbers.
public struct ModeSummary: Codable, Sendable, Equatable {
    /// One metric over the runs of the mode that have a value it can count: a lower bound counts
    /// at its bound (a near end lost, an output under the noise floor), a low-confidence value
    /// (`FigureConfidence`) not at all.
    public struct Statistics: Codable, Sendable, Equatable {
        /// nil when no run has a value (then `count` is 0).
        public var mean: Double?
        public var median: Double?
        /// The 10th percentile: how the mode does on its hard items.
        public var p10: Double?
        /// How many runs had a value.
        public var count: Int
        /// How many of those values were lower bounds: with any, the mean is a lower bound too, and
        /// so is a percentile that a bound's rise could move (`medianIsLowerBound`, `p10IsLowerBound`).
        public var lowerBounds: Int
        /// Runs whose value stood on too few frames and was left out.
        public var lowConfidence: Int
        /// Whether each statistic is only a lower bound: the mean with any bound among the values;
        /// a percentile where a bound lies at or under its upper neighbour's rank (a percentile
        /// never falls when a value rises, and a value over that neighbour does not move it). A
        /// mode's TCLw median read "≥ 7.3 dB" over five measured runs and one bound at 8.68.
        /// (Not in eval.json, whose `lower_bounds` counts the bounds.)
        public var meanIsLowerBound = false
        public var medianIsLowerBound = false
        public var p10IsLowerBound = false

        /// Mean, median and 10th percentile (linear interpolation between the closest ranks).
        /// `lowerIsBetter`: the hard items are the high values, and `p10` is the 90th percentile
        /// (the value a tenth of the runs do worse than, whichever way is better).
        public init(_ values: [Double], lowerBounds: Int = 0, lowConfidence: Int = 0, lowerIsBetter: Bool = false) {
            self.lowerBounds = lowerBounds
            self.lowConfidence = lowConfidence
            count = values.count
            guard !values.isEmpty else { return }
            mean = values.reduce(0, +) / Double(values.count)
            median = Self.percentile(values, 50)
            p10 = Self.percentile(values, lowerIsBetter ? 90 : 10)
            (meanIsLowerBound, medianIsLowerBound, p10IsLowerBound) = (lowerBounds > 0, lowerBounds > 0, lowerBounds > 0)
        }

        /// The statistics of values each a measurement or a lower bound, each statistic a bound
        /// only where a bound can move it.
        public init(_ values: [(value: Double, isLowerBound: Bool)], lowConfidence: Int = 0, lowerIsBetter: Bool = false) {
            self.init(values.map(\.value), lowerBounds: values.filter(\.isLowerBound).count, lowConfidence: lowConfidence,
                      lowerIsBetter: lowerIsBetter)
            guard lowerBounds > 0 else { return }
            let sorted = values.map(\.value).sorted()
            let lowestBound = values.filter(\.isLowerBound).map(\.value).min()!
            func movable(_ p: Double) -> Bool {
                let position = p / 100 * Double(sorted.count - 1)
                return lowestBound <= sorted[Int(position.rounded(.up))]
            }
            medianIsLowerBound = movable(50)
            p10IsLowerBound = movable(lowerIsBetter ? 90 : 10)
        }

        /// The p-th percentile by linear interpolation between the closest ranks (p in 0…100).
        static func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            let position = p / 100 * Double(sorted.count - 1)
            let low = Int(position.rounded(.down)), high = Int(position.rounded(.up))
            return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
        }

        enum CodingKeys: String, CodingKey {
            case mean, median, p10, count, lowerBounds = "lower_bounds", lowConfidence = "low_confidence_left_out"
        }

        /// Read back from eval.json, which counts the bounds but not which values they were: every
        /// statistic over any bound is then a bound, never a measurement it may not be.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            mean = try container.decodeIfPresent(Double.self, forKey: .mean)
            median = try container.decodeIfPresent(Double.self, forKey: .median)
            p10 = try container.decodeIfPresent(Double.self, forKey: .p10)
            count = try container.decode(Int.self, forKey: .count)
            lowerBounds = try container.decode(Int.self, forKey: .lowerBounds)
            lowConfidence = try container.decode(Int.self, forKey: .lowConfidence)
            (meanIsLowerBound, medianIsLowerBound, p10IsLowerBound) = (lowerBounds > 0, lowerBounds > 0, lowerBounds > 0)
        }
    }

    /// One scorer over the mode's runs: each of its scores per talk type, summarised over the
    /// runs' values (each the length-weighted mean of a run's stretches). Runs scored by another
    /// version or model file are another entry: a score is never taken for a number it is not.
    public struct ScorerStatistics: Codable, Sendable, Equatable {
        /// The name `--scorer` gave, and how the program names itself, its version and model
        /// (nil in an entry of runs it left unscored only).
        public var scorer: String
        public var reportedName: String?
        public var version: String?
        public var modelSHA256: String?
        /// Runs of the mode it left unscored (it failed, or the run had no stretch long enough):
        /// not counted in the statistics, and said — in the scorer's first entry of the mode
        /// only (a failed run has no version to file it under).
        public var unscoredRuns: Int
        public var scores: [Score]

        /// One score in one talk type.
        public struct Score: Codable, Sendable, Equatable {
            /// `st`, `nst` or `dt`.
            public var talkType: String
            public var name: String
            public var higherIsBetter: Bool
            public var minimum: Double
            public var maximum: Double
            /// Over the runs that have the score; `p10` is the value a tenth of them do worse than
            /// (the 90th percentile where lower is better).
            public var statistics: Statistics

            enum CodingKeys: String, CodingKey {
                case talkType = "talk_type", name = "score", higherIsBetter = "higher_is_better", minimum = "min", maximum = "max"
                case statistics
            }
        }

        public init(scorer: String, reportedName: String? = nil, version: String? = nil, modelSHA256: String? = nil,
                    unscoredRuns: Int, scores: [Score]) {
            self.scorer = scorer
            self.reportedName = reportedName
            self.version = version
            self.modelSHA256 = modelSHA256
            self.unscoredRuns = unscoredRuns
            self.scores = scores
        }

        enum CodingKeys: String, CodingKey {
            case scorer, reportedName = "reported_name", version, modelSHA256 = "model_sha256", unscoredRuns = "unscored_runs", scores
        }

        /// The scorer as it identified itself: one identity's figures are one scorer's.
        public struct Identity: Hashable, Sendable {
            public var scorer: String
            public var reportedName, version, modelSHA256: String?
        }

        public var identity: Identity { Identity(scorer: scorer, reportedName: reportedName, version: version, modelSHA256: modelSHA256) }

        /// What tells apart the identities one scorer answered as (AECMOS' 16 and 48 kHz models on
        /// a corpus of both rates, two versions in a merge): the name each reported where those
        /// differ, then the version, then the model file's SHA-256 (12 digits), as many as make
        /// every label differ. Empty where the scorer has one identity; pass one scorer's only.
        public static func labels(telling identities: [Identity]) -> [Identity: String] {
            let distinct = Array(Set(identities))
            guard distinct.count > 1 else { return [:] }
            let parts: [(Identity) -> String] = [
                { $0.reportedName ?? $0.scorer }, { $0.version ?? "unversioned" }, { $0.modelSHA256.map { "model \($0.prefix(12))" } ?? "no model" },
            ]
            func label(_ identity: Identity, _ chosen: [Int]) -> String { chosen.map { parts[$0](identity) }.joined(separator: " ") }
            var chosen: [Int] = []
            for index in parts.indices where Set(distinct.map(parts[index])).count > 1 {
                chosen.append(index)
                if Set(distinct.map { label($0, chosen) }).count == distinct.count { break }
            }
            return Dictionary(uniqueKeysWithValues: distinct.map { ($0, label($0, chosen)) })
        }
    }

    /// The mode as eval.json names it (`speex:intensityRecommended`).
    public var mode: String
    public var ran: Int
    public var failed: Int
    /// Items where no other mode beats this one on both steady ERLE and near-end attenuation in
    /// double talk (`BestModes`; equal points count for each).
    public var wins: Int
    public var erleSteadyDB: Statistics
    public var erleDB: Statistics
    public var convergenceSeconds: Statistics
    public var nearEndAttenuationDB: Statistics
    public var nearEndDistortionDB: Statistics
    /// Runs whose near end was lost entirely in double talk: their attenuation counts at its
    /// bound (the worst case, not a missing value), and they have no distortion to measure — so
    /// `nearEndDistortionDB` leaves them out, and says how many here.
    public var nearEndLostRuns = 0
    /// The tap-free near-end estimate's output drop (`NearEndEstimate`) of the runs without a
    /// near-end track (recordings), the near-end axis where there is no attenuation; nil (and not
    /// in eval.json) where no run has one.
    public var nearEndEstimateDropDB: Statistics? = nil
    /// Of those runs, the ones whose estimate says the near end was lost (`NearEndEstimate.isLost`:
    /// half its frames or more 20 dB under the talker), in eval.json beside the statistics: a
    /// half-duplex canceller's runs read "14.8 est. (lost)" on their cells and a plain 14.8 dB here.
    public var nearEndEstimateLostRuns: Int? = nil
    /// TCLw (`WeightedEchoLoss`) and the send attenuation range in double talk (`DoubleTalkReport`).
    public var tclwDB: Statistics
    public var doubleTalkAttenuationRangeDB: Statistics
    /// Each scorer's scores per talk type (nil: no run of the corpus was scored; eval.json then
    /// has no `scores` key).
    public var scores: [ScorerStatistics]? = nil

    public init(mode: String, ran: Int, failed: Int, wins: Int, erleSteadyDB: Statistics, erleDB: Statistics,
                convergenceSeconds: Statistics, nearEndAttenuationDB: Statistics, nearEndDistortionDB: Statistics,
                tclwDB: Statistics = Statistics([]), doubleTalkAttenuationRangeDB: Statistics = Statistics([])) {
        self.tclwDB = tclwDB
        self.doubleTalkAttenuationRangeDB = doubleTalkAttenuationRangeDB
        self.mode = mode
        self.ran = ran
        self.failed = failed
        self.wins = wins
        self.erleSteadyDB = erleSteadyDB
        self.erleDB = erleDB
        self.convergenceSeconds = convergenceSeconds
        self.nearEndAttenuationDB = nearEndAttenuationDB
        self.nearEndDistortionDB = nearEndDistortionDB
    }

    enum CodingKeys: String, CodingKey {
        case mode, ran, failed, wins
        case erleSteadyDB = "erle_steady_db", erleDB = "erle_db", convergenceSeconds = "convergence_s"
        case nearEndAttenuationDB = "near_end_attenuation_db", nearEndDistortionDB = "near_end_distortion_db"
        case nearEndLostRuns = "near_end_lost", nearEndEstimateDropDB = "near_end_estimate_output_drop_db"
        case nearEndEstimateLostRuns = "near_end_estimate_lost"
        case tclwDB = "tclw_db", doubleTalkAttenuationRangeDB = "double_talk_attenuation_range_db"
        case scores
    }
}

extension ModeSummary {
    /// As synthesised, but `scores` and the near-end estimate's statistics only where there are any: eval.json without scorers keeps the
    /// bytes it had (every other nil is written as null, as the encoder does).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mode, forKey: .mode)
        try container.encode(ran, forKey: .ran)
        try container.encode(failed, forKey: .failed)
        try container.encode(wins, forKey: .wins)
        try container.encode(erleSteadyDB, forKey: .erleSteadyDB)
        try container.encode(erleDB, forKey: .erleDB)
        try container.encode(convergenceSeconds, forKey: .convergenceSeconds)
        try container.encode(nearEndAttenuationDB, forKey: .nearEndAttenuationDB)
        try container.encode(nearEndDistortionDB, forKey: .nearEndDistortionDB)
        try container.encode(nearEndLostRuns, forKey: .nearEndLostRuns)
        if let nearEndEstimateDropDB {
            try container.encode(nearEndEstimateDropDB, forKey: .nearEndEstimateDropDB)
            try container.encode(nearEndEstimateLostRuns ?? 0, forKey: .nearEndEstimateLostRuns)
        }
        try container.encode(tclwDB, forKey: .tclwDB)
        try container.encode(doubleTalkAttenuationRangeDB, forKey: .doubleTalkAttenuationRangeDB)
        if let scores { try container.encode(scores, forKey: .scores) }
    }
}

extension ModeSummary {
    /// P.340's category of a mode's double-talk attenuation range median, and whether that is
    /// only the best the mode can be in: a median over lower bounds is one, so its category is
    /// that or worse — except past 12 dB, where a bound is certainly category 3.
    public struct DoubleTalkRating: Sendable, Equatable {
        public var category: DoubleTalkCategory
        /// The median is over lower bounds and under category 3's range: the category is the
        /// best case, not determined.
        public var isBestCase: Bool

        public init(category: DoubleTalkCategory, isBestCase: Bool) {
            self.category = category
            self.isBestCase = isBestCase
        }
    }

    /// The category of `doubleTalkAttenuationRangeDB`'s median (nil without one). Judged here, from
    /// the statistics eval.json holds, so the pages only name it. Computed rather than stored:
    /// it cannot disagree with the median it rates, and eval.json's `mode_summary` is unchanged.
    public var doubleTalkRating: DoubleTalkRating? {
        doubleTalkAttenuationRangeDB.median.map { median in
            let category = DoubleTalkCategory(attenuationRangeDB: median)
            return DoubleTalkRating(category: category, isBestCase: doubleTalkAttenuationRangeDB.medianIsLowerBound && category != .noDuplex)
        }
    }
}
