internal import CSampleRate
import AudioCore

/// libsamplerate's converters, best first.
public enum ResamplerQuality: String, Sendable, CaseIterable {
    case best, medium, fastest, zeroOrderHold, linear

    var converterType: Int32 {
        switch self {
        case .best: Int32(SRC_SINC_BEST_QUALITY)
        case .medium: Int32(SRC_SINC_MEDIUM_QUALITY)
        case .fastest: Int32(SRC_SINC_FASTEST)
        case .zeroOrderHold: Int32(SRC_ZERO_ORDER_HOLD)
        case .linear: Int32(SRC_LINEAR)
        }
    }
}

/// Streaming sample-rate converter over libsamplerate (`src_process`), mono or interleaved.
/// Owns its `SRC_STATE*`.
public final class Resampler {
    public let inputRate: Int
    public let outputRate: Int
    public let channelCount: Int
    public let quality: ResamplerQuality
    private let state: OpaquePointer
    private let ratio: Double

    /// `clockRatio` scales the conversion ratio: a device whose clock runs fast by N ppm against
    /// the virtual clock produces `outputRate × (1 + N·10⁻⁶)` samples per virtual second.
    public init(inputRate: Int, outputRate: Int, channelCount: Int = 1, quality: ResamplerQuality = .best,
                clockRatio: Double = 1) throws {
        guard inputRate > 0, outputRate > 0, clockRatio > 0 else { throw AudioIOError.resampler(reason: "rates must be positive") }
        ratio = Double(outputRate) / Double(inputRate) * clockRatio
        guard src_is_valid_ratio(ratio) != 0 else {
            throw AudioIOError.resampler(reason: "ratio \(outputRate)/\(inputRate) is outside libsamplerate's range")
        }
        var error: Int32 = 0
        guard let state = src_new(quality.converterType, Int32(channelCount), &error) else {
            throw AudioIOError.resampler(reason: String(cString: src_strerror(error)))
        }
        self.state = state
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channelCount = channelCount
        self.quality = quality
    }

    deinit { src_delete(state) }

    /// Converts up to `inputFrames` frames from `input[inputOffset...]` into at most
    /// `outputCapacity` frames at `output[outputOffset...]`. Returns frames consumed and produced.
    /// Pass `endOfInput` once the source is exhausted to flush the filter's tail.
    public func process(_ input: [Float], inputOffset: Int = 0, inputFrames: Int,
                        into output: inout [Float], outputOffset: Int = 0, outputCapacity: Int,
                        endOfInput: Bool = false) throws -> (consumed: Int, produced: Int) {
        precondition(inputOffset + inputFrames * channelCount <= input.count)
        precondition(outputOffset + outputCapacity * channelCount <= output.count)
        var data = SRC_DATA()
        let result: Int32 = input.withUnsafeBufferPointer { inPointer in
            output.withUnsafeMutableBufferPointer { outPointer in
                data.data_in = inPointer.baseAddress.map { $0 + inputOffset }
                data.input_frames = inputFrames
                data.data_out = outPointer.baseAddress! + outputOffset
                data.output_frames = outputCapacity
                data.end_of_input = endOfInput ? 1 : 0
                data.src_ratio = ratio
                return src_process(state, &data)
            }
        }
        guard result == 0 else { throw AudioIOError.resampler(reason: String(cString: src_strerror(result))) }
        return (Int(data.input_frames_used), Int(data.output_frames_gen))
    }

    public func reset() { src_reset(state) }

    /// Converts all `count` frames from `input[offset...]`, handing each piece of output to
    /// `emit(scratch, frames)` as it comes (`scratch` is reused: read it inside `emit`).
    public func convert(_ input: [Float], from offset: Int = 0, count: Int, scratch: inout [Float],
                        emit: (_ output: [Float], _ frames: Int) throws -> Void) throws {
        var consumed = 0
        while consumed < count {
            let (used, produced) = try process(input, inputOffset: offset + consumed, inputFrames: count - consumed,
                                               into: &scratch, outputCapacity: scratch.count / channelCount)
            try emit(scratch, produced)
            consumed += used
            if used == 0 && produced == 0 { break }
        }
    }
}
