import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import ScenarioFiles
import Simulation

/// One recording in one mode, into a folder: `sent.wav` (the canceller's output, aligned with the
/// mic), `report.json` and its pages (`report.md`, `report.html`, from the `renderer`) with the metrics from the loopback, the mic and `sent`
/// — with the corpus's echo and near-end tracks where it has them (AEC-Challenge synthetic),
/// so the gate is exact there. Near-end single talk (no loopback) is measured against a loopback of
/// digital silence: the near end's attenuation alone (with its track) or the output's drop under
/// the talker (without), the one axis such a recording has.
///
/// The output is written under a hidden name and scored; with `keepsOutput` it then becomes
/// `sent.wav`, without (`eval --no-taps`) it is deleted: the report lists no `sent`, and a
/// `sent.wav` an earlier run of the folder listed as its own goes (it would contradict the new
/// report).
public struct RecordingRun {
    public var item: RecordingItem
    public var mode: EchoControlMode
    public var outputDirectory: String
    public var keepsOutput: Bool
    /// Polled while the recording is processed (a cancelled run stops within a second of audio)
    /// and once it is scored; a cancelled run leaves nothing.
    public var cancellation: RunCancellation?
    /// Renders the report's pages; nil writes report.json alone.
    public var renderer: (any ReportRenderer)?
    /// The scorers that score the output (`--scorer`), kept running between runs by the caller.
    public var scorers: [ScorerProcess] = []
    /// The tap-free gate's decisions, shared by the runs of one recording in other modes (the
    /// gate reads only the loopback and the mic); nil fits the echo path in every run.
    public var gateDecisions: EchoPathGateCache?
    /// The plugin files' digests as the eval found them: a run whose plugin file changed since
    /// fails. nil checks nothing.
    public var pluginDigests: PluginDigests?
    /// The cancellers' latencies, measured once per eval; nil measures this run's.
    public var latencies: EchoControlLatencies?
    /// Told the share of the mic processed, once a second of audio.
    public var progress: ((Double) -> Void)?

    public init(item: RecordingItem, mode: EchoControlMode, outputDirectory: String, keepsOutput: Bool = true,
                renderer: (any ReportRenderer)?, cancellation: RunCancellation? = nil) {
        self.item = item
        self.mode = mode
        self.outputDirectory = outputDirectory
        self.keepsOutput = keepsOutput
        self.renderer = renderer
        self.cancellation = cancellation
    }

    /// The hidden name the output is written and scored under.
    static let scoredOutput = ".sent.wav.scored"
    /// The hidden name of the loopback of digital silence a near-end single-talk recording is
    /// measured against.
    static let silentLoopback = ".loopback.silent.wav"

    public func run() throws -> RunSummary {
        try OutputFolder.check(outputDirectory, holdsNone: item.inputs, of: item.name)
        // eval holds the folder the run goes into; the run's own folder is locked too, so that a
        // `run` or `process` writing there meanwhile fails this run, not both.
        return try OutputFolder.writing(into: outputDirectory, lockingFor: "eval", insideOwnFolder: true, runInto)
    }

    private func runInto() throws -> RunSummary {
        // Files that cannot be scored together (another rate, a length beyond the tolerance) fail
        // now, not after the whole recording went through the canceller; the headers' channel
        // counts say whether `channel` picks one (mono files are read as they are).
        let inputs = [item.loopback, item.mic, item.echo, item.nearEnd].compactMap { $0 }
        let channelCounts = item.loopback != nil ? try EchoAnalyzer.checkHeaders(inputs).headers.map(\.channels)
            : try inputs.map { try SoundFileReader(path: $0).channelCount }
        if keepsOutput { try OutputFolder.checkReplaceable(["sent.wav"] + RunOutput.reportFiles, in: outputDirectory) }
        let previous = OutputFolder.filesOfPreviousRun(in: outputDirectory)
        // What a run killed by a second signal left: the hidden files of a replacement, a partial
        // output or a scratch (regular files at names only EchoLab uses; unlink never takes a
        // folder).
        AtomicFile.removeLeftovers(of: ["sent.wav", Self.scoredOutput, Self.silentLoopback] + RunOutput.reportFiles, in: outputDirectory)
        let scratch = path(Self.scoredOutput)
        unlink(scratch)
        // The plugin file's SHA-256 as it is when the run starts, held open: checked after the
        // run to be the file the plugin ran from, unchanged (`PluginFile`).
        let pluginFile = mode.backend.plugin.map(PluginFile.init)
        let pluginDigest = pluginFile?.sha256
        if let plugin = mode.backend.plugin, let pluginDigest { try pluginDigests?.check(plugin, digest: pluginDigest) }
        // The output is written and scored under the hidden name; kept, it takes its place only
        // once scored, so a run stopped before that leaves the earlier run's sent.wav and report.
        let outcome = try RecordingProcessor(mode: mode, channel: item.channel, latencies: latencies)
            .process(mic: item.mic, reference: item.loopback, output: scratch, cancellation: cancellation, progress: progress)
        // Only the file this run wrote goes (a failed `process` leaves none).
        defer { unlink(scratch) }
        try pluginFile?.verify(loaded: outcome.pluginFiles)
        let duration = Double(outcome.frames) / Double(outcome.sampleRate)
        var metrics: EchoMetrics?
        var activity: [ActivityWindow] = []
        var corrections: InputCorrections?
        var tracksUnexplained: Double?
        var loopbackIsSilent = false, micIsSilent = false
        var lengthMismatch: LengthMismatch?
        var scores: [ScorerResult]?
        // Without a loopback the far end is silence, and the run is measured against it: left
        // unmeasured, a canceller that deletes a lone talker reads "—" in every mode and passes
        // unnoticed.
        let silentLoopback = item.loopback == nil ? try Self.writeSilence(like: item.mic, to: path(Self.silentLoopback)) : nil
        defer { if let silentLoopback { unlink(silentLoopback) } }
        if let loopback = item.loopback ?? silentLoopback {
            var analyzer = EchoAnalyzer()
            analyzer.gateDecisions = gateDecisions
            // A long recording's three readings stop at a signal as its processing does.
            if let cancellation { analyzer.isCancelled = { cancellation.isCancelled } }
            let analysis: EchoAnalysis
            do {
                analysis = try analyzer.analyzeFiles(reference: loopback, mic: item.mic, processed: scratch,
                                                     echo: item.echo, nearEnd: item.nearEnd, channel: item.channel)
            } catch is AnalysisCancelled {
                throw RunCancelled()
            }
            metrics = analysis.whole
            activity = ActivityWindow.windows(analysis.talkActivity, sampleRate: analysis.sampleRate, durationSeconds: duration)
            corrections = analysis.inputs?.corrections
            tracksUnexplained = analysis.inputs?.tracksUnexplainedDB
            loopbackIsSilent = analysis.inputs?.referenceIsSilent ?? false
            micIsSilent = analysis.inputs?.micIsSilent ?? false
            // The inputs' lengths where they differ (the output is the mic's length: not listed).
            lengthMismatch = analysis.lengthMismatch.map { mismatch in
                LengthMismatch(analysedSamples: mismatch.analysedSamples,
                               files: mismatch.files.filter { $0.file != scratch && $0.file != silentLoopback }.map { .init(file: InputFile.canonical($0.file), samples: $0.samples) })
            }
            if !scorers.isEmpty, item.loopback != nil {
                if cancellation?.isCancelled == true { throw RunCancelled() }
                // The output is aligned with the mic as written: nothing to skip.
                let tracks = FileTracks(sampleRate: analysis.sampleRate, length: analysis.sampleCount, reference: loopback, mic: item.mic,
                                        output: scratch, nearEnd: item.nearEnd, echo: item.echo, channel: item.channel)
                scores = RunScoring.score(tracks, talk: analysis.talkRuns, frameSize: analysis.frameSize,
                                          id: "\(item.name)/\(mode.folderName)", scorers: scorers, cancellation: cancellation)
            }
        }
        if item.loopback == nil, !scorers.isEmpty {
            // Near-end single talk without a loopback: what a scorer of echo would need is not there.
            scores = RunScoring.unscored(scorers, because: "the recording has no loopback to score against")
        }
        let channel = channelCounts.contains { $0 > 1 } ? item.channel : .monoOnly
        // The inputs where they really are (absolute, links resolved): relative ones would be
        // relative to a folder the report does not name (eval's working folder), one through a
        // link (`link/../x`) reads as another file when tidied as text; the players link these.
        let files = RecordingReport.Files(mic: InputFile.canonical(item.mic), sent: keepsOutput ? "sent.wav" : nil,
                                          loopback: item.loopback.map(InputFile.canonical), echo: item.echo.map(InputFile.canonical),
                                          nearEnd: item.nearEnd.map(InputFile.canonical))
        var report = RecordingReport(item: item.name, talkType: item.talkType, files: files, channel: channel, mode: mode.description,
                                     sampleRate: outcome.sampleRate, processingRate: outcome.processingRate,
                                     latencySamples: outcome.latencySamples, aecResets: outcome.divergenceResets,
                                     durationSeconds: duration, metrics: metrics)
        let hasLoopback = item.loopback != nil
        report.echoUnmeasuredReason = !hasLoopback ? RecordingReport.noLoopbackReason
            : metrics.flatMap { RunEvaluator.echoUnmeasuredReason($0, states: [], durationSeconds: duration,
                                                                referenceIsSilent: loopbackIsSilent, micIsSilent: micIsSilent) }
        if let reason = report.echoUnmeasuredReason { report.metrics?.sayWhyNoSingleTalk(reason) }
        // nil where the delay was measured.
        report.delayUnmeasuredReason = !hasLoopback ? RecordingReport.noLoopbackReason : metrics.flatMap { RunEvaluator.delayUnmeasuredReason($0) }
        report.echoOutsideDelaySearchMilliseconds = hasLoopback ? metrics.flatMap { RunEvaluator.echoOutsideDelaySearch($0) } : nil
        report.convergenceUnmeasuredReason = hasLoopback ? metrics.flatMap { RunEvaluator.convergenceUnmeasuredReason($0) } : nil
        report.lengthMismatch = lengthMismatch
        report.inputCorrections = corrections
        report.tracksUnexplainedDB = tracksUnexplained
        report.clippedMicSamples = outcome.clippedMicSamples
        report.clippedLoopbackSamples = item.loopback == nil ? nil : outcome.clippedLoopbackSamples
        report.adaptiveDecisions = outcome.adaptiveDecisions
        report.activity = activity
        report.findings = metrics.map { RequirementFindings.muting($0, durationSeconds: duration) } ?? []
        report.library = BackendLibrary.describe(mode, pluginName: outcome.pluginName, pluginDigest: pluginDigest)
        report.scores = scores
        // Everything is rendered before anything is put in place. The pages show the values as
        // report.json holds them: `merge` renders them again from it.
        let json = report.json()
        let pages = (renderer?.pages(of: try report.roundedAsPrinted(), folder: outputDirectory) ?? []).map { ($0.name, $0.render()) }
        let summary = try RunSummary(reading: json)
        // Scoring a long recording takes seconds and does not look at the signal: it is looked
        // at here, before anything of the run is put in place.
        if cancellation?.isCancelled == true { throw RunCancelled() }
        if keepsOutput { try AtomicFile.moveIntoPlace(scratch, to: path("sent.wav")) }
        // The report and its pages are one change (a full disk on one leaves all as they were).
        try AtomicFile.write([(path("report.json"), { write in try json.writeCanonicalText(to: write) })]
                             + pages.map { name, text in (path(name), { write in try write(text) }) })
        OutputFolder.removeStaleOutputs(in: outputDirectory, previous: previous, written: keepsOutput ? ["sent.wav"] : [])
        return summary
    }

    private func path(_ name: String) -> String { (outputDirectory as NSString).appendingPathComponent(name) }

    /// Digital silence as long as `file`, at its rate, written to `path` (16-bit: zeros either way).
    static func writeSilence(like file: String, to path: String) throws -> String {
        let reader = try SoundFileReader(path: file)
        let writer = try SoundFileWriter(path: path, sampleRate: reader.sampleRate, encoding: .pcm16)
        let zeros = [Float](repeating: 0, count: 32_768)
        var left = Int(reader.frameCount)
        while left > 0 {
            let frames = min(left, zeros.count)
            try writer.write(zeros, frames: frames)
            left -= frames
        }
        try writer.finish()
        return path
    }
}
