import AudioCore
import AudioInterop
import Foundation

/// What the linear filter leaves, taken off per frequency bin: a short-time spectrum of the
/// error (√Hann windows, 50 % overlap, so the output is one frame late), a gain per bin from the
/// residual echo each bin is estimated to hold, and comfort noise where the gain takes power
/// away, so suppression is heard as the room's own noise rather than as gating.
///
/// The residual echo is the filter's echo estimate times a leak per band: the error's share of
/// the estimate's power, learned only while the estimate is coherent with the mic (the mic is
/// echo and noise, nothing else to learn it from), plus a decaying tail. The near-end detector
/// calls a frame near-end speech when the error holds six times what residual echo and noise
/// explain and is not coherent with the echo estimate (a filter that lost the path leaves an
/// error coherent with its estimate); it holds the call for 400 ms after (150 ms cut the next
/// syllable in a talker's pauses: PESQ-WB 1.9 against 2.4 on the development corpus). Twice
/// kept the suppressor transparent through the default corpus's far-end single talk, under its
/// low-level near end (speech-room-doubletalk: 7 dB steady ERLE against 20 with six times).
struct ResidualEchoSuppressor {
    let frameSize: Int
    let bins: Int
    var settings: SuppressionSettings
    /// Whether the last frame was judged to hold near-end speech.
    private(set) var nearEndActive = false
    /// Frames of near-end speech and of far-end single talk seen, for the canceller's report.
    private(set) var nearEndFrames = 0
    private(set) var farEndOnlyFrames = 0

    private let window: [Float]
    private var previousError: [Float], previousEcho: [Float], previousMic: [Float]
    private var micRe: [Float], micIm: [Float], echoMicRe: [Float], echoMicIm: [Float], smoothedMic: [Float]
    private(set) var echoMicCoherence: Float = 0
    /// The same with the reference itself, at the echo's delay: high while the mic is echo
    /// whether or not the linear filter has the path (drift, a path that jumped, the first
    /// seconds), low once a near talker adds what the reference cannot explain.
    private(set) var referenceMicCoherence: Float = 0
    private var referenceMicRe: [Float], referenceMicIm: [Float], smoothedReference: [Float]
    private var scratch: SpectralScratch
    private var errorRe: [Float], errorIm: [Float], echoRe: [Float], echoIm: [Float]
    private var errorPower: [Float], echoPower: [Float]
    /// Per band: regression of error power on echo-estimate power.
    private let bandOfBin: [Int]
    private let bandCount: Int
    private var bandError: [Float], bandEcho: [Float]
    private var leak: [Float]
    /// Per bin: residual echo estimate (with its reverberant tail), noise floor, smoothed
    /// cross-spectrum of echo estimate and error for coherence.
    private var residual: [Float]
    private var noiseFloor: [Float]
    private var smoothedPower: [Float]
    private var noiseMinimum: MinimumTracker
    private var roomNoise: [Float]
    private var roomNoiseMinimum: MinimumTracker
    /// The residual echo as the reference predicts it, for when the linear filter cannot
    /// (drift, a path it has lost, wideband echo it never modelled): the reference's power at the
    /// echo's delay with a reverberant tail, times the echo path's gain and the share of the mic
    /// the linear stage leaves, per band. Both are minimum statistics of the far-end frames in
    /// the last 1.5–1.75 s (`MinimumTracker`'s window; after a longer far-end pause both are
    /// unknown again, and the first 100 ms of the next talk spurt rest on the linear filter) —
    /// a near talker adds power to the mic and the error, never takes it away, so the least
    /// mic-to-reference and error-to-mic ratios are the echo's own.
    private var referenceTail: [Float]
    private var bandReference: [Float], bandMic: [Float]
    private var smoothedBandReference: [Float], smoothedBandMic: [Float], smoothedBandLinearError: [Float]
    private var bandRatio: [Float], bandIncluded: [Bool]
    /// Per band: the gain the reference's prediction allows (it caps each bin's).
    private var bandGain: [Float]
    private var pathGain: MinimumTracker, linearLeak: MinimumTracker
    private var referenceResidual: [Float]
    private var farEndRun = 0
    /// Far-end frames heard since the call started, up to `initialFrames`.
    private var farEndFramesHeard = 0
    /// The call's first 1.5 s of far-end activity are its initial state (AEC3 has one too): for
    /// the gains, the echo path's gain is taken as at least `initialGain` and the linear filter
    /// as leaving all of the echo. Without it nothing explains the echo while the filter and the
    /// path's gain are unlearned (the first minima of the mic-to-reference ratio sit far under
    /// the echo's): the detector takes the echo for a talker, and the call's first second of
    /// far-end speech goes out barely suppressed (AECMOS's far-end single-talk echo score falls
    /// well under 4.5; docs/canceller.md). What it costs: a talker in those 1.5 s is kept only
    /// when about 12 dB above the reference — a canceller that starts again under a talker cuts
    /// him by some 6 dB (AEC3 by 10). A gain taken above its first measurement cut less of him
    /// and left more echo where a route changes. The detector's own call, which the canceller's
    /// measures and step read, is left as it is: taken from the initial prediction, it let the
    /// measures learn an echo path's gain before a long (320 ms) echo had arrived.
    private static let initialFrames = 150
    /// 1: an echo as loud as the reference (0 dB ERL), a loudspeaker's.
    private static let initialGain: Float = 1
    private var isInitial: Bool { farEndFramesHeard < Self.initialFrames }
    /// Band `b`'s echo-path power gain in the initial state: the detector's, at least `initialGain`.
    private func initialPathGain(band b: Int) -> Float {
        max(pathGain.isKnown(b) ? 2 * pathGain.minimum[b] : 0, Self.initialGain)
    }
    /// `referenceResidual` and `echoShareOfMic` with the initial state's gain, and the talker
    /// the initial state hears (held as the detector holds its call).
    private var initialResidual: [Float]
    private var initialShareOfMic: Float = 0
    private var initialHangover = 0
    /// Whether the gains take the detector's call (after the initial state, once its own hold
    /// from then has ended or it hears a talker afresh).
    private var gainsFollowDetector = false
    /// The share of the last frame's mic power the reference predicts as echo (0 before the
    /// echo path's gain is known): an echo level that holds when the linear filter does not.
    private(set) var echoShareOfMic: Float = 0
    private var crossRe: [Float], crossIm: [Float], smoothedError: [Float], smoothedEcho: [Float]
    private var gains: [Float]
    private var overlap: [Float]
    private var random = SeededRandom(seed: 0x45_43_48_4F)
    private var hangover = 0
    /// Frames the detector holds its call after the last frame it heard a talker in (400 ms).
    private static let holdFrames = 40
    private var deafFrames = 0
    private var smoothedPowerIsPrimed = false
    /// `power[k] = scale · (the leak of k's band) · |X[k]|²` over every bin: the part of a spectrum's
    /// power the linear stage leaves in (over spans: no per-element checks).
    func leakedPower(re: [Float], im: [Float], scale: Float, into power: inout [Float]) {
        let xr = re.span.extracting(0..<bins), xi = im.span.extracting(0..<bins), band = bandOfBin.span.extracting(0..<bins)
        let leaks = leak.span
        var out = power.mutableSpan
        precondition(bins <= out.count)
        var k = 0
        while k < bins {
            out[k] = scale * leaks[band[k]] * (xr[k] * xr[k] + xi[k] * xi[k])
            k &+= 1
        }
    }

    /// Bins of the speech band the detector sums over.
    private let speechBins: Range<Int>

    init(frameSize: Int, sampleRate: Int, settings: SuppressionSettings) {
        self.frameSize = frameSize
        self.settings = settings
        let size = 2 * frameSize
        bins = frameSize + 1
        window = (0..<size).map { Float(sin(Double.pi * Double($0) / Double(size))) }   // √(periodic Hann)
        previousError = [Float](repeating: 0, count: frameSize)
        previousEcho = [Float](repeating: 0, count: previousError.count)
        previousMic = [Float](repeating: 0, count: previousError.count)
        overlap = [Float](repeating: 0, count: previousError.count)
        scratch = SpectralScratch(size: size)
        errorRe = [Float](repeating: 0, count: bins)
        referenceMicRe = [Float](repeating: 0, count: errorRe.count)
        referenceMicIm = [Float](repeating: 0, count: errorRe.count)
        smoothedReference = [Float](repeating: 0, count: errorRe.count)
        micRe = [Float](repeating: 0, count: errorRe.count)
        micIm = [Float](repeating: 0, count: errorRe.count)
        echoMicRe = [Float](repeating: 0, count: errorRe.count)
        echoMicIm = [Float](repeating: 0, count: errorRe.count)
        smoothedMic = [Float](repeating: 0, count: errorRe.count)
        errorIm = [Float](repeating: 0, count: errorRe.count)
        echoRe = [Float](repeating: 0, count: errorRe.count)
        echoIm = [Float](repeating: 0, count: errorRe.count)
        errorPower = [Float](repeating: 0, count: errorRe.count)
        echoPower = [Float](repeating: 0, count: errorRe.count)
        residual = [Float](repeating: 0, count: errorRe.count)
        noiseFloor = [Float](repeating: 0, count: errorRe.count)
        smoothedPower = [Float](repeating: 0, count: errorRe.count)
        noiseMinimum = MinimumTracker(count: bins, slots: 6, slotLength: 25)
        roomNoise = [Float](repeating: 0, count: errorRe.count)
        roomNoiseMinimum = MinimumTracker(count: bins, slots: 6, slotLength: 25)
        referenceTail = [Float](repeating: 0, count: errorRe.count)
        referenceResidual = [Float](repeating: 0, count: errorRe.count)
        initialResidual = [Float](repeating: 0, count: errorRe.count)
        crossRe = [Float](repeating: 0, count: errorRe.count)
        crossIm = [Float](repeating: 0, count: errorRe.count)
        smoothedError = [Float](repeating: 0, count: errorRe.count)
        smoothedEcho = [Float](repeating: 0, count: errorRe.count)
        gains = [Float](repeating: 1, count: bins)
        let binHz = Double(sampleRate) / Double(size)
        let edges: [Double] = [250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2500, 3000, 3500, 4000, 5000, 6000, 8000, 10_000, 12_000, 16_000]
        bandOfBin = (0..<bins).map { k in edges.firstIndex(where: { Double(k) * binHz < $0 }) ?? edges.count }
        bandCount = edges.count + 1
        bandError = [Float](repeating: 0, count: bandCount)
        bandEcho = [Float](repeating: 0, count: bandError.count)
        leak = [Float](repeating: 0.1, count: bandCount)
        bandReference = [Float](repeating: 0, count: bandCount)
        bandMic = [Float](repeating: 0, count: bandCount)
        smoothedBandReference = [Float](repeating: 0, count: bandCount)
        smoothedBandMic = [Float](repeating: 0, count: bandCount)
        smoothedBandLinearError = [Float](repeating: 0, count: bandCount)
        bandRatio = [Float](repeating: 0, count: bandCount)
        bandGain = [Float](repeating: 1, count: bandCount)
        bandIncluded = [Bool](repeating: false, count: bandCount)
        pathGain = MinimumTracker(count: bandCount, slots: 6, slotLength: 25)
        linearLeak = MinimumTracker(count: bandCount, slots: 6, slotLength: 25)
        speechBins = max(1, Int(300 / binHz))..<min(bins, Int(4000 / binHz) + 1)
    }

    /// One frame: the filter's echo estimate and its error in; the suppressed error of
    /// the previous frame (one frame late) out.
    /// `referenceRe`/`referenceIm`: the reference at the echo's delay, through the same window,
    /// for the reference–mic coherence.
    mutating func process(mic: [Float], echo: [Float], error: [Float], referenceRe: [Float], referenceIm: [Float], fft: RealFFT,
                          farEndActive: Bool, into output: inout [Float]) {
        analyse(current: mic, track: .mic, fft: fft)
        for k in 0..<bins {
            micRe[k] = scratch.re[k]
            micIm[k] = scratch.im[k]
        }
        analyse(current: echo, track: .echo, fft: fft)
        for k in 0..<bins {
            echoRe[k] = scratch.re[k]
            echoIm[k] = scratch.im[k]
            echoPower[k] = echoRe[k] * echoRe[k] + echoIm[k] * echoIm[k]
        }
        analyse(current: error, track: .error, fft: fft)
        for k in 0..<bins {
            let er = scratch.re[k], ei = scratch.im[k], yr = echoRe[k], yi = echoIm[k]
            errorRe[k] = er
            errorIm[k] = ei
            errorPower[k] = er * er + ei * ei
            // Smoothed E · conj(Y) and the two powers: the coherence of error and echo estimate.
            crossRe[k] = 0.7 * crossRe[k] + 0.3 * (er * yr + ei * yi)
            crossIm[k] = 0.7 * crossIm[k] + 0.3 * (ei * yr - er * yi)
            smoothedError[k] = 0.7 * smoothedError[k] + 0.3 * errorPower[k]
            smoothedEcho[k] = 0.7 * smoothedEcho[k] + 0.3 * echoPower[k]
            // Echo estimate against mic: coherent where the mic holds echo and little else.
            let dr = micRe[k], di = micIm[k]
            echoMicRe[k] = 0.7 * echoMicRe[k] + 0.3 * (dr * yr + di * yi)
            echoMicIm[k] = 0.7 * echoMicIm[k] + 0.3 * (di * yr - dr * yi)
            smoothedMic[k] = 0.7 * smoothedMic[k] + 0.3 * (dr * dr + di * di)
            let xr = referenceRe[k], xi = referenceIm[k]
            referenceMicRe[k] = 0.7 * referenceMicRe[k] + 0.3 * (dr * xr + di * xi)
            referenceMicIm[k] = 0.7 * referenceMicIm[k] + 0.3 * (di * xr - dr * xi)
            smoothedReference[k] = 0.7 * smoothedReference[k] + 0.3 * (xr * xr + xi * xi)
            referenceTail[k] = xr * xr + xi * xi + 0.6 * referenceTail[k]
        }
        measureEchoDominance()
        estimateResidual(farEndActive: farEndActive)
        detectNearEnd(farEndActive: farEndActive)
        trackNoiseFloor(farEndActive: farEndActive)
        computeGains(farEndActive: farEndActive)
        synthesise(fft: fft, into: &output)
    }

    /// The three signals analysed, each with its previous frame kept for the 50 % overlap.
    private enum Track { case echo, error, mic }

    /// The windowed spectrum of [previous frame, `current`] of `track` into `scratch`.
    private mutating func analyse(current: [Float], track: Track, fft: RealFFT) {
        let n = frameSize
        for i in 0..<n {
            let previous: Float
            switch track {
            case .echo: previous = previousEcho[i]; previousEcho[i] = current[i]
            case .error: previous = previousError[i]; previousError[i] = current[i]
            case .mic: previous = previousMic[i]; previousMic[i] = current[i]
            }
            scratch.time[i] = previous * window[i]
            scratch.time[n + i] = current[i] * window[n + i]
        }
        fft.forward(scratch.time, real: &scratch.re, imaginary: &scratch.im)
    }

    /// The echo estimate's coherence with the mic over the speech band: near 1 when the mic is
    /// echo and noise, lower as soon as a near talker adds what the reference cannot explain.
    /// It does not depend on the leak it gates (the residual estimate), so the two cannot feed
    /// each other's mistakes.
    private mutating func measureEchoDominance() {
        var coherence: Float = 0
        for k in speechBins {
            let cross = echoMicRe[k] * echoMicRe[k] + echoMicIm[k] * echoMicIm[k]
            coherence += cross / (smoothedEcho[k] * smoothedMic[k] + 1e-20)
        }
        echoMicCoherence = coherence / Float(speechBins.count)
        var referenceCoherence: Float = 0
        for k in speechBins {
            let cross = referenceMicRe[k] * referenceMicRe[k] + referenceMicIm[k] * referenceMicIm[k]
            referenceCoherence += cross / (smoothedReference[k] * smoothedMic[k] + 1e-20)
        }
        referenceMicCoherence = referenceCoherence / Float(speechBins.count)
    }

    private mutating func estimateResidual(farEndActive: Bool) {
        for b in 0..<bandCount { bandError[b] = 0; bandEcho[b] = 0 }
        for k in 0..<bins {
            bandError[bandOfBin[k]] += errorPower[k]
            bandEcho[bandOfBin[k]] += echoPower[k]
        }
        if farEndActive && echoMicCoherence > 0.7 {
            // Only the far end talks: what the error holds of each band is what the filter leaked.
            for b in 0..<bandCount where bandEcho[b] > 0 {
                let ratio = min(bandError[b] / bandEcho[b], 1)
                leak[b] = max(ratio > leak[b] ? 0.9 * leak[b] + 0.1 * ratio : 0.98 * leak[b] + 0.02 * ratio, 1e-4)
            }
        }
        predictResidualFromReference(farEndActive: farEndActive)
        for k in 0..<bins {
            // The tail the filter does not model decays about 13 dB every 10 ms frame here.
            residual[k] = max(leak[bandOfBin[k]] * echoPower[k], 0.05 * residual[k])
        }
    }

    /// `referenceResidual`: the reference's tail times each band's echo-path gain and linear
    /// leak (twice their minima: a minimum of a smoothed ratio sits under its mean).
    private mutating func predictResidualFromReference(farEndActive: Bool) {
        // The first 100 ms of far-end activity are not offered: its echo may not have reached
        // the mic yet (a delay the estimate has not found), and a ratio of noise to reference
        // would hold the gain near zero for the window's 1.5 s.
        farEndRun = farEndActive ? farEndRun + 1 : 0
        if farEndActive && isInitial { farEndFramesHeard += 1 }
        let settled = farEndRun > 10
        for b in 0..<bandCount { bandReference[b] = 0; bandMic[b] = 0 }
        for k in 0..<bins {
            bandReference[bandOfBin[k]] += referenceTail[k]
            bandMic[bandOfBin[k]] += micRe[k] * micRe[k] + micIm[k] * micIm[k]
        }
        for b in 0..<bandCount {
            smoothedBandReference[b] = 0.7 * smoothedBandReference[b] + 0.3 * bandReference[b]
            smoothedBandMic[b] = 0.7 * smoothedBandMic[b] + 0.3 * bandMic[b]
            smoothedBandLinearError[b] = 0.7 * smoothedBandLinearError[b] + 0.3 * bandError[b]
            bandIncluded[b] = settled && smoothedBandReference[b] > 1e-10
            bandRatio[b] = smoothedBandMic[b] / max(smoothedBandReference[b], 1e-10)
        }
        // The window moves with time, far end or not: frozen through the far end's pauses, it
        // kept older leaks that drift had since made wrong.
        pathGain.update(bandRatio, where: bandIncluded)
        for b in 0..<bandCount {
            bandIncluded[b] = settled && smoothedBandMic[b] > 1e-10
            bandRatio[b] = smoothedBandLinearError[b] / max(smoothedBandMic[b], 1e-10)
        }
        linearLeak.update(bandRatio, where: bandIncluded)
        var predictedEcho: Float = 0, micPower: Float = 0
        for b in 0..<bandCount where pathGain.isKnown(b) {
            predictedEcho += 2 * pathGain.minimum[b] * bandReference[b]
            micPower += bandMic[b]
        }
        echoShareOfMic = micPower > 0 ? min(1, predictedEcho / micPower) : 0
        if isInitial {
            var initialEcho: Float = 0, allMic: Float = 0
            for b in 0..<bandCount {
                initialEcho += initialPathGain(band: b) * bandReference[b]
                allMic += bandMic[b]
            }
            initialShareOfMic = allMic > 0 ? min(1, initialEcho / allMic) : 0
            for k in 0..<bins {
                let b = bandOfBin[k]
                initialResidual[k] = initialPathGain(band: b) * referenceTail[k]
            }
        }
        for k in 0..<bins {
            let b = bandOfBin[k]
            let gain: Float = pathGain.isKnown(b) ? 2 * pathGain.minimum[b] : 0
            let leakShare: Float = linearLeak.isKnown(b) ? min(1, 2 * linearLeak.minimum[b]) : 1
            referenceResidual[k] = gain * leakShare * referenceTail[k]
        }
    }

    private mutating func detectNearEnd(farEndActive: Bool) {
        var errorSum: Float = 0, explained: Float = 0, coherence: Float = 0
        for k in speechBins {
            errorSum += errorPower[k]
            explained += max(residual[k], referenceResidual[k]) + noiseFloor[k]
            let cross = crossRe[k] * crossRe[k] + crossIm[k] * crossIm[k]
            coherence += cross / (smoothedError[k] * smoothedEcho[k] + 1e-20)
        }
        coherence /= Float(speechBins.count)
        // The error holds clearly more than residual echo and noise, and is not the echo estimate
        // again (a filter that lost the path leaves an error coherent with its estimate).
        let talking = deafFrames == 0 && errorSum > 6 * explained && coherence < 0.6
        if deafFrames > 0 { deafFrames -= 1 }
        if talking { hangover = Self.holdFrames } else if hangover > 0 { hangover -= 1 }
        if isInitial {
            var initialExplained: Float = 0
            for k in speechBins { initialExplained += max(residual[k], initialResidual[k]) + noiseFloor[k] }
            // Heard only once the noise floor is known: before, nothing explains even the room's
            // noise, the call's first frame read as a talker, and its hold let the next 400 ms of
            // echo through (held-out AECMOS far-end single-talk echo 4.27; 4.75 with the wait).
            let heard = talking && errorSum > 6 * initialExplained && noiseMinimum.isKnown(speechBins.lowerBound)
            if heard { initialHangover = Self.holdFrames } else if initialHangover > 0 { initialHangover -= 1 }
            gainsFollowDetector = false
        } else if !gainsFollowDetector {
            // A hold the detector carries out of the initial state is its call on echo it could
            // not explain yet: the gains keep the initial state's hold until the detector hears a
            // talker afresh or lets go.
            if initialHangover > 0 { initialHangover -= 1 }
            gainsFollowDetector = talking || hangover == 0
        }
        nearEndActive = hangover > 0
        if nearEndActive { nearEndFrames += 1 } else if farEndActive { farEndOnlyFrames += 1 }
    }

    /// Drops the detector's hold, and hears no talker for the next `frames` frames: what it took
    /// for a talker was echo the linear filter had lost, and the error it is given still comes
    /// from the lost weights until the found ones are in what is sent.
    mutating func forgetNearEnd(for frames: Int) {
        hangover = 0
        initialHangover = 0
        nearEndActive = false
        deafFrames = frames
    }

    /// Minimum statistics: the noise floor is the least smoothed error power over the last 1.5 s
    /// (six quarter-second minima), raised by the bias a minimum of a smoothed periodogram has.
    /// Speech, echo included, rarely fills a bin for 1.5 s; noise always does. The near-end
    /// detector counts all of it as explained; what comfort noise refills is the same floor
    /// taken only while the far end is silent (`roomNoise`): a stationary echo (noise the far
    /// end plays, a fan in its room) is otherwise refilled as if it were the room's own.
    private mutating func trackNoiseFloor(farEndActive: Bool) {
        // Started at the first frame's power, not at zero: the climb from zero is a minimum the
        // far-end-silent window keeps until 150 silent frames have passed, seconds into a call
        // whose far end talks, and comfort noise would sit 9 dB under the room's noise that long.
        for k in 0..<bins {
            smoothedPower[k] = smoothedPowerIsPrimed ? 0.85 * smoothedPower[k] + 0.15 * errorPower[k] : errorPower[k]
        }
        smoothedPowerIsPrimed = true
        noiseMinimum.update(smoothedPower)
        if !farEndActive { roomNoiseMinimum.update(smoothedPower) }
        for k in 0..<bins {
            noiseFloor[k] = noiseMinimum.isKnown(k) ? 2 * noiseMinimum.minimum[k] : 0
            roomNoise[k] = roomNoiseMinimum.isKnown(k) ? min(2 * roomNoiseMinimum.minimum[k], noiseFloor[k]) : 0
        }
    }

    private mutating func computeGains(farEndActive: Bool) {
        // In the initial state the talker its prediction hears; after it, the detector's.
        let initial = isInitial
        let held = gainsFollowDetector ? hangover : initialHangover
        let near = held > 0
        // In the hold after a talker's last frame (the detector holds its call 400 ms: the pauses
        // between words) a third of the residual estimate is taken off, down to the double-talk
        // floor: the echo there has no talker to hide under, and a word starting there lifts the
        // error far above the estimate, and its gain with it. A third, not all: on the
        // development corpus all of it cost the talker 0.06 of PESQ-WB, the far-end floor 0.9.
        let pause = near && held < Self.holdFrames
        let floor = Float(pow(10, Double(near ? settings.doubleTalkFloorDB : settings.farEndFloorDB) / 20))
        let over = pause ? max(settings.doubleTalkOverestimate, 0.3) : near ? settings.doubleTalkOverestimate : settings.farEndOverestimate
        // Down to the noise floor only where the mic is surely echo: the echo estimate or the
        // reference coherent with it (the reference also when the linear filter has lost the
        // path), or the reference's power times the echo path's gain explaining nine tenths of
        // the mic's (drift, a clipping loudspeaker: echo the linear filter cannot model, and
        // short windows of a reverberant room's reference cohere little with the mic). The
        // talker's hold (the initial state's while it lasts) keeps the gate off through a
        // talker's pauses. On the development and the default corpus no near end lost anything
        // to the third test.
        let gate = farEndActive && !near && settings.gatesFarEndSingleTalk
            && (echoMicCoherence > 0.7 || referenceMicCoherence > 0.5 || (initial ? initialShareOfMic : echoShareOfMic) > 0.9)
        // The reference's prediction is a band's: noisy per bin, where the mic's echo at one
        // bin and the reference's at its delay are not proportional in a reverberant room.
        let predicted = initial ? initialResidual : referenceResidual
        for b in 0..<bandCount { bandGain[b] = 0 }
        for k in 0..<bins { bandGain[bandOfBin[k]] += predicted[k] }
        for b in 0..<bandCount {
            bandGain[b] = max(floor, 1 - over * bandGain[b] / (smoothedBandLinearError[b] + 1e-20))
        }
        for k in 0..<bins {
            let p = errorPower[k] + 1e-20
            var g = max(floor, min(1 - over * residual[k] / p, bandGain[bandOfBin[k]]))
            if gate { g = min(g, max(floor, (roomNoise[k] / p).squareRoot())) }
            gains[k] = g
        }
    }

    private mutating func synthesise(fft: RealFFT, into output: inout [Float]) {
        let n = frameSize
        for k in 0..<bins {
            let g = gains[k]
            let fill = (max(0, 1 - g * g) * roomNoise[k] * 0.5).squareRoot()
            scratch.re[k] = g * errorRe[k] + fill * random.nextGaussian()
            scratch.im[k] = g * errorIm[k] + fill * random.nextGaussian()
        }
        scratch.im[0] = 0
        scratch.im[bins - 1] = 0
        fft.inverse(real: scratch.re, imaginary: scratch.im, output: &scratch.time)
        let scale = 1 / Float(2 * n)
        for i in 0..<n {
            output[i] = min(max(overlap[i] + scratch.time[i] * window[i] * scale, -1), 1)
            overlap[i] = scratch.time[n + i] * window[n + i] * scale
        }
    }
}
