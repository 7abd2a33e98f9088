import Evaluation
import Foundation
import Simulation

// The "Hardware and session" section of report.md and report.html: what report.json's `hardware`
// holds, for a reader — the formats the devices granted and the latency they add, each route
// segment, and where audio was silenced or dropped while the session did not let it flow.
extension RunReportDocument {
    /// The section's blocks; none without a hardware model.
    static func hardwareBlocks(_ report: RunReport) -> [ReportDocument.Block] {
        typealias F = ReportFormatting
        guard let hardware = report.hardware else { return [] }
        let rate = Double(report.sampleRate)
        func milliseconds(_ frames: Int64?) -> String { F.number(frames.map { Double($0) * 1000 / rate }, digits: 1, unit: " ms") }
        func format(_ f: HardwareFormat) -> String {
            "\(f.sampleRate) Hz, \(f.ioBufferFrames) frames (\(F.number(f.ioBufferMilliseconds, digits: 2, unit: " ms")))"
        }
        var blocks: [ReportDocument.Block] = [.heading("Hardware and session", level: 2, id: "hardware")]
        var summary = "Granted at the start: input \(format(hardware.input)), output \(format(hardware.output)); "
            + "the hardware path adds \(milliseconds(hardware.addedLatencyFrames)) (capture + playout, rebuffered and resampled to the engine's 10 ms at \(report.sampleRate) Hz)"
        if hardware.clockDriftPPM != 0 {
            // The model runs the input device on its own clock (README "Clock drift").
            summary += " · the input device's clock runs \(F.number(hardware.clockDriftPPM, digits: 1)) ppm off the output's and the engine's"
        }
        summary += hardware.usesManualAudio ? " · manual audio (the app enables audio itself)." : "."
        blocks.append(.paragraph([.text(summary)]))

        blocks.append(.table(.init(header: ["from", "route", "input data source", "input", "output", "added latency"],
                                   rows: hardware.segments.map { segment in
            [.init(F.seconds(Double(segment.startFrame) / rate)), .init(segment.route, isNumeric: false),
             .init(segment.inputDataSource.rawValue, isNumeric: false), .init(format(segment.input), isNumeric: false),
             .init(format(segment.output), isNumeric: false), .init(milliseconds(segment.addedLatencyFrames))]
        })))

        let session = hardware.session
        let rows: [[ReportDocument.Cell]] = SilenceCause.allCases.map { cause in
            let silenced = session.captureSilenced[cause] ?? 0, dropped = session.playoutDropped[cause] ?? 0
            return [.init(Self.causeLabel(cause), isNumeric: false),
                    .init("\(silenced) (\(F.seconds(Double(silenced) / rate)))", value: Double(silenced)),
                    .init("\(dropped) (\(F.seconds(Double(dropped) / rate)))", value: Double(dropped))]
        }
        blocks.append(.table(.init(header: ["while the session", "mic samples silenced", "downlink samples not played"], rows: rows)))
        blocks.append(.paragraph([.text("\(count(hardware.inputCallbacks, "input callback")) and \(count(hardware.outputCallbacks, "output callback")) · "
            + "\(count(hardware.underruns, "stream underrun")) · \(count(hardware.droppedFrames, "sample")) dropped by a stream running over · "
            + "\(count(session.customMicFramesDiscarded, "custom mic sample")) discarded while audio did not flow.")]))
        if !report.captureRestarts.isEmpty {
            // What each restart dropped, and the talker in it: the near-end track passes through
            // the same stream, so no near-end figure can show this cut.
            blocks.append(.paragraph([.text("The input stream was made anew while it held captured audio, which it dropped "
                + "(as a phone's restarted audio unit drops it; a shorter I/O buffer holds less). The near end lost is the "
                + "dropped audio's 10 ms blocks where the talker spoke (at or above the near-end silence level; none where a file "
                + "mic or a mute sent no room then):")]))
            blocks.append(.table(.init(header: ["at", "why", "room audio dropped", "near end lost"],
                                       rows: report.captureRestarts.map { restart in
                [.init(F.seconds(restart.atSeconds)), .init(Self.restartLabel(restart.cause), isNumeric: false),
                 .init("\(F.number(restart.discardedMilliseconds, digits: 1, unit: " ms")) (\(F.seconds(restart.discardedFromSeconds))–\(F.seconds(restart.discardedUntilSeconds)))",
                       value: restart.discardedMilliseconds),
                 .init(F.number(restart.nearEndLostMilliseconds, digits: 1, unit: " ms"), value: restart.nearEndLostMilliseconds)]
            })))
        }
        return blocks
    }

    private static func restartLabel(_ cause: CaptureRestart.Cause) -> String {
        switch cause {
        case .routeChange: "route change"
        case .formatsGranted: "formats granted anew"
        case .audioStopped: "audio stopped (the stream's audio is dropped when it flows again)"
        }
    }

    private static func causeLabel(_ cause: SilenceCause) -> String {
        switch cause {
        case .inactive: "was not active"
        case .interrupted: "was interrupted"
        case .audioDisabled: "had audio disabled (manual audio)"
        }
    }
}
