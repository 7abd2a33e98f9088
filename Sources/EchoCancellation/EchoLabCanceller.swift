import AudioCore
import AudioInterop
import Foundation

/// EchoLab's own echo canceller, in Swift on FFTW: two partitioned-block frequency-domain
/// filters over the same reference spectra — a main filter whose step is a Kalman gain (fast
/// while it knows little, still while the near end talks) and a coarse normalised-LMS filter
/// that always adapts and hands its weights over when the echo path jumps — then residual echo
/// suppression with a near-end detector and comfort noise (`ResidualEchoSuppressor`), and a bulk
/// delay estimate that places the filters' window on the echo (`BulkDelayEstimator`).
///
/// One 10 ms frame per call, render before capture; nothing is allocated after `init`. The
/// output is one frame late (the suppressor's overlap-add); `linearOutput` is the linear stage's
/// output for the frame just captured (the mic less the foreground filter's estimate, as the
/// suppressor receives it).
public final class EchoLabCanceller {
    public let sampleRate: Int
    public let frameSize: Int
    /// Taps of each filter, in frames (partitions).
    public let partitions: Int
    public var settings: SuppressionSettings {
        get { suppressor.settings }
        set { suppressor.settings = newValue }
    }
    /// The linear stage's output for the last captured frame, before residual suppression: the
    /// mic less the foreground filter's estimate (`erleDB` is the main filter's own).
    public private(set) var linearOutput: [Float]
    /// Times the main filter was thrown away because its error outgrew the mic after it had
    /// modelled the echo: it lost the path.
    public private(set) var divergenceResets = 0
    /// Times it was started over because its error outgrew the mic before it had modelled any
    /// echo: what it learned was the mic's noise (see `compareFilters`), no path was lost.
    public private(set) var restartsBeforeEcho = 0
    /// Times the main filter took the coarse filter's weights.
    public private(set) var coarseHandovers = 0
    /// Times the weights were moved to where the echo had jumped (`EchoPathRealigner`).
    public private(set) var realignments = 0
    /// Mean square of the echo in the last captured frame: what the main filter modelled, or
    /// more where the reference predicts more (a filter that lost the path models too little).
    public private(set) var modelledEchoPower: Float = 0

    private let fft: RealFFT
    private var reference: ReferenceSpectra
    private var renderLevels: [Float]
    private var renderLevelSlot = 0
    /// The render frames themselves, in the same ring as their levels (the reference blocks'
    /// samples are read from it).
    private var renderHistory: [Float]
    private var alignedRe: [Float], alignedIm: [Float]
    private let analysisWindow: [Float]
    private var main: PartitionedFilter
    /// What the output hears: the main filter's weights every `foregroundInterval` frames (80 ms;
    /// 40 ms read the same and cost more), every
    /// partition constrained. An unconstrained weight's wrapped half (the main filter constrains
    /// one partition a frame, in turn, as speexdsp's MDF does) makes consecutive output frames
    /// disagree at their boundary, and so does a weight update: both are clicks (10 in a 22 s
    /// room call with the first 8 partitions constrained every frame). Fixed, fully constrained
    /// weights join frames seamlessly; a new copy is crossfaded in over one frame.
    private var foreground: PartitionedFilter
    private let foregroundInterval = 8
    private var framesSinceForeground = 0
    private var previousEcho: [Float], mainEcho: [Float], mainErrorFrame: [Float]
    private let fadeIn: [Float]
    /// The coarse filter: the first 120 ms of the window only, a fixed normalised step, always
    /// adapting. Fewer partitions share each frame's correction, so it follows a jump of the
    /// echo path (or drift) in a fraction of the main filter's time; its missing tail keeps it
    /// from ever beating the main filter on a steady path.
    private var coarse: PartitionedFilter
    private let coarsePartitions: Int
    private var kalman: KalmanStepControl
    private var coarseStep: [Float]
    private var suppressor: ResidualEchoSuppressor
    private var delay: BulkDelayEstimator
    private var realigner: EchoPathRealigner
    private var realignTaps: [Float]
    /// The last main filter that took 10 dB off the mic in far-end single talk, refreshed every
    /// quarter second while it does: what a jump is searched with and restored from.
    private var anchor: PartitionedFilter
    private var anchorIsValid = false
    private var framesSinceAnchor = 0
    /// The anchor's echo estimate over the realigner's frames, oldest first.
    private var anchorEcho: [Float]
    /// Frames between the newest reference block and the filters' first partition.
    public private(set) var delayFrames = 0
    /// Separate properties, not one struct: a transform writes two of them at once.
    private var spectrumRe: [Float], spectrumIm: [Float], timeBuffer: [Float]
    private var constraintScratch: SpectralScratch
    private var echoRe: [Float], echoIm: [Float], residualEcho: [Float]
    private var echo: [Float], coarseEcho: [Float], coarseError: [Float]
    private var foregroundEnergy: Float = 0, inputEnergy: Float = 0, echoWeight: Float = 1
    private var mainEnergy: Float = 0, coarseEnergy: Float = 0, micEnergy: Float = 0
    /// The main filter's strongest partition, looked up every 250 ms: the echo's delay in the window.
    private var strongestPartition = 0, framesSinceStrongest = 0
    private var coarseBetterFrames = 0, coarseWorseFrames = 0, divergedFrames = 0
    /// Whether the main filter has modelled the echo since it last started from nothing: taken
    /// 10 dB off the mic while the far end talked, as the anchor must (no filter takes a near
    /// talker's power off, nor the noise's). At 3 dB, a filter that had the first syllable's echo
    /// but still held the noise it fitted before it (the partitions ahead of the echo, before the
    /// delay estimate moved the window) was counted diverged on the next syllable's.
    private var mainHasModelledEcho = false
    /// Smoothed mic and main-filter error power in far-end single talk (the filter's own ERLE),
    /// and mic and reference level there (its ERL).
    private var erleMic: Float = 0, erleError: Float = 0, erlLevels = EchoPathLevels()
    /// The echo path's power gain for the Kalman prior: mic over reference level in far-end
    /// single talk, counted from when the delay estimate has found the echo (before, the mic
    /// may not hold it yet: a far end's first 320 ms at a 320 ms delay are noise at the mic).
    private var pathGain = EchoPathLevels()

    /// The lowest rate it runs at: its near-end detector reads the speech band's coherence,
    /// 300–4000 Hz, which a lower rate does not hold (at 400 Hz the band was empty).
    public static let minimumSampleRate = 8000

    /// - Parameters:
    ///   - sampleRate: `minimumSampleRate` or more.
    ///   - tailMilliseconds: how long an echo tail the filters model beyond the bulk delay.
    ///   - maxDelayMilliseconds: the longest bulk delay the estimator looks for.
    public init(sampleRate: Int, frameSize: Int, tailMilliseconds: Int = 250, maxDelayMilliseconds: Int = 500,
                settings: SuppressionSettings = .recommended) {
        precondition(frameSize > 0, "frame size must be positive")
        precondition(sampleRate >= Self.minimumSampleRate, "EchoLabCanceller runs at \(Self.minimumSampleRate) Hz or more")
        self.sampleRate = sampleRate
        self.frameSize = frameSize
        let tailSamples = tailMilliseconds * sampleRate / 1000
        partitions = max(1, (tailSamples + frameSize - 1) / frameSize)
        let bins = frameSize + 1
        // Without SIMD codelets, as the echo path's: FFTW picks them by the CPU it runs on, and
        // the golden vectors' taps must hash the same on every x86-64 machine.
        fft = RealFFT(size: 2 * frameSize, portable: true)
        // Planned now, not on the first frame (FFTW plans allocate and take ~3 ms a direction).
        fft.prepare(.forward)
        fft.prepare(.inverse)
        delay = BulkDelayEstimator(sampleRate: sampleRate, frameSize: frameSize, maxDelayMilliseconds: maxDelayMilliseconds)
        reference = ReferenceSpectra(bins: bins, capacity: partitions + delay.maxDelayFrames + 1)
        renderLevels = [Float](repeating: 0, count: reference.capacity)
        renderHistory = [Float](repeating: 0, count: reference.capacity * frameSize)
        alignedRe = [Float](repeating: 0, count: bins)
        alignedIm = [Float](repeating: 0, count: alignedRe.count)
        analysisWindow = (0..<2 * frameSize).map { Float(sin(Double.pi * Double($0) / Double(2 * frameSize))) }
        main = PartitionedFilter(partitions: partitions, bins: bins)
        coarsePartitions = min(partitions, 12)
        coarse = PartitionedFilter(partitions: coarsePartitions, bins: bins)
        foreground = PartitionedFilter(partitions: partitions, bins: bins)
        fadeIn = (0..<frameSize).map { Float(0.5 - 0.5 * cos(Double.pi * (Double($0) + 0.5) / Double(frameSize))) }
        kalman = KalmanStepControl(partitions: partitions, bins: bins)
        coarseStep = [Float](repeating: 0, count: bins)
        suppressor = ResidualEchoSuppressor(frameSize: frameSize, sampleRate: sampleRate, settings: settings)
        realigner = EchoPathRealigner(frameSize: frameSize, sampleRate: sampleRate)
        realignTaps = [Float](repeating: 0, count: partitions * frameSize)
        anchor = PartitionedFilter(partitions: partitions, bins: bins)
        anchorEcho = [Float](repeating: 0, count: realigner.capacityFrames * frameSize)
        constraintScratch = SpectralScratch(size: 2 * frameSize)
        spectrumRe = [Float](repeating: 0, count: bins)
        spectrumIm = [Float](repeating: 0, count: spectrumRe.count)
        timeBuffer = [Float](repeating: 0, count: 2 * frameSize)
        echoRe = [Float](repeating: 0, count: bins)
        echoIm = [Float](repeating: 0, count: echoRe.count)
        residualEcho = [Float](repeating: 0, count: echoRe.count)
        linearOutput = [Float](repeating: 0, count: frameSize)
        echo = [Float](repeating: 0, count: linearOutput.count)
        coarseEcho = [Float](repeating: 0, count: linearOutput.count)
        coarseError = [Float](repeating: 0, count: linearOutput.count)
        previousEcho = [Float](repeating: 0, count: linearOutput.count)
        mainEcho = [Float](repeating: 0, count: linearOutput.count)
        mainErrorFrame = [Float](repeating: 0, count: linearOutput.count)
    }

    /// The render side: one frame of what the loudspeaker plays.
    public func analyzeRender(_ frame: [Float]) {
        let n = frameSize
        precondition(frame.count >= n, "render frame shorter than the frame size")
        renderLevelSlot = (renderLevelSlot + 1) % renderLevels.count
        VectorMath.copy(frame, into: &renderHistory, at: renderLevelSlot * n, count: n)
        renderLevels[renderLevelSlot] = FrameLoops.energy(frame, count: n) / Float(n)
        // The block is the frame before and this one, as the ring holds them.
        VectorMath.copy(renderHistory, from: renderSlot(age: 1) * n, into: &timeBuffer, count: n)
        VectorMath.copy(frame, into: &timeBuffer, at: n, count: n)
        fft.forward(timeBuffer, real: &spectrumRe, imaginary: &spectrumIm)
        reference.push(re: spectrumRe, im: spectrumIm)
        delay.addRender(frame)
    }

    /// The capture side: one mic frame in, the echo-cancelled frame (one frame late) out.
    public func processCapture(_ frame: [Float], into output: inout [Float]) {
        let n = frameSize
        precondition(frame.count >= n && output.count >= n, "capture frame shorter than the frame size")
        delay.addCapture(frame)
        if let frames = delay.estimateFrames, abs(max(0, frames - 2) - delayFrames) >= 2 {
            // The window starts two frames before the echo, where the Kalman prior expects it
            // (a 60 ms echo at partition 6 of a window left at 0 learned nothing in 4 s); a frame
            // of change is the filters' own to follow.
            retarget(to: max(0, frames - 2))
        }
        let farEnd = farEndActive()

        // What is sent: the foreground's estimate, crossfaded from the outgoing weights' on the
        // frame a new copy comes in.
        estimate(foreground, into: &echo)
        framesSinceForeground += 1
        var fading = false
        if framesSinceForeground >= foregroundInterval {
            framesSinceForeground = 0
            for i in 0..<n { previousEcho[i] = echo[i] }
            foreground.copy(from: main)
            foreground.constrainAll(fft: fft, scratch: &constraintScratch)
            estimate(foreground, into: &echo)
            fading = true
        }
        // A filter whose error has outgrown the mic by the margin (the path changed under it) is
        // taken out of what is sent until it is back within it, faded over a frame either way.
        if fading { FrameLoops.crossfade(&echo, from: previousEcho, ramp: fadeIn, count: n) }
        let (mic, foregroundError) = FrameLoops.energies(frame, minus: echo, count: n)
        foregroundEnergy = 0.7 * foregroundEnergy + 0.3 * foregroundError
        inputEnergy = 0.7 * inputEnergy + 0.3 * mic
        let wanted: Float = foregroundEnergy > Self.foregroundErrorMargin * inputEnergy ? 0 : 1
        FrameLoops.weigh(&echo, from: echoWeight, to: wanted, ramp: fadeIn, frame: frame, output: &linearOutput, count: n)
        echoWeight = wanted

        // Main filter: its own estimate and error, the Kalman step.
        estimate(main, into: &mainEcho)
        let (mainError, mainEchoEnergy) = FrameLoops.subtract(frame, minus: mainEcho, into: &mainErrorFrame, count: n)
        // The overlap-save estimate's spectrum holds both halves: half its power is the frame's.
        suppressor.leakedPower(re: echoRe, im: echoIm, scale: 0.5, into: &residualEcho)
        errorSpectrum(mainErrorFrame)
        kalman.adapt(&main, reference: reference, offset: delayFrames, errorRe: spectrumRe, errorIm: spectrumIm, residualEcho: residualEcho,
                     driftScale: suppressor.nearEndActive ? Self.talkerDriftScale : 1)
        main.constrainNext(fft: fft, scratch: &constraintScratch)

        // Coarse filter: estimate, error, normalised step.
        estimate(coarse, into: &coarseEcho)
        let coarsePower = FrameLoops.subtract(frame, minus: coarseEcho, into: &coarseError, count: n).difference
        errorSpectrum(coarseError)
        computeCoarseStep()
        coarse.adapt(reference, offset: delayFrames, step: coarseStep, errorRe: spectrumRe, errorIm: spectrumIm)
        coarse.constrainNext(fft: fft, scratch: &constraintScratch)

        compareFilters(mic: mic, main: mainError, coarse: coarsePower, farEnd: farEnd)
        followJumps(frame, farEnd: farEnd)
        trackOwnMeasures(mic: mic, error: mainError, farEnd: farEnd)
        scaleKalmanPrior()
        framesSinceStrongest += 1
        if framesSinceStrongest >= 25 {
            framesSinceStrongest = 0
            strongestPartition = strongestMainPartition()
        }
        // The echo's delay as the delay estimate has it (it follows a changed path on its own),
        // else where the main filter holds most.
        alignReference(age: min(delay.estimateFrames ?? (delayFrames + strongestPartition), reference.capacity - 2))
        suppressor.process(mic: frame, echo: echo, error: linearOutput, referenceRe: alignedRe, referenceIm: alignedIm,
                           fft: fft, farEndActive: farEnd, into: &output)
        // The echo is what the main filter models, or what the reference predicts where the
        // filter has lost the path (drift) and models too little.
        modelledEchoPower = max(mainEchoEnergy, mic * suppressor.echoShareOfMic) / Float(n)
    }

    private func estimate(_ filter: PartitionedFilter, into out: inout [Float], at start: Int = 0, framesAgo: Int = 0) {
        // Accumulated in local arrays taken out of the canceller and put back: written through
        // a class's stored property, every element's write checked the buffer's uniqueness.
        var yRe: [Float] = [], yIm: [Float] = []
        swap(&yRe, &echoRe)
        swap(&yIm, &echoIm)
        filter.estimate(reference, offset: delayFrames + framesAgo, re: &yRe, im: &yIm)
        swap(&yRe, &echoRe)
        swap(&yIm, &echoIm)
        fft.inverse(real: echoRe, imaginary: echoIm, output: &timeBuffer)
        let n = frameSize, scale = 1 / Float(2 * n)
        for i in 0..<n { out[start + i] = timeBuffer[n + i] * scale }
    }

    /// The spectrum of [0…0, error] into `scratch`: the overlap-save error, in the echo estimate's scale.
    private func errorSpectrum(_ error: [Float]) {
        let n = frameSize
        VectorMath.fill(&timeBuffer, count: n)
        VectorMath.copy(error, into: &timeBuffer, at: n, count: n)
        fft.forward(timeBuffer, real: &spectrumRe, imaginary: &spectrumIm)
    }

    /// The coarse filter's step: a fixed share of each bin's correction, normalised by the
    /// reference power the partitions hold there.
    private func computeCoarseStep() {
        let bins = frameSize + 1
        var power: [Float] = [], step: [Float] = []
        swap(&power, &echoRe)
        swap(&step, &coarseStep)
        defer {
            swap(&power, &echoRe)
            swap(&step, &coarseStep)
        }
        for k in 0..<bins { power[k] = 0 }
        do {
            // Over spans checked once: the loop vectorises (element-wise, the same bits).
            var sum = power.mutableSpan
            precondition(bins <= sum.count)
            for p in 0..<coarsePartitions {
                let x = reference.base(age: delayFrames + p)
                let partition = reference.power.span.extracting(x..<(x + bins))
                var k = 0
                while k < bins { sum[k] += partition[k]; k &+= 1 }
            }
        }
        var mean: Float = 0
        for k in 0..<bins { mean += power[k] }
        let regularisation = 0.01 * mean / Float(bins) + 1e-10
        for k in 0..<bins { step[k] = 0.7 / (power[k] + regularisation) }
    }

    /// The render frames `age + 1` and `age` (the echo's strongest lag) through the suppressor's
    /// √Hann window: the reference as the mic's short-time spectrum would hear it.
    private func alignReference(age: Int) {
        let n = frameSize
        for half in 0..<2 {
            FrameLoops.multiply(renderHistory, from: renderSlot(age: age + 1 - half) * n, by: analysisWindow, from: half * n,
                                into: &timeBuffer, at: half * n, count: n)
        }
        fft.forward(timeBuffer, real: &alignedRe, imaginary: &alignedIm)
    }

    /// The ring slot of the render frame `age` frames old (0: the newest).
    private func renderSlot(age: Int) -> Int {
        let slot = renderLevelSlot - age
        return slot < 0 ? slot + renderLevels.count : slot
    }

    private func farEndActive() -> Bool {
        // Any reference frame the filters' first 100 ms hold.
        for age in delayFrames..<min(delayFrames + 10, renderLevels.count) where renderLevels[renderSlot(age: age)] > 1e-7 {
            return true
        }
        return false
    }

    /// Takes the coarse filter's weights when it has been clearly better for a while (the echo
    /// path jumped and the cautious main filter is slow to follow), gives the main filter's to
    /// the coarse one when that diverged (it adapts through double talk), and starts over when
    /// the main filter's error outgrows the mic.
    private func compareFilters(mic: Float, main mainPower: Float, coarse coarsePower: Float, farEnd: Bool) {
        mainEnergy = 0.8 * mainEnergy + 0.2 * mainPower
        coarseEnergy = 0.8 * coarseEnergy + 0.2 * coarsePower
        micEnergy = 0.8 * micEnergy + 0.2 * mic
        guard farEnd else { coarseBetterFrames = 0; return }
        // Better than the main filter by 3 dB, and taking 3 dB off the mic: a filter cannot take
        // a near talker's power off, so in double talk this holds only for a coarse filter that
        // models the echo better than the main one does. (The near-end detector cannot decide
        // it: an echo path that jumped looks like a talker.)
        let coarseRemovesEcho = coarseEnergy < 0.5 * micEnergy
        coarseBetterFrames = coarseEnergy < 0.5 * mainEnergy && coarseRemovesEcho ? coarseBetterFrames + 1 : 0
        coarseWorseFrames = coarseEnergy > 2 * mainEnergy ? coarseWorseFrames + 1 : 0
        if mainEnergy < 0.1 * micEnergy { mainHasModelledEcho = true }
        divergedFrames = mainEnergy > 4 * micEnergy && micEnergy > 1e-9 ? divergedFrames + 1 : 0
        if divergedFrames >= 5 {
            main.reset()
            forgetPathGain()
            kalman.reset()
            coarse.reset()
            // A filter that never modelled the echo lost no path: over the far end's first words
            // at a bulk delay of 60 ms or more the echo has not reached the mic yet, the Kalman
            // step (at its prior) fits the mic's noise into weights the size of an echo path,
            // and the louder words that follow read them 16–28 dB over a −70 dBFS mic. It is
            // started over all the same (kept, those weights cost its first seconds 1–3 dB of
            // linear ERLE at 80 ms), but not counted as a divergence: every clean path that late
            // read as one reset (at 40 ms the echo arrived a frame before the fifth frame).
            if mainHasModelledEcho { divergenceResets += 1 } else { restartsBeforeEcho += 1 }
            mainHasModelledEcho = false
            divergedFrames = 0
            // Both filters start from nothing: their errors are the mic's, not the diverged
            // energy, which would otherwise count the same divergence again five frames on.
            compareAfresh(from: micEnergy)
        } else if coarseBetterFrames >= 5 {
            // A path clearly louder than the main filter's (the coarse weights' power 6 dB above
            // the main's leading partitions: a handset's path replaced by a loudspeaker's) is a
            // new path, learned under the full prior until its gain is measured. Any other
            // hand-over is a better estimate of the same path (drift, a small jump, a main filter
            // a near talker disturbed) and keeps the measured gain: forgotten there, a quiet
            // earpiece's main filter took the full prior back in a talker's pause and learned the
            // talker (the development corpus's quiet-room earpiece, held out: PESQ-WB 2.76 → 2.98).
            let louderPath = coarse.leadingEnergy(coarsePartitions) > 4 * main.leadingEnergy(coarsePartitions)
            if louderPath { forgetPathGain() }
            // The uncertainties go back to a tenth of the prior (a fast start on the weights taken)
            // only for a new path or a main filter that has not yet taken 10 dB off the mic. One
            // that has is close to the path, and so are the weights it takes: reset there, its
            // large step learned what came next — a talker coming in after 10 s of far-end speech
            // as echo (the linear stage took 11.6–15.8 dB off the echo under the talker, against
            // 23–25 dB without the restart: EchoLabCancellerTests), and on
            // 16 kHz pure delays its error was 2–3 dB over the coarse filter's again within three
            // frames, which handed over again: 50–60 hand-overs per 15 s call. A room's early
            // hand-over (the main filter 4 dB off) still resets: its tail learns from it (the
            // default corpus's room 28.8 dB steady; 24.8 without).
            if louderPath || mainEnergy >= 0.1 * micEnergy { kalman.reset(scale: 0.1) }
            main.copyLeading(from: coarse)
            coarseHandovers += 1
            coarseBetterFrames = 0
            mainEnergy = coarseEnergy
        } else if coarseWorseFrames >= 10 {
            coarse.copyLeading(from: main)
            coarseWorseFrames = 0
            coarseEnergy = mainEnergy
        }
    }

    private func trackOwnMeasures(mic: Float, error: Float, farEnd: Bool) {
        guard farEnd, !suppressor.nearEndActive else { return }
        erleMic = 0.99 * erleMic + 0.01 * mic
        erleError = 0.99 * erleError + 0.01 * error
        // The reference's mean level over the frames the filter spans: what the echo is made of.
        var render: Float = 0
        let ages = delayFrames..<min(delayFrames + partitions, renderLevels.count)
        for age in ages { render += renderLevels[renderSlot(age: age)] }
        render /= Float(ages.count)
        erlLevels.add(micEnergy: mic, samples: frameSize, render: render)
        guard delay.estimateFrames != nil else { return }
        pathGain.add(micEnergy: mic, samples: frameSize, render: render)
    }

    /// The Kalman prior follows the echo path's power gain, with a margin of 16 (12 dB), once
    /// 100 ms of far-end single talk have measured it: a path as quiet as a handset's earpiece
    /// (30 dB under the reference) then expects weights of its own size, and a talker over it no
    /// longer reads as echo to learn. Paths louder than −12 dB keep the full prior, so the
    /// loudspeaker rooms converge as with the unscaled prior; before the gain is measured, so do all.
    /// (On the development corpus a fixed prior of 0.01 had the earpiece right and slowed the
    /// 6 dB room to 27 dB.)
    private func scaleKalmanPrior() {
        guard pathGain.frames >= 10, pathGain.mic > 0, pathGain.render > 0 else { return }
        // In steps of 3 dB: the scale then changes with the path, not with every frame's ratio.
        let scale = exp2f((log2f(16 * pathGain.mic / pathGain.render)).rounded())
        kalman.priorScale = min(1, max(Self.smallestPriorScale, scale))
    }

    /// The path the gain was measured on is gone (a divergence, or the coarse filter found a
    /// louder one): the full prior again until the new one is measured.
    private func forgetPathGain() {
        pathGain = EchoPathLevels()
        kalman.priorScale = 1
    }

    /// How far the foreground's error must outgrow the mic (power) to be taken out: 1.8 dB.
    /// A filter that lost the path adds its whole estimate, 3 dB in far-end single talk. With a
    /// talker over the echo the two differ only by the little echo a working filter takes off,
    /// and the talker's swing from frame to frame crossed a bare comparison, taking the filter
    /// out where it worked: on the development corpus that cost 0.04–0.16 of double-talk
    /// PESQ-WB, and 7 dB of held-out drift (13.8 dB against 20.5).
    private static let foregroundErrorMargin: Float = 1.5

    /// The main filter's drift (its Kalman process noise) while the near-end detector hears a
    /// talker, as a share of the usual: the uncertainty the drift adds each frame is what lets a
    /// talker's power into the weights, and under a talker it was spent learning him. A path that
    /// changes under a talker is the coarse filter's and the realigner's to follow. On the
    /// development corpus the linear stage kept 2–5 dB more of the echo off under the talker
    /// (double-talk PESQ-WB 2.94 / 2.83 → 2.98 / 2.85), the default corpus's double-talk room
    /// 27.0 → 28.8 dB of steady ERLE.
    private static let talkerDriftScale: Float = 0.1

    /// The prior's floor (2⁻¹⁵): a path 57 dB under the reference, quieter than any the canceller
    /// is for.
    private static let smallestPriorScale: Float = 1.0 / 32_768

    /// Both filters' smoothed errors set to `energy` and the counts of one beating the other
    /// cleared: after their weights were replaced, the old errors say nothing about the new ones.
    private func compareAfresh(from energy: Float) {
        mainEnergy = energy
        coarseEnergy = energy
        coarseBetterFrames = 0
        coarseWorseFrames = 0
    }

    /// Moves the filters' window to start `frames` after the newest reference block, carrying the
    /// weights (and their uncertainties) along: the echo path did not change, only where it starts.
    private func retarget(to frames: Int) {
        let wanted = min(frames, delay.maxDelayFrames)
        guard wanted != delayFrames else { return }
        let shift = delayFrames - wanted
        main.shift(by: shift)
        foreground.shift(by: shift)
        strongestPartition = max(0, min(partitions - 1, strongestPartition + shift))
        coarse.shift(by: shift)
        kalman.shift(by: shift)
        anchor.shift(by: shift)
        delayFrames = wanted
    }

    /// Keeps the anchor, and when the main filter has been lost long enough, searches the
    /// anchor's estimate for a jump of the echo and restores the anchor, moved, where it matches
    /// better than what the filters have learned since.
    private func followJumps(_ frame: [Float], farEnd: Bool) {
        realigner.add(mic: frame)
        let lost = farEnd && mainEnergy > 1.25 * micEnergy && micEnergy > 1e-9
        if realigner.searchIsDue(lost: lost && anchorIsValid) {
            // The anchor's estimate of each kept frame, from the reference spectra still held.
            let frames = realigner.capacityFrames
            guard delayFrames + frames + partitions <= reference.capacity else { return }
            for age in 0..<frames {
                estimate(anchor, into: &anchorEcho, at: (frames - 1 - age) * frameSize, framesAgo: age)
            }
            let (lag, match, aligned) = realigner.bestLag(estimate: anchorEcho)
            // A least-squares fit of the moved estimate leaves 1 − match² of the mic.
            guard abs(lag) >= 2, match >= EchoPathRealigner.minimumMatch, match - aligned >= EchoPathRealigner.minimumGain,
                  1 - match * match < mainEnergy / micEnergy else { return }
            realign(by: lag)
        } else if farEnd && !lost && !realigner.isWaiting && !suppressor.nearEndActive && mainEnergy < 0.1 * micEnergy {
            framesSinceAnchor += 1
            if framesSinceAnchor >= 25 {
                framesSinceAnchor = 0
                anchor.copy(from: main)
                anchorIsValid = true
            }
        }
    }

    /// Moves the anchor's response `lag` samples, where the echo went, makes it the main and the
    /// coarse filter's, and brings it into what is sent on the next frame (crossfaded, as every
    /// foreground copy). The detector's hold is dropped: the "talker" it heard was the echo the
    /// filter had lost.
    private func realign(by lag: Int) {
        anchor.shift(samples: lag, fft: fft, scratch: &constraintScratch, taps: &realignTaps)
        main.copy(from: anchor)
        coarse.copyLeading(from: main)
        framesSinceForeground = foregroundInterval - 1
        // Sent again from the next frame on, not once the smoothed error has fallen under the
        // mic's: the weights were just shown to match the mic.
        foregroundEnergy = 0
        // The two filters now hold the same head: compared afresh, not on the lost frames' errors.
        compareAfresh(from: 0)
        strongestPartition = strongestMainPartition()
        // This frame's error and the next's (the crossfade) still hold the lost weights' estimate.
        suppressor.forgetNearEnd(for: 3)
        realignments += 1
    }

    /// The filter's echo return loss enhancement as it sees it (dB): mic over error power while
    /// only the far end talks.
    public var erleDB: Double? {
        guard erleError > 0, erleMic > 0 else { return nil }
        return 10 * Double(log10f(erleMic / erleError))
    }

    /// Echo return loss as it sees it (dB): reference over mic power while only the far end talks.
    public var erlDB: Double? {
        guard erlLevels.mic > 0, erlLevels.render > 0 else { return nil }
        return 10 * Double(log10f(erlLevels.render / erlLevels.mic))
    }

    /// Where the echo's strongest partition sits (ms after the render frame).
    public var delayMilliseconds: Double {
        Double((delayFrames + strongestPartition) * frameSize) * 1000 / Double(sampleRate)
    }

    private func strongestMainPartition() -> Int {
        var strongest = 0, energy: Float = -1
        for p in 0..<partitions {
            let e = main.partitionEnergy(p)
            if e > energy { energy = e; strongest = p }
        }
        return strongest
    }

    /// Frames judged to hold near-end speech, and far-end single talk.
    public var nearEndFrames: Int { suppressor.nearEndFrames }
    /// Whether the near-end detector heard the near talker in the last captured frame.
    public var nearEndTalking: Bool { suppressor.nearEndActive }

    public var farEndOnlyFrames: Int { suppressor.farEndOnlyFrames }
}

/// Mic and reference mean squares in far-end single talk, each smoothed over about a second
/// (0.99 a frame): their ratio is the echo path's power gain.
private struct EchoPathLevels {
    private(set) var mic: Float = 0
    private(set) var render: Float = 0
    private(set) var frames = 0

    /// `micEnergy`: the frame's sum of squares over `samples`; `render`: the reference's mean square.
    mutating func add(micEnergy: Float, samples: Int, render frameRender: Float) {
        mic = 0.99 * mic + 0.01 * micEnergy / Float(samples)
        render = 0.99 * render + 0.01 * frameRender
        frames += 1
    }
}
