import ArgumentParser
import Foundation
import Evaluation
import Metrics
import Reporting
import ScenarioFiles
import Simulation

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Simulate one call from a scenario file and write its taps and reports.",
        discussion: """
        Writes into the output folder: the taps mic.wav, reference.wav, echo.wav and sent.wav (plus \
        near.wav and played.wav with --all-taps, none with --no-taps), report.json, report.md and \
        report.html (with --scorer, the scorers' scores of the call per talk type: docs/scorers.md). Files appear only whole (written under hidden names, then moved into place); on \
        error nothing new is left behind. The output folder must not hold the scenario or any file it \
        reads; files of an earlier run there are replaced, and deleted only if that run's report.json \
        lists them as its own. The folder is locked while the run writes it: a run or an eval into a folder another is \
        writing is refused (exit 1) and touches nothing. Exit codes: 0 success; 1 bad input or a failed run; 3 lint findings with \
        --strict; 64 usage error; 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (nothing new left behind).
        """
    )

    @Argument(help: "The scenario file (JSON; see docs/scenarios.md).")
    var scenario: String

    @Option(name: .shortAndLong, help: "Output folder (created if needed; must not hold the scenario or a file it reads).")
    var out: String

    @Flag(exclusivity: .exclusive)
    var taps: TapChoice?

    @Flag(help: "Exit with code 3 when the lint finds a broken AEC rule (without it, findings are reported and the exit code is 0). A missed telephony requirement (echo-loss-below-ts26131) and the canceller's own findings (echo-leak-after-route-change, echo-leak-after-mic-switch, clock-drift-not-followed) are reported as findings but are not the lint's: they leave the exit code alone. So does aec-disabled-with-real-devices where --aec turned the canceller off (the reference run asked for).")
    var strict = false

    @Option(help: ArgumentHelp("Run in this AEC mode instead of the scenario's own aec (without it, the scenario's); a --plugin's as NAME:INTENSITY.",
                               discussion: "The scenario's filter_ms goes with its aec. A timeline set_aec that enables the canceller takes the mode's intensity; one that disables it stays.",
                               valueName: "mode"))
    var aec: AECModeArgument?

    @OptionGroup
    var plugins: PluginOptions

    @OptionGroup
    var scoring: ScorerOptions

    func validate() throws {
        _ = try scoring.resolved
        _ = try aec?.value(plugins: plugins.resolved)
        guard !scenario.isEmpty else { throw ValidationError("the scenario file is an empty string") }
        guard !out.isEmpty else { throw ValidationError("--out must name a folder (got an empty string)") }
    }

    func run() throws {
        Interrupts.install()
        // A plugin's file as the run found it: a failure after it changed under the run says so.
        let pluginDigests = PluginDigests(command: "run")
        do {
            let written = try ScenarioLoader.load(path: scenario)
            if aec == nil, let own = written.voiceProcessing.backend.plugin {
                // The scenario runs with its own plugin: a --plugin of that name must be the same.
                var names = PluginNames(registered: try plugins.resolved)
                try names.admit(own, from: scenario)
            }
            let loaded = try aec.map { written.running(try $0.value(plugins: plugins.resolved)) } ?? written
            if aec != nil, let own = written.filterMillisecondsReplaced(by: loaded.echoControlMode) {
                standardError("echolab run: warning: --aec replaces the scenario's aec, its filter_ms too: \(scenario)'s \(own) ms is not used (run it without --aec to keep it)")
            }
            for line in try plugins.unusedWarnings(backends: [loaded.voiceProcessing.backend.name], command: "run", option: "--aec") { standardError(line) }
            let progress = ProgressLine(label: loaded.name)
            if let plugin = loaded.voiceProcessing.backend.plugin { pluginDigests.record(plugin) }
            var output = RunOutput(scenario: loaded, outputDirectory: out, taps: TapChoice.selection(taps), renderer: ReportPages(),
                                   cancellation: Interrupts.cancellation,
                                   progress: progress.isEnabled ? { done in
                                       progress.update(fraction: done.fraction, detail: String(
                                           format: "%.0f of %.0f s, %.0f× real time", done.callSeconds, done.totalSeconds,
                                           done.callSeconds / max(progress.elapsedSeconds, 1e-9)))
                                   } : nil)
            output.pluginDigests = pluginDigests
            output.scorers = try scoring.processes()
            // A second run or an eval into the folder is refused by name, not spliced.
            output.lockingFor = "run"
            defer { for scorer in output.scorers { scorer.stop() } }
            let report: RunReport
            do {
                report = try output.run()
                progress.finish()
            } catch is RunCancelled {
                progress.finish()
                standardError("echolab: \(scenario): interrupted; nothing written")
                throw ExitCode(Interrupts.exitCode ?? 130)
            }
            ScorerOptions.warnUnscored(report.scores, command: "run")
            let m = report.metrics
            // What went wrong in the pipeline, said where the run is summed up, not only in the report.
            func count(_ n: Int, _ noun: String, _ place: String = "") -> String? { n > 0 ? "\(n) \(noun)\(n == 1 ? "" : "s")\(place), " : nil }
            let pipeline = [count(Int(report.pipeline.underruns), "underrun"), count(Int(report.pipeline.overruns), "overrun"),
                            count(report.sentClicks, "click", " in the sent audio"),
                            count(report.sentGaps, "gap", " in the sent audio"),
                            // The hardware model's streams: a drifting mic's buffer running dry
                            // or over, a restart that cut the near talker.
                            count(report.hardware?.underruns ?? 0, "stream underrun"),
                            count(Int(report.hardware?.droppedFrames ?? 0), "sample", " dropped by a stream running over"),
                            count(report.captureRestarts.filter(\.cutsTheNearEnd).count, "near-end cut")].compactMap { $0 }.joined()
            // Figures against a reference the app left silent stand on the rest of the call alone.
            let silentReference = report.silentReferenceSeconds
            let scope = silentReference > 0 ? "; not measured over the \(ReportFormatting.seconds(silentReference)) the canceller's reference was silent" : ""
            // As report.md prints them, from the values report.json holds ("≥" where the figure is
            // a bound): a raw 9.04996 dB would read 9.0 here beside report.md's 9.1. A figure on
            // too few frames says so, as the report does: it counts in no verdict.
            func db(_ value: Double?, _ isLowerBound: Bool, frames: Int) -> String {
                ReportFormatting.figure(value, isLowerBound: isLowerBound, frames: frames)
            }
            print(printable("\(loaded.name): ERL \(db(m.erlDB, m.erlIsLowerBound, frames: m.erlFrames)), "
                  + "ERLE \(db(m.erleDB, m.erleIsLowerBound, frames: m.gate.singleTalkFrames)) "
                  + "(steady \(db(m.erleSteadyDB, m.erleSteadyIsLowerBound, frames: m.erleSteadyFrames))\(scope)), "
                  + "\(Self.findingsText(report.findings)), \(pipeline)"
                  + "\(String(format: "%.0f", report.realtimeFactor))× real time → \(out)/report.md"))
            for line in ScorerOptions.lines(report.scores ?? []) { print(printable(line)) }
            // As eval --strict: aec-disabled-with-real-devices in a run --aec turned the canceller
            // off in is the reference run asked for, not the app's choice (its report still lists
            // it); `run --aec disabled --strict` exited 3 where the same eval exited 0.
            let turnedOff = aec != nil && loaded.echoControlMode.intensity == .disabled
            let lint = report.findings.filter { $0.kind == .lint && !(turnedOff && $0.rule == LintRule.aecDisabledWithRealDevices.rawValue) }
            if strict && !lint.isEmpty {
                standardError("echolab: \(lint.count) lint finding\(lint.count == 1 ? "" : "s") in \(out)/report.md: "
                              + lint.map(\.rule).joined(separator: ", "))
                throw ExitCode(3)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            throw CommandFailure.exit(pluginDigests.noting(error))
        }
    }

    /// "2 findings", and which are not the lint's where some are not: a missed telephony
    /// requirement or the canceller's own finding is reported, but --strict does not fail on it,
    /// and "1 finding" with exit 0 under --strict read as a bug.
    static func findingsText(_ findings: [RunReport.Finding]) -> String {
        let lint = findings.filter { $0.kind == .lint }.count
        let count = "\(findings.count) finding\(findings.count == 1 ? "" : "s")"
        if lint == findings.count { return count }
        return count + (lint == 0 ? " (not the lint's)" : " (\(lint) of them the lint's)")
    }
}
