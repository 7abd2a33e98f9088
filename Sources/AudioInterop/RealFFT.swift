internal import CFFTW
import Foundation

/// A real-input FFT of one size over fftw3f (single precision), planned with FFTW_ESTIMATE
/// (deterministic plans, so results are bit-identical run to run). Owns its plans and aligned
/// buffers; spectra are handed over as separate real and imaginary arrays of `size/2 + 1` bins.
/// One instance is used by one thread at a time.
///
/// Each direction is planned by its first use, not by `init` (FFTW takes ~3 ms a direction for
/// the metrics' sizes): the band meter, which only goes forward, never plans an inverse.
public final class RealFFT: @unchecked Sendable {
    public let size: Int
    public var binCount: Int { size / 2 + 1 }
    private let timeBuffer: UnsafeMutablePointer<Float>
    private let frequencyBuffer: UnsafeMutablePointer<fftwf_complex>
    private let flags: UInt32
    /// Made by the first transform in their direction (or `prepare`).
    private var forwardPlan: fftwf_plan?
    private var inversePlan: fftwf_plan?

    /// - Parameter portable: plan without SIMD codelets (`FFTW_NO_SIMD`), so the result is the same
    ///   bit for bit on every x86-64 CPU (AVX or not). Slower; for signals whose bytes are hashed.
    public init(size: Int, portable: Bool = false) {
        precondition(size >= 2 && size % 2 == 0, "FFT size must be even and at least 2")
        self.size = size
        timeBuffer = fftwf_alloc_real(size)!
        frequencyBuffer = fftwf_alloc_complex(size / 2 + 1)!
        flags = UInt32(FFTW_ESTIMATE) | (portable ? UInt32(FFTW_NO_SIMD) : 0)
    }

    public enum Direction: Sendable {
        case forward, inverse
    }

    /// Plans the transform in `direction` now, if it is not planned yet.
    public func prepare(_ direction: Direction) {
        guard !isPlanned(direction) else { return }
        let inverse = direction == .inverse
        let (time, frequency, size, flags) = (timeBuffer, frequencyBuffer, self.size, self.flags)
        // Executing a plan on its own buffers is safe from any thread; planning is not. An
        // FFTW_ESTIMATE planner leaves the buffers alone, but they are loaded after it anyway.
        let plan = FFTWPlanner.withLock {
            inverse ? fftwf_plan_dft_c2r_1d(Int32(size), frequency, time, flags)!
                    : fftwf_plan_dft_r2c_1d(Int32(size), time, frequency, flags)!
        }
        if inverse { inversePlan = plan } else { forwardPlan = plan }
    }

    /// Whether the transform in `direction` is planned yet (`prepare` asks it; so do the tests).
    func isPlanned(_ direction: Direction) -> Bool {
        direction == .inverse ? inversePlan != nil : forwardPlan != nil
    }

    deinit {
        FFTWPlanner.withLock {
            if let forwardPlan { fftwf_destroy_plan(forwardPlan) }
            if let inversePlan { fftwf_destroy_plan(inversePlan) }
        }
        fftwf_free(timeBuffer)
        fftwf_free(frequencyBuffer)
    }

    /// Forward transform of `input[offset..<offset+size]`, optionally multiplied by `window`
    /// (length `size`) on the way in.
    public func forward(_ input: [Float], offset: Int = 0, window: [Float]? = nil,
                        real: inout [Float], imaginary: inout [Float]) {
        prepare(.forward)
        loadTime(input, offset: offset, window: window)
        fftwf_execute(forwardPlan!)
        let bins = binCount
        precondition(real.count >= bins && imaginary.count >= bins, "spectrum arrays shorter than the FFT's bins")
        // Through buffer pointers (this is the C-wrapper layer): element by element through the
        // arrays, each write checked the array's uniqueness, several times a frame per transform.
        frequencyBuffer.withMemoryRebound(to: Float.self, capacity: 2 * bins) { spectrum in
            real.withUnsafeMutableBufferPointer { re in
                imaginary.withUnsafeMutableBufferPointer { im in
                    for k in 0..<bins {
                        re[k] = spectrum[2 * k]
                        im[k] = spectrum[2 * k + 1]
                    }
                }
            }
        }
    }

    /// |X[k]|² of the (windowed) frame at `input[offset...]`, into `power[0..<binCount]`.
    public func powerSpectrum(_ input: [Float], offset: Int = 0, window: [Float]? = nil, into power: inout [Float]) {
        prepare(.forward)
        loadTime(input, offset: offset, window: window)
        fftwf_execute(forwardPlan!)
        let bins = binCount
        precondition(power.count >= bins, "power array shorter than the FFT's bins")
        frequencyBuffer.withMemoryRebound(to: Float.self, capacity: 2 * bins) { spectrum in
            power.withUnsafeMutableBufferPointer { power in
                for k in 0..<bins {
                    let re = spectrum[2 * k], im = spectrum[2 * k + 1]
                    power[k] = re * re + im * im
                }
            }
        }
    }

    /// Inverse transform (unnormalised, as FFTW: forward then inverse multiplies by `size`).
    public func inverse(real: [Float], imaginary: [Float], output: inout [Float], offset: Int = 0) {
        prepare(.inverse)
        let bins = binCount
        precondition(real.count >= bins && imaginary.count >= bins, "spectrum arrays shorter than the FFT's bins")
        precondition(offset >= 0 && offset + size <= output.count, "inverse FFT output out of range")
        frequencyBuffer.withMemoryRebound(to: Float.self, capacity: 2 * bins) { spectrum in
            real.withUnsafeBufferPointer { re in
                imaginary.withUnsafeBufferPointer { im in
                    for k in 0..<bins {
                        spectrum[2 * k] = re[k]
                        spectrum[2 * k + 1] = im[k]
                    }
                }
            }
        }
        fftwf_execute(inversePlan!)
        output.withUnsafeMutableBufferPointer { out in
            (out.baseAddress! + offset).update(from: timeBuffer, count: size)
        }
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
