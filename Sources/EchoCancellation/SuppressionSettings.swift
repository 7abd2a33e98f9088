/// How hard residual echo is suppressed after the linear filter: PlanetKit's intensities as
/// suppression targets. The linear filter is the same for every intensity; only what happens to
/// the echo it leaves differs.
public struct SuppressionSettings: Hashable, Sendable {
    /// Floor of a bin's gain (dB, negative) where echo dominates while only the far end talks.
    public var farEndFloorDB: Float
    /// Floor of a bin's gain (dB, negative) where echo dominates while the near end talks.
    public var doubleTalkFloorDB: Float
    /// How many times the estimated residual echo is taken off a bin's power while only the far
    /// end talks (above 1: the estimate is allowed to be short).
    public var farEndOverestimate: Float
    /// The same while the near end talks (0: nothing taken off, the talker kept whole; the
    /// linear filter's residual, some 20–30 dB under the echo, stays under the talker — taking
    /// it off by a Wiener gain cost the talker more than it saved: PESQ-WB 1.9 against 2.4).
    public var doubleTalkOverestimate: Float
    /// While only the far end talks, take every bin down to the noise floor (comfort noise
    /// replaces it), not only the bins the residual estimate explains.
    public var gatesFarEndSingleTalk: Bool

    public init(farEndFloorDB: Float, doubleTalkFloorDB: Float, farEndOverestimate: Float, doubleTalkOverestimate: Float,
                gatesFarEndSingleTalk: Bool) {
        self.farEndFloorDB = farEndFloorDB
        self.doubleTalkFloorDB = doubleTalkFloorDB
        self.farEndOverestimate = farEndOverestimate
        self.doubleTalkOverestimate = doubleTalkOverestimate
        self.gatesFarEndSingleTalk = gatesFarEndSingleTalk
    }

    /// Light: a headset or a handset whose echo the linear filter already removes.
    public static let light = SuppressionSettings(farEndFloorDB: -20, doubleTalkFloorDB: -6, farEndOverestimate: 1.5,
                                                  doubleTalkOverestimate: 0, gatesFarEndSingleTalk: false)
    /// The default: echo gone in far-end single talk, the near talker untouched in double talk.
    public static let recommended = SuppressionSettings(farEndFloorDB: -40, doubleTalkFloorDB: -10, farEndOverestimate: 2,
                                                        doubleTalkOverestimate: 0, gatesFarEndSingleTalk: true)
    /// A loud speakerphone: more off in both, the near talker ducked a little where echo is.
    public static let strong = SuppressionSettings(farEndFloorDB: -60, doubleTalkFloorDB: -20, farEndOverestimate: 3,
                                                   doubleTalkOverestimate: 1.5, gatesFarEndSingleTalk: true)
}
