internal import CFFTW
import Foundation
import Synchronization

/// Streaming FIR filtering by uniformly partitioned overlap-save convolution over fftw3f: blocks
/// and filter partitions of `blockSize` samples, FFTs of the next power of two ≥ `2 × blockSize`
/// (overlap-save needs N ≥ block + partition − 1; powers of two are FFTW's fastest sizes), a
/// frequency-domain delay line of the input spectra. A one-second room response costs two FFTs and `partitions × (blockSize + 1)` complex
/// multiply-adds per block instead of 48 000 multiply-adds per sample.
///
/// Planned with `FFTW_NO_SIMD`, so the output is bit-identical on every x86-64 CPU: what comes out
/// of the echo path is hashed in golden vectors. All storage is allocated in `init`.
public final class PartitionedConvolver {
    public let blockSize: Int
    public let partitions: Int
    private let fftSize: Int
    private let bins: Int
    private let time: UnsafeMutablePointer<Float>            // fftSize: older input, then the current block
    private let spectrum: UnsafeMutablePointer<fftwf_complex>
    // Split complex (all real parts, then all imaginary parts) so the multiply-add loop vectorises.
    private let filters: UnsafeMutablePointer<Float>         // partitions × (re[bins], im[bins])
    private let history: UnsafeMutablePointer<Float>         // partitions × (re[bins], im[bins])
    private let accumulator: UnsafeMutablePointer<Float>     // re[bins], im[bins]
    private let window: UnsafeMutablePointer<Float>          // the input history the FFT sees
    private let forwardPlan: fftwf_plan
    private let inversePlan: fftwf_plan
    private var newest = 0

    public init(impulseResponse: [Float], blockSize: Int) {
        precondition(blockSize > 0 && !impulseResponse.isEmpty, "need a block size and a response")
        self.blockSize = blockSize
        var size = 2
        while size < 2 * blockSize { size *= 2 }
        fftSize = size
        bins = size / 2 + 1
        partitions = (impulseResponse.count + blockSize - 1) / blockSize
        let time = fftwf_alloc_real(size)!
        let spectrum = fftwf_alloc_complex(size / 2 + 1)!
        self.time = time
        self.spectrum = spectrum
        filters = .allocate(capacity: partitions * bins * 2)
        history = .allocate(capacity: partitions * bins * 2)
        accumulator = .allocate(capacity: bins * 2)
        window = .allocate(capacity: size)
        window.initialize(repeating: 0, count: size)
        history.initialize(repeating: 0, count: partitions * bins * 2)
        accumulator.initialize(repeating: 0, count: bins * 2)
        time.initialize(repeating: 0, count: fftSize)
        let flags = UInt32(FFTW_ESTIMATE) | UInt32(FFTW_NO_SIMD)
        (forwardPlan, inversePlan) = FFTWPlanner.withLock {
            (fftwf_plan_dft_r2c_1d(Int32(size), time, spectrum, flags)!,
             fftwf_plan_dft_c2r_1d(Int32(size), spectrum, time, flags)!)
        }
        // Each partition's spectrum, scaled by 1/fftSize so the inverse needs no extra pass.
        let scale = 1 / Float(fftSize)
        for p in 0..<partitions {
            for i in 0..<fftSize {
                let index = p * blockSize + i
                time[i] = i < blockSize && index < impulseResponse.count ? impulseResponse[index] * scale : 0
            }
            fftwf_execute(forwardPlan)
            split(into: filters + p * bins * 2)
        }
        time.update(repeating: 0, count: fftSize)
    }

    deinit {
        FFTWPlanner.withLock {
            fftwf_destroy_plan(forwardPlan)
            fftwf_destroy_plan(inversePlan)
        }
        fftwf_free(time)
        fftwf_free(spectrum)
        filters.deallocate()
        history.deallocate()
        accumulator.deallocate()
        window.deallocate()
    }

    /// FFTW's interleaved spectrum → split real/imaginary halves at `destination`.
    private func split(into destination: UnsafeMutablePointer<Float>) {
        let raw = UnsafeMutableRawPointer(spectrum).assumingMemoryBound(to: Float.self)
        for k in 0..<bins {
            destination[k] = raw[2 * k]
            destination[bins + k] = raw[2 * k + 1]
        }
    }

    /// Filters one block: `input[0..<blockSize]` in, `output[0..<blockSize]` out.
    public func process(_ input: [Float], into output: inout [Float]) {
        precondition(input.count >= blockSize && output.count >= blockSize)
        let n = blockSize, keep = fftSize - blockSize
        // Slide the window: keep the newest `fftSize − blockSize` samples, append the new block.
        window.update(from: window + n, count: keep)
        input.withUnsafeBufferPointer { (window + keep).update(from: $0.baseAddress!, count: n) }
        time.update(from: window, count: fftSize)
        fftwf_execute(forwardPlan)
        newest = (newest + partitions - 1) % partitions
        split(into: history + newest * bins * 2)
        accumulator.update(repeating: 0, count: bins * 2)
        let accumulatorReal = accumulator, accumulatorImaginary = accumulator + bins
        for p in 0..<partitions {
            let xr = history + ((newest + p) % partitions) * bins * 2   // input p blocks old
            let xi = xr + bins
            let hr = filters + p * bins * 2, hi = hr + bins
            for k in 0..<bins {
                accumulatorReal[k] += xr[k] * hr[k] - xi[k] * hi[k]
                accumulatorImaginary[k] += xr[k] * hi[k] + xi[k] * hr[k]
            }
        }
        let raw = UnsafeMutableRawPointer(spectrum).assumingMemoryBound(to: Float.self)
        for k in 0..<bins {
            raw[2 * k] = accumulatorReal[k]
            raw[2 * k + 1] = accumulatorImaginary[k]
        }
        fftwf_execute(inversePlan)
        // Overlap-save: the last block of the circular result is the linear convolution.
        output.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: time + keep, count: n) }
    }
}

/// FFTW's planner is not thread-safe: every plan creation and destruction goes through this lock.
/// The lock guards no Swift value (the planner's state is FFTW's own), hence `Mutex<Void>`.
enum FFTWPlanner {
    private static let lock = Mutex(())

    static func withLock<T>(_ body: () -> T) -> T {
        lock.withLock { _ in body() }
    }
}
