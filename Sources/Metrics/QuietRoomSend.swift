/// What the send path did with the room's own sound where neither side talked: the gate's frames
/// of silence (no far end at the mic, no near talker) whose room sound — the mic without its echo:
/// the near-end track where it holds the noise, else mic − echo — stands 30 dB or more over
/// digital silence and is not outweighed by an echo's tail. A canceller sends that sound on (a
/// noise suppressor takes 10–25 dB off it); a mute sends silence, or a floor far under it.
///
/// ERLE cannot tell a mute from a perfect canceller (both read the floor's bound), and
/// `silent-send-in-single-talk` asks for digital silence in every far-end single-talk frame, the
/// first ones included: a plugin that passed the mic for its first half-second and then sent zeros,
/// or one that sent −100 dBFS of noise throughout, won every item without double talk. Here the
/// send path mutes the room where, over the last half of such frames (20 at least), 90 % or more
/// were sent 30 dB or more under the room's sound — the steady half, as steady ERLE is. A room
/// without noise, or a recording without tracks, has no such frames: nothing is judged.
///
/// Which frames are muted is kept per bucket of consecutive frames, 64 buckets at most: when they
/// fill, neighbours merge and buckets hold twice as many, so a day-long call takes no more memory
/// than a minute's and a frame allocates nothing. The last half is read to the bucket.
struct QuietRoomSend: Sendable {
    /// An output this far under the room's sound (30 dB) cut it rather than passed it.
    static let mutedUnderRoom = 1e-3
    /// The share of the last half's frames that must be muted.
    static let mutedShare = 0.9

    private static let bucketCapacity = 64
    private var frames: [Int]
    private var muted: [Int]
    private var bucketSize = 1
    private var filled = 0
    /// Frames judged: the room's sound stood over `floor`.
    private(set) var count = 0

    init() {
        frames = [Int](repeating: 0, count: Self.bucketCapacity)
        muted = frames
    }

    /// A frame where neither side talked: the room's sound (`roomPower`) and the output
    /// (`sentPower`) over it, whole band, and `floor`: the least room sound a mute can be told by
    /// (30 dB over digital silence).
    mutating func add(roomPower: Double, sentPower: Double, floor: Double) {
        guard roomPower >= floor else { return }
        if frames[filled] == bucketSize {
            filled += 1
            if filled == Self.bucketCapacity { mergeNeighbours() }
        }
        frames[filled] += 1
        if sentPower <= Self.mutedUnderRoom * roomPower { muted[filled] += 1 }
        count += 1
    }

    private mutating func mergeNeighbours() {
        for pair in 0..<(Self.bucketCapacity / 2) {
            frames[pair] = frames[2 * pair] + frames[2 * pair + 1]
            muted[pair] = muted[2 * pair] + muted[2 * pair + 1]
        }
        for index in (Self.bucketCapacity / 2)..<Self.bucketCapacity {
            frames[index] = 0
            muted[index] = 0
        }
        filled = Self.bucketCapacity / 2
        bucketSize *= 2
    }

    /// The last half of the frames, to the bucket: how many, and how many of them were muted.
    var lastHalf: (frames: Int, muted: Int) {
        var taken = 0, mutedTaken = 0
        var index = filled
        while index >= 0, 2 * taken < count {
            taken += frames[index]
            mutedTaken += muted[index]
            index -= 1
        }
        return (taken, mutedTaken)
    }

    /// The last half's frames where the send path muted the room (see the type's notes); nil where
    /// it did not, or on fewer than `minimumFrames`.
    func mutedRoom(minimumFrames: Int) -> EchoMetrics.MutedQuietRoom? {
        let half = lastHalf
        guard half.frames >= minimumFrames, Double(half.muted) >= Self.mutedShare * Double(half.frames) else { return nil }
        return EchoMetrics.MutedQuietRoom(frames: half.frames, muted: half.muted)
    }
}
