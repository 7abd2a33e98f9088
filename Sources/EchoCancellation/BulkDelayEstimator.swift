import AudioInterop

/// Where the echo starts, up to `maxDelayMilliseconds` after the render frame: phase-transform
/// weighted cross-correlation (GCC-PHAT) of the mic with the reference, both decimated to about
/// 4 kHz, the cross-spectrum averaged over the seconds the far end talks. Routes and Bluetooth
/// put the echo hundreds of milliseconds late, beyond any filter's window; the estimate moves
/// the window, the filters model what is inside it.
struct BulkDelayEstimator {
    let maxDelayFrames: Int
    /// The delay (whole frames) once two estimates in a row agreed on it; nil before.
    private(set) var estimateFrames: Int?

    private let frameSize: Int
    private let factor: Int
    /// Decimated samples: the mic's last `window`, the render's last `window + maxLag`.
    private let window: Int
    private let maxLag: Int
    private var mic: DecimatedHistory, render: DecimatedHistory
    private var framesSinceEstimate = 0
    private let interval: Int
    private let fft: RealFFT
    private var time: [Float]
    private var micRe: [Float], micIm: [Float], renderRe: [Float], renderIm: [Float]
    private var crossRe: [Float], crossIm: [Float]
    private var candidate: Int?

    init(sampleRate: Int, frameSize: Int, maxDelayMilliseconds: Int) {
        self.frameSize = frameSize
        factor = max(1, sampleRate / 4000)
        let rate = sampleRate / factor
        maxLag = max(1, maxDelayMilliseconds * rate / 1000)
        window = 2048
        maxDelayFrames = (maxDelayMilliseconds * sampleRate / 1000 + frameSize - 1) / frameSize
        interval = max(1, (100 * sampleRate / 1000) / frameSize)   // every 100 ms
        var size = 1
        while size < 2 * window + maxLag { size *= 2 }
        fft = RealFFT(size: size, portable: true)
        fft.prepare(.forward)
        fft.prepare(.inverse)
        mic = DecimatedHistory(count: window, factor: factor)
        render = DecimatedHistory(count: window + maxLag, factor: factor)
        time = [Float](repeating: 0, count: size)
        micRe = [Float](repeating: 0, count: size / 2 + 1)
        micIm = [Float](repeating: 0, count: micRe.count)
        renderRe = [Float](repeating: 0, count: micRe.count)
        renderIm = [Float](repeating: 0, count: micRe.count)
        crossRe = [Float](repeating: 0, count: micRe.count)
        crossIm = [Float](repeating: 0, count: micRe.count)
    }

    mutating func addRender(_ frame: [Float]) {
        render.add(frame, count: frameSize)
    }

    mutating func addCapture(_ frame: [Float]) {
        mic.add(frame, count: frameSize)
        framesSinceEstimate += 1
        if framesSinceEstimate >= interval {
            framesSinceEstimate = 0
            estimate()
        }
    }

    private mutating func estimate() {
        var renderPower: Float = 0, micPower: Float = 0
        for value in render.samples { renderPower += value * value }
        for value in mic.samples { micPower += value * value }
        // The far end must talk (above −60 dBFS) and the mic hear something.
        guard renderPower > 1e-6 * Float(render.samples.count), micPower > 1e-9 * Float(mic.samples.count) else { return }
        let size = fft.size
        for i in 0..<size { time[i] = i < window ? mic.oldestFirst(i) : 0 }
        fft.forward(time, real: &micRe, imaginary: &micIm)
        for i in 0..<size { time[i] = i < render.samples.count ? render.oldestFirst(i) : 0 }
        fft.forward(time, real: &renderRe, imaginary: &renderIm)
        for k in 0..<micRe.count {
            // M · conj(R), each block weighted alike (phase transform of the block, then averaged).
            let re = micRe[k] * renderRe[k] + micIm[k] * renderIm[k]
            let im = micIm[k] * renderRe[k] - micRe[k] * renderIm[k]
            let magnitude = (re * re + im * im).squareRoot() + 1e-20
            crossRe[k] = 0.9 * crossRe[k] + 0.1 * re / magnitude
            crossIm[k] = 0.9 * crossIm[k] + 0.1 * im / magnitude
        }
        fft.inverse(real: crossRe, imaginary: crossIm, output: &time)
        // Mic sample i meets render sample i + maxLag − lag: lag sits at index size − maxLag + lag.
        var best = 0, peak: Float = -.infinity, sum: Float = 0
        for lag in 0...maxLag {
            let value = time[(size - maxLag + lag) % size]
            sum += abs(value)
            if value > peak { peak = value; best = lag }
        }
        let mean = sum / Float(maxLag + 1)
        guard peak > 8 * mean else { return }
        let frames = best * factor / frameSize
        if let candidate, abs(candidate - frames) <= 1 {
            estimateFrames = frames
        }
        candidate = frames
    }
}

/// A ring of a signal decimated by averaging `factor` samples (a crude low-pass, enough for a
/// delay to the nearest frame), the newest `count`.
struct DecimatedHistory {
    private(set) var samples: [Float]
    let factor: Int
    /// Where the next sample goes: the oldest.
    private var next = 0
    private var sum: Float = 0, summed = 0

    init(count: Int, factor: Int) {
        samples = [Float](repeating: 0, count: count)
        self.factor = factor
    }

    mutating func add(_ frame: [Float], count: Int) {
        for i in 0..<count {
            sum += frame[i]
            summed += 1
            if summed == factor {
                samples[next] = sum / Float(factor)
                next = next + 1 == samples.count ? 0 : next + 1
                sum = 0
                summed = 0
            }
        }
    }

    /// The `i`-th sample counted from the oldest.
    func oldestFirst(_ i: Int) -> Float { samples[(next + i) % samples.count] }
}
