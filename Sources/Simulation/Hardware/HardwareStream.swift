import AudioCore
import AudioInterop

/// One direction of the hardware I/O between the 48 kHz world of the engine (and the room,
/// simulated at the engine rate) and a device running at its granted rate and I/O buffer size.
///
/// Per engine tick, `process` takes one 10 ms block on the 48 kHz side and returns one:
/// 1. the device's converter samples the block at the device rate, on the device's own clock
///    (`clockDriftPPM`: it produces rate × (1 + ppm·10⁻⁶) samples per virtual second);
/// 2. every complete I/O buffer is one callback (the device calls back at the granted cadence:
///    a callback happens once its buffer is full, so a 256-frame buffer at 44.1 kHz calls back
///    every 5.8 ms of virtual time);
/// 3. the engine converts each callback's buffer to 48 kHz (at the nominal rate: it does not
///    know the device's clock is off) and rebuffers into 10 ms ticks. It starts reading once it
///    holds one tick, one I/O buffer and the converter's look-ahead — whole ticks of silence
///    before that are the latency this stream adds (`latencyFrames`). Short of a tick later (a
///    slow device clock) it outputs silence and primes again; past its capacity (a fast one) the
///    oldest samples are dropped — both counted.
///
/// Rates equal and no drift: no converter at all, only the rebuffering. All buffers are
/// allocated here; `process` allocates nothing.
final class HardwareStream {
    let format: HardwareFormat
    let engineRate: Int
    let tickFrames: Int
    let clockDriftPPM: Double
    private let toDevice: Resampler?
    private let fromDevice: Resampler?
    private var device: SampleFIFO
    private var engine: SampleFIFO
    private var deviceScratch: [Float]
    private var chunk: [Float]
    private var converted: [Float]
    /// Engine-side frames needed before the first read.
    let primeThreshold: Int

    /// The stream's counters and buffer levels after a tick: what a record replays.
    struct State: Sendable {
        var isPrimed = false
        /// Silence output while priming at the start (the stream's latency, engine frames).
        var latencyFrames: Int64 = 0
        var hasPrimedOnce = false
        var callbacks: Int64 = 0
        var framesIn: Int64 = 0
        var deviceFrames: Int64 = 0
        var framesOut: Int64 = 0
        var silentFrames: Int64 = 0
        var underruns = 0
        var bufferedDeviceFrames = 0
        var bufferedEngineFrames = 0
        var droppedFrames: Int64 = 0
    }
    private var state = State()
    /// The record this stream follows or makes (nil: no `HardwareStreamRecords` handed in, or a
    /// stream that converts nothing).
    private let replay: BlockReplay<State>?

    var isPrimed: Bool { state.isPrimed }
    var latencyFrames: Int64 { state.latencyFrames }
    var callbacks: Int64 { state.callbacks }
    var framesIn: Int64 { state.framesIn }
    var deviceFrames: Int64 { state.deviceFrames }
    var framesOut: Int64 { state.framesOut }
    var silentFrames: Int64 { state.silentFrames }
    var underruns: Int { state.underruns }

    /// The converter used both ways: libsamplerate's fastest sinc (97 dB SNR, 80 % of the band
    /// kept) — the hardware path runs every tick, and a 44.1 kHz device's band ends at 17.6 kHz.
    static let quality = ResamplerQuality.fastest

    /// `records`, `role`, `generation`, `expectedTicks`: where a corpus keeps what its calls'
    /// streams did (`HardwareStreamRecords`), which of its call's streams this is, and how many
    /// ticks to reserve a record for (nil: none is made). A stream without a converter is not
    /// recorded: rebuffering costs less than comparing.
    /// `alwaysConverts`: through the drift's resampler even at 0 ppm (`HardwareConfiguration.convertsCaptureOnOneClock`).
    init(format: HardwareFormat, engineRate: Int = 48_000, tickFrames: Int = 480, clockDriftPPM: Double = 0, alwaysConverts: Bool = false,
         records: HardwareStreamRecords? = nil, role: HardwareStreamRecords.Role = .output, generation: Int = 0,
         expectedTicks: Int? = nil) throws {
        self.format = format
        self.engineRate = engineRate
        self.tickFrames = tickFrames
        self.clockDriftPPM = clockDriftPPM
        let clock = 1 + clockDriftPPM / 1_000_000
        let converts = format.sampleRate != engineRate
        let drifts = clockDriftPPM != 0 || alwaysConverts
        toDevice = converts || drifts
            ? try Resampler(inputRate: engineRate, outputRate: format.sampleRate, quality: Self.quality, clockRatio: clock) : nil
        fromDevice = converts ? try Resampler(inputRate: format.sampleRate, outputRate: engineRate, quality: Self.quality) : nil
        let io = format.ioBufferFrames
        let perTick = Int((Double(tickFrames) * Double(format.sampleRate) / Double(engineRate) * clock).rounded(.up)) + 64
        deviceScratch = [Float](repeating: 0, count: perTick)
        device = SampleFIFO(capacity: perTick + 2 * io)
        chunk = [Float](repeating: 0, count: io)
        let ioAtEngineRate = (io * engineRate + format.sampleRate - 1) / format.sampleRate
        converted = [Float](repeating: 0, count: ioAtEngineRate + 64)
        primeThreshold = tickFrames + ioAtEngineRate + (converts || drifts ? 32 : 0)
        engine = SampleFIFO(capacity: primeThreshold + ioAtEngineRate + tickFrames)
        if let records, let expectedTicks, toDevice != nil || fromDevice != nil {
            let identity = HardwareStreamRecords.Identity(format: format, engineRate: engineRate, tickFrames: tickFrames,
                                                          clockDriftBits: clockDriftPPM.bitPattern, alwaysConverts: alwaysConverts, role: role, generation: generation)
            let capacity = records.accepts(ticks: expectedTicks, tickFrames: tickFrames) ? expectedTicks : 0
            replay = BlockReplay(following: records.record(for: identity), blockSize: tickFrames, capacityBlocks: capacity) {
                records.keep($0, for: identity)
            }
        } else {
            replay = nil
        }
    }

    /// Engine-side samples dropped because the stream ran over (a fast device clock).
    var droppedFrames: Int64 { state.droppedFrames }
    /// Samples held inside the stream (device buffer, engine buffer), for conservation checks.
    var bufferedDeviceFrames: Int { state.bufferedDeviceFrames }
    var bufferedEngineFrames: Int { state.bufferedEngineFrames }

    /// Passes one tick through the device: `block[0..<count]` in, `output[0..<count]` out —
    /// from the record while the input is the record's.
    func process(_ block: [Float], into output: inout [Float], count: Int) throws {
        guard let replay else { return try convert(block, into: &output, count: count) }
        if replay.follow(block, into: &output, count: count, state: &state) { return }
        if replay.hasLeftRecord {
            // The input differs from here: the stream takes in the input it skipped, as if it
            // had run all along, from its first state.
            state = State()
            try replay.catchUp { input, scratch in try convert(input, into: &scratch, count: tickFrames) }
        }
        try convert(block, into: &output, count: count)
        replay.note(block, output: output, count: count, state: state)
    }

    /// Hands what this stream computed to the records (at the call's end, or when a route
    /// change retires the stream).
    func finish() { replay?.finish() }

    private func convert(_ block: [Float], into output: inout [Float], count: Int) throws {
        defer {
            state.bufferedDeviceFrames = device.count
            state.bufferedEngineFrames = engine.count
            state.droppedFrames = engine.droppedSamples
        }
        state.framesIn += Int64(count)
        if let toDevice {
            var used = 0
            while used < count {
                let (consumed, produced) = try toDevice.process(block, inputOffset: used, inputFrames: count - used,
                                                                into: &deviceScratch, outputCapacity: deviceScratch.count)
                device.write(deviceScratch, count: produced)
                state.deviceFrames += Int64(produced)
                used += consumed
                if consumed == 0 && produced == 0 { break }
            }
        } else {
            device.write(block, count: count)
            state.deviceFrames += Int64(count)
        }
        let io = format.ioBufferFrames
        while device.count >= io {
            device.read(into: &chunk, count: io)
            state.callbacks += 1
            if let fromDevice {
                var used = 0
                while used < io {
                    let (consumed, produced) = try fromDevice.process(chunk, inputOffset: used, inputFrames: io - used,
                                                                      into: &converted, outputCapacity: converted.count)
                    engine.write(converted, count: produced)
                    used += consumed
                    if consumed == 0 && produced == 0 { break }
                }
            } else {
                engine.write(chunk, count: io)
            }
        }
        if !state.isPrimed {
            guard engine.count >= primeThreshold else {
                VectorMath.fill(&output, count: count)
                state.silentFrames += Int64(count)
                if !state.hasPrimedOnce { state.latencyFrames += Int64(count) }
                return
            }
            state.isPrimed = true
            state.hasPrimedOnce = true
        }
        guard engine.count >= count else {
            VectorMath.fill(&output, count: count)       // ran dry: silence, then prime again
            state.silentFrames += Int64(count)
            state.underruns += 1
            state.isPrimed = false
            return
        }
        engine.read(into: &output, count: count)
        state.framesOut += Int64(count)
    }
}
