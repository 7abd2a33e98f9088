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
        /// How many of those values were lower bounds: with any, the statistics are lower bounds too.
        public var lowerBounds: Int
        /// Runs whose value stood on too few frames and was left out.
        public var lowConfidence: Int

        /// Mean, median and 10th percentile (linear interpolation between the closest ranks).
        public init(_ values: [Double], lowerBounds: Int = 0, lowConfidence: Int = 0) {
            self.lowerBounds = lowerBounds
            self.lowConfidence = lowConfidence
            count = values.count
            guard !values.isEmpty else { return }
            mean = values.reduce(0, +) / Double(values.count)
            median = Self.percentile(values, 50)
            p10 = Self.percentile(values, 10)
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
    /// TCLw (`WeightedEchoLoss`) and the send attenuation range in double talk (`DoubleTalkReport`).
    public var tclwDB: Statistics
    public var doubleTalkAttenuationRangeDB: Statistics

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
        case tclwDB = "tclw_db", doubleTalkAttenuationRangeDB = "double_talk_attenuation_range_db"
    }
}
