import AudioCore
import EchoLabJSON
import Foundation
import Metrics
import Evaluation
import Simulation

/// `report.md` and `report.html` of a recording run through the canceller (`RecordingRun`):
/// its metrics, ERLE over time and per band, and players for the mic, the loopback and `sent.wav`
/// (when kept).
public enum RecordingReportDocument {
    /// The canceller's library (a plugin's name and SHA-256) and the rate it ran at where that is
    /// not the recording's, as a simulated run's page names them.
    static func canceller(_ report: RecordingReport) -> [ReportDocument.Span] {
        var said: [String] = []
        if let library = report.library { said.append(library) }
        if report.processingRate != report.sampleRate { said.append("run at \(report.processingRate) Hz") }
        return said.isEmpty ? [] : [.text(" (" + said.joined(separator: ", ") + ")")]
    }

    /// `folder`: where the pages are (the recording's own files are linked relative to it).
    public static func make(_ report: RecordingReport, folder: String) -> ReportDocument {
        typealias F = ReportFormatting
        let latencySamples = report.latencySamples, keepsOutput = report.files.sent != nil
        let output: [ReportDocument.Span] = keepsOutput
            ? [.code("sent.wav"), .text(" is aligned with the mic (\(latencySamples) samples of latency removed).")]
            : [.text("its output, aligned with the mic (\(latencySamples) samples of latency removed), was not kept (no taps).")]
        var blocks: [ReportDocument.Block] = [
            .paragraph([.text("A recording through the canceller (nothing simulated), mode "), .code(report.mode)] + canceller(report)
                       + [.text("; ")] + output + channelNote(report.channel)),
        ]
        if let mismatch = report.lengthMismatch {
            let lengths = mismatch.files.map { "\(($0.file as NSString).lastPathComponent) \($0.samples)" }.joined(separator: ", ")
            blocks.append(.note([.strong("The inputs differ in length:"),
                                 .text(" \(lengths) samples; the echo metrics are scored on the first \(mismatch.analysedSamples), where all of them play.")]))
        }
        if let unexplained = report.tracksUnexplainedDB, unexplained > InputCensus.tracksUnexplainedLimitDB {
            blocks.append(.note([.strong("The tracks do not add up to the mic:"),
                                 .text(" the echo and near-end tracks leave \(ReportFormatting.number(unexplained, digits: 1, unit: " dB")) of its power "
                                       + "unexplained (over \(ReportFormatting.number(InputCensus.tracksUnexplainedLimitDB, digits: 0, unit: " dB"))): "
                                       + "they are not what the mic holds (another gain, delay or file?), and the ERL, ERLE and near-end figures "
                                       + "read from them describe the tracks, not the recording.")]))
        }
        if let corrections = report.inputCorrections, !corrections.isEmpty {
            var made: [String] = []
            if let offset = corrections.micDCOffsetDBFS { made.append(String(format: "the mic's DC offset (%.1f dBFS) taken off", offset)) }
            if let offset = corrections.loopbackDCOffsetDBFS { made.append(String(format: "the loopback's DC offset (%.1f dBFS) taken off", offset)) }
            if let offset = corrections.processedDCOffsetDBFS {
                made.append(String(format: "the output's DC offset (%.1f dBFS) taken off", offset))
            }
            if let offset = corrections.echoDCOffsetDBFS { made.append(String(format: "the echo track's DC offset (%.1f dBFS) taken off", offset)) }
            if let offset = corrections.nearEndDCOffsetDBFS {
                made.append(String(format: "the near-end track's DC offset (%.1f dBFS) taken off", offset))
            }
            if let drift = corrections.clockDriftPPM {
                made.append(String(format: "the loopback resampled to the mic's clock (%+.1f ppm) to tell double talk", drift))
            }
            // The measurement's corrections, not the canceller's: a mic offset goes into it as
            // recorded, and the note alone would read as if it had been handled.
            let fed = (corrections.micDCOffsetDBFS ?? -.infinity) < RecordingProcessor.Outcome.dcOffsetWarningDBFS || report.mode == "disabled" ? ""
                : " The canceller was given the mic as recorded, offset and all: those without a high-pass filter of their own (echolab, webrtc) remove far less echo over one."
            blocks.append(.note([.strong("Corrected before measuring:"), .text(" " + made.joined(separator: "; ") + " (docs/metrics.md)." + fed)]))
        }
        if report.clippedMicSamples > 0 || (report.clippedLoopbackSamples ?? 0) > 0 {
            let seconds = String(format: "%.2f", report.durationSeconds)
            let counts = ["\(report.clippedMicSamples) mic"] + (report.clippedLoopbackSamples.map { ["\($0) loopback"] } ?? [])
            blocks.append(.note([.strong("The recording clipped:"),
                                 .text(" \(counts.joined(separator: " and ")) samples at full scale in \(seconds) s. "
                                       + "Clipped echo is not linear: no canceller's filter models it, and the echo metrics below are uncertain.")]))
        }
        for finding in report.findings {
            blocks.append(.note([.strong(finding.rule), .text(" (a telephony requirement): \(finding.message). Measured: \(finding.consequence).")]))
        }
        if let metrics = report.metrics {
            blocks.append(.table(.init(header: ["metric", "value"], rows: [
                [.init("ERL"), .init(F.counted(metrics.erlDB, isLowerBound: metrics.erlIsLowerBound, frames: metrics.erlFrames))],
                [.init("ERLE (whole recording)"),
                 .init(F.counted(metrics.erleDB, isLowerBound: metrics.erleIsLowerBound, frames: metrics.gate.singleTalkFrames))],
                [.init("ERLE steady state"),
                 .init(F.counted(metrics.erleSteadyDB, isLowerBound: metrics.erleSteadyIsLowerBound, frames: metrics.erleSteadyFrames))],
                [.init("convergence"), .init(F.seconds(metrics.convergenceSeconds, isLowerBound: metrics.convergenceIsLowerBound)
                                             + (report.convergenceUnmeasuredReason.map { " (\($0))" } ?? "")
                                             + (metrics.convergenceSeconds != nil && metrics.convergenceIsLowerBound ? RunReportDocument.convergenceAtFloorNote : ""))],
                [.init("bulk delay loopback→mic"), .init(F.number(metrics.delayMilliseconds, digits: 2, unit: " ms"))],
                [.init("activity gate"), .init([.code(metrics.gate.method.rawValue),
                                                .text(": \(metrics.gate.singleTalkFrames) single-talk of \(metrics.gate.frames) analysis frames, "
                                                      + "\(metrics.gate.doubleTalkFrames) double-talk" + Self.limitationNote(metrics.gate.limitation))])],
            ] + RunReportDocument.nearEndRows(metrics.nearEnd, estimate: metrics.nearEndEstimate,
                                                                farEndPlayed: metrics.gate.farEndActiveFrames > 0))))
            if let reason = report.echoUnmeasuredReason {
                blocks.append(.note([.text("\(metrics.erlDB == nil ? "No ERL or ERLE" : "No ERLE"): \(reason).")]))
            } else if let reason = report.delayUnmeasuredReason {
                blocks.append(.note([.text(RunReportDocument.noDelayNote(reason))]))
            }
            if let note = RunReportDocument.boundNote(metrics) { blocks.append(.paragraph([.text(note)])) }
            // As a call's plot, with the talk the gate heard under it: on a recording without
            // tracks the tap-free gate's, which every figure here rests on.
            blocks.append(.timeChart(RunReportDocument.erleChart(metrics, durationSeconds: report.durationSeconds,
                                                                 activity: report.activity, namesWindows: false)))
            blocks.append(.bandChart(.init(title: "ERLE per octave band", yLabel: "ERLE (dB)", bands: metrics.erleBands.map { ($0.lowHz, $0.highHz) },
                                           series: [.init(name: "ERLE", values: metrics.erleBands.map(\.erleDB), lowerBounds: metrics.erleBands.map(\.isLowerBound))],
                                           emptyNote: RunReportDocument.noERLENote(singleTalkFrames: metrics.gate.singleTalkFrames, what: "band"))))
            if let note = RunReportDocument.unmeasuredBandsNote(metrics.erleBands) { blocks.append(.paragraph([.text(note)])) }
            blocks += TelephonyBlocks.make(metrics.telephony)
        } else {
            blocks.append(.note([.text("No loopback (near-end single talk): no echo metric to measure.")]))
        }
        blocks += ScoreBlocks.run(report.scores)
        blocks += RunReportDocument.adaptiveBlocks(report.adaptiveDecisions, sampleRate: report.processingRate)
        blocks += [.heading("Listen", level: 2, id: "listen"),
                   .audio(clips(mic: report.files.mic, loopback: report.files.loopback, keepsOutput: keepsOutput, folder: folder))]
        return ReportDocument(title: "\(report.item) — \(report.mode)", blocks: blocks)
    }

    /// The report's players, in its order, linked from `folder` (the run's): the recording's own
    /// mic and loopback, and the output when it was kept.
    private static func clips(mic: String, loopback: String?, keepsOutput: Bool, folder: String) -> [ReportDocument.AudioClip] {
        var clips = [ReportDocument.AudioClip(label: "mic (recording)", path: EvalReportDocument.relativePath(from: folder, to: mic))]
        if let loopback {
            clips.append(.init(label: "loopback (far end)", path: EvalReportDocument.relativePath(from: folder, to: loopback)))
        }
        if keepsOutput { clips.append(.init(label: "sent (canceller output)", path: "sent.wav")) }
        return clips
    }

    /// Which channel of multichannel files was measured (nothing for mono files).
    private static func channelNote(_ channel: ChannelSelection) -> [ReportDocument.Span] {
        switch channel {
        case .monoOnly: []
        case .downmix: [.text(" Multichannel files were downmixed (all channels averaged).")]
        case .channel(let index): [.text(" Channel \(index) (counted from 0) of multichannel files was measured.")]
        }
    }

    /// Why the tap-free gate scored no frame, as a clause of the gate's row ("" when it scored).
    static func limitationNote(_ limitation: ActivityGateLimitation?) -> String {
        switch limitation {
        case .echoNotExplained?: "; the fitted echo path does not explain the echo (a non-linear loudspeaker?), so no frame is scored"
        case .echoOutsideDelaySearch?: "; the echo is not within the delay search's range of the loopback (it leads it, or lags it by more), so no frame is scored"
        case .tooShortToFit?: "; the recording is too short to fit its echo path, so no frame is scored"
        case nil: ""
        }
    }
}
