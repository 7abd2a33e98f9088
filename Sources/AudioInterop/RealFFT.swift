internal import CFFTW
import Foundation


/// A real-input FFT of one size over fftw3f (single precision), planned once with FFTW_ESTIMATE
/// (deterministic plans, so results are bit-identical run to run). Owns its plans and aligned
/// buffers; spectra are handed over as separate real and imaginary arrays of `size/2 + 1` bins.
/// One instance is used by one thread at a time.
public final class RealFFT: @unchecked Sendable {
    public let size: Int
    public var binCount: Int { size / 2 + 1 }
    private let timeBuffer: UnsafeMutablePointer<Float>
    private let frequencyBuffer: UnsafeMutablePointer<fftwf_complex>
    private let forwardPlan: fftwf_plan
    private let inversePlan: fftwf_plan

    /// - Parameter portable: plan without SIMD codelets (`FFTW_NO_SIMD`), so the result is the same
    ///   bit for bit on every x86-64 CPU (AVX or not). Slower; for signals whose bytes are hashed.
    public init(size: Int, portable: Bool = false) {
        precondition(size >= 2 && size % 2 == 0, "FFT size must be even and at least 2")
        self.size = size
        let time = fftwf_alloc_real(size)!
        let frequency = fftwf_alloc_complex(size / 2 + 1)!
        timeBuffer = time
        frequencyBuffer = frequency
        let flags = UInt32(FFTW_ESTIMATE) | (portable ? UInt32(FFTW_NO_SIMD) : 0)
        // Executing a plan on its own buffers is safe from any thread; planning is not.
        (forwardPlan, inversePlan) = FFTWPlanner.withLock {
            (fftwf_plan_dft_r2c_1d(Int32(size), time, frequency, flags)!,
             fftwf_plan_dft_c2r_1d(Int32(size), frequency, time, flags)!)
        }
    }

    /// Plans transforms of these sizes and discards them. FFTW keeps what its planner solved, so a
    /// later `RealFFT` of one of these sizes gets the same plan at once (~0.3 ms for 40 960, ~6 ms
    /// to plan from nothing): run on a second thread while a caller prepares, it takes planning
    /// off the caller's way.
    public static func preparePlans(sizes: [Int]) {
        for size in sizes { _ = RealFFT(size: size) }
    }

    deinit {
        FFTWPlanner.withLock {
            fftwf_destroy_plan(forwardPlan)
            fftwf_destroy_plan(inversePlan)
        }
        fftwf_free(timeBuffer)
        fftwf_free(frequencyBuffer)
    }

    /// Forward transform of `input[offset..<offset+size]`, optionally multiplied by `window`
    /// (length `size`) on the way in.
    public func forward(_ input: [Float], offset: Int = 0, window: [Float]? = nil,
                        real: inout [Float], imaginary: inout [Float]) {
        loadTime(input, offset: offset, window: window)
        fftwf_execute(forwardPlan)
        let bins = binCount
        frequencyBuffer.withMemoryRebound(to: Float.self, capacity: 2 * bins) { spectrum in
            for k in 0..<bins {
                real[k] = spectrum[2 * k]
                imaginary[k] = spectrum[2 * k + 1]
            }
        }
    }

    /// |X[k]|² of the (windowed) frame at `input[offset...]`, into `power[0..<binCount]`.
    public func powerSpectrum(_ input: [Float], offset: Int = 0, window: [Float]? = nil, into power: inout [Float]) {
        loadTime(input, offset: offset, window: window)
        fftwf_execute(forwardPlan)
        let bins = binCount
        frequencyBuffer.withMemoryRebound(to: Float.self, capacity: 2 * bins) { spectrum in
            for k in 0..<bins {
                let re = spectrum[2 * k], im = spectrum[2 * k + 1]
                power[k] = re * re + im * im
            }
        }
    }

    /// Inverse transform (unnormalised, as FFTW: forward then inverse multiplies by `size`).
    public func inverse(real: [Float], imaginary: [Float], output: inout [Float], offset: Int = 0) {
        let bins = binCount
        frequencyBuffer.withMemoryRebound(to: Float.self, capacity: 2 * bins) { spectrum in
            for k in 0..<bins {
                spectrum[2 * k] = real[k]
                spectrum[2 * k + 1] = imaginary[k]
            }
        }
        fftwf_execute(inversePlan)
        for i in 0..<size { output[offset + i] = timeBuffer[i] }
    }

    private func loadTime(_ input: [Float], offset: Int, window: [Float]?) {
        precondition(offset >= 0 && offset + size <= input.count, "FFT frame out of range")
        input.withUnsafeBufferPointer { source in
            let start = source.baseAddress! + offset
            if let window {
                precondition(window.count >= size, "window shorter than the FFT")
                window.withUnsafeBufferPointer { w in
                    let weights = w.baseAddress!
                    for i in 0..<size { timeBuffer[i] = start[i] * weights[i] }
                }
            } else {
                timeBuffer.update(from: start, count: size)
            }
        }
    }
}
