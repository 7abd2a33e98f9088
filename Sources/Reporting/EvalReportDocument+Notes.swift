import AudioInterop
import EchoLabJSON
import Foundation
import Metrics
import Evaluation
import Simulation

/// The notes under eval.md's and eval.html's Modes table: what a mean rests on, and the runs a
/// reader must know of before trusting a column (lint findings, clipped recordings, cancellers
/// run below the call's rate, echo outside the delay search, the libraries measured).
extension EvalReportDocument {
    /// What the Modes table's columns rest on, under it: a mean over fewer runs than the mode ran
    /// (the "N of M runs"), and what convergence is, and why a mode may have none.
    static func modesTableNotes() -> [ReportDocument.Block] {
        let opening = "Each dB mean and median is over the mode's runs that have a value on at least "
            + "\(FigureConfidence.minimumAnalysisFrames) analysis frames; where that is not all of them, the mean says over how many runs (\"3 of 5\"), "
            + "so two modes' means may stand on different items. "
            + "Convergence is the first ERLE window from which ERLE stays within ±3 dB of its steady state, two windows at least (docs/metrics.md), "
            + "none where the steady ERLE is 6 dB or less (disabled, or a canceller that failed): nothing converged; "
            + "none in the median for a run with no canceller there (one that muted, or ran below the call's rate and removed no echo in its band: "
            + "notes below), whose figure is how fast a floor or a dropped band settled; "
            + "none either where the ERLE had not settled for two windows when the call ended, or where a bound at the mic's floor "
            + "leaves it unknown (each run's report says which, in "
        // A key is code: inside the text the writers would escape its backticks, and the page show them.
        let closing = "); its median is over the runs that have one, and says over how many where that is not all of them; "
            + "≥ marks a lower bound: a run's convergence where its steady ERLE or a window from then on is a bound at the mic's floor "
            + "(it may have settled later), or a median such a run can move. "
            + "p10 is steady ERLE's 10th percentile (the worst tenth of the runs). Near-end distortion is the output's difference "
            + "from the near end in double talk, residual echo included (lower is better): with no canceller it is the echo's level "
            + "against the talker's, so a mode is better than none there only under disabled's (a pass-through reads the same). "
            + "The near-end attenuation's mean and median "
            + "are over each run's departure, either way: a talker sent louder than it spoke (an automatic gain control's gain) is as "
            + "far from kept as one cut by as much, and does not cancel another item's cut. Pipeline issues are "
            + "underruns, overruns, clicks and gaps in the sent audio (not a mute's or a stopped audio unit's silence: sent on purpose, its run's events say when; nor a new input stream's priming, listed with its restart), canceller resets, buffers "
            + "that lost audio, and near talkers cut where the hardware's input stream was made anew (a route change drops what it held); lint findings are the AEC rules' (a missed telephony requirement is counted in the table below)."
        return [.paragraph([.text(opening), .code("convergence_unmeasured"), .text(closing)])]
    }

    /// The modes whose runs muted rather than cancelled, with how many: silence sent while the far
    /// end talked alone, or the room's own sound cut where neither side talked. Such a run's ERLE is
    /// a bound at the noise floor and its convergence tells only how that floor moved (left out of
    /// the convergence median, `EvalDocument.isNoCanceller`), so the table alone reads a muting
    /// canceller as the best one, with no lint finding, and names nothing that it muted.
    static func silentSendNote(modes: [EchoControlMode], results: [CorpusRun.Result]) -> String? {
        let counts = modes.compactMap { mode -> String? in
            let ran = results.filter { $0.mode == mode }.compactMap(\.summary)
            let silent = ran.filter { $0.findings.contains(where: RequirementFindings.mutingRules.contains) }.count
            return silent > 0 ? "\(mode.description) in \(silent) of \(ran.count) run\(ran.count == 1 ? "" : "s")" : nil
        }
        guard !counts.isEmpty else { return nil }
        return "Sent silence while the far end talked alone (\(RequirementFindings.silentSendRule)), or cut the room's own sound where "
            + "neither side talked (\(RequirementFindings.mutedRoomRule)): " + counts.joined(separator: "; ")
            + ". Such a run's ERLE is a bound at the noise floor and its convergence tells only how that floor moved (it is left out of the "
            + "convergence median): it cut the line instead of the echo, and wins no item where it did so."
    }

    /// The lint's findings, rule by rule, with the items that have them grouped by the modes they
    /// have them in ("every mode", "every mode but disabled", or the modes named): the Modes
    /// table only counts the runs with findings, which leaves a CI log or a reader of eval.md no
    /// rule to look up. nil where no run has one.
    static func lintFindingsNote(_ outcome: CorpusRun.Outcome) -> String? {
        let results = outcome.results
        let tally = LintTally(results)
        guard !tally.rules.isEmpty else { return nil }
        // What --strict leaves out said where it leaves something out: "--strict fails on them"
        // stood beside aec-disabled-with-real-devices in disabled, and eval --strict exited 0.
        let strictRuns = LintTally(strictlyJudging: outcome).runsWithFindings
        let strictly = strictRuns == tally.runsWithFindings ? "eval --strict fails on them"
            : "eval --strict fails on them but for \(LintRule.aecDisabledWithRealDevices.rawValue) in the runs --modes turned the canceller off in, "
                + "the reference the eval asked for: \(strictRuns) of the \(tally.runsWithFindings) runs"
        let ran = Dictionary(grouping: results, by: \.item).mapValues { $0.map { $0.modeName } }
        func which(_ those: [String], of item: String) -> String {
            let all = ran[item] ?? []
            if those.count == all.count, all.count > 1 { return "every mode" }
            let others = all.filter { !those.contains($0) }
            if others == ["disabled"], those.count > 1 { return "every mode but disabled" }
            return those.joined(separator: ", ")
        }
        return "Lint findings (the app's audio setup against the guides' AEC rules; \(strictly)): "
            + tally.rules.map { rule, runs in
                var items: [String] = [], modes: [String: [String]] = [:]
                for run in runs {
                    if modes[run.item] == nil { items.append(run.item) }
                    modes[run.item, default: []].append(run.modeName)
                }
                var groups: [String] = [], grouped: [String: [String]] = [:]
                for item in items {
                    let key = which(modes[item]!, of: item)
                    if grouped[key] == nil { groups.append(key) }
                    grouped[key, default: []].append(item)
                }
                return rule + " " + groups.map { "in \($0): " + grouped[$0]!.joined(separator: ", ") }.joined(separator: "; ")
            }.joined(separator: "; ") + "."
    }

    /// The canceller's own findings (an echo leak after a route change: its behaviour, which no
    /// app setup avoids), rule by rule with the runs that have them, counted apart from the lint
    /// and from the pipeline's issues; nil where no run has one. Without it eval.md never names
    /// the leak a route-change corpus is run to catch.
    static func cancellerFindingsNote(_ results: [CorpusRun.Result]) -> String? {
        var rules: [String] = [], runs: [String: [String]] = [:]
        for result in results {
            for rule in result.summary?.findings(of: .canceller) ?? [] {
                if runs[rule] == nil { rules.append(rule) }
                let run = "\(result.item) (\(result.modeName))"
                if runs[rule]?.contains(run) != true { runs[rule, default: []].append(run) }
            }
        }
        guard !rules.isEmpty else { return nil }
        return "The canceller's own findings (its behaviour, not the app's setup; not counted as lint findings or pipeline issues): "
            + rules.map { rule in
                let list = runs[rule]!
                return "\(rule) in \(list.count) run\(list.count == 1 ? "" : "s"): " + list.joined(separator: ", ")
            }.joined(separator: "; ") + "."
    }

    /// The items whose echo lay outside the delay search — before the reference (a loopback
    /// recorded late, which no canceller can follow) or beyond its reach: their cells and wins
    /// are ranked with the others, and otherwise only a run's page says why. nil where none.
    /// A recording's echo out of range is a loopback recorded late or the files swapped (no
    /// canceller follows an echo that leads), or a path longer than the search; a simulated
    /// call's is its scenario's delay with the devices' latencies (a simulation's loopback is
    /// never late, so its item must not read "a loopback recorded late").
    static func echoOutsideSearchNote(_ results: [CorpusRun.Result]) -> String? {
        var recordings: [String] = [], calls: [String] = [], range = 0.0
        for result in results {
            guard let summary = result.summary, let outside = summary.echoOutsideDelaySearchMilliseconds,
                  !recordings.contains(result.item), !calls.contains(result.item) else { continue }
            if summary.pipeline == nil { recordings.append(result.item) } else { calls.append(result.item) }
            range = outside
        }
        guard !recordings.isEmpty || !calls.isEmpty else { return nil }
        var parts: [String] = []
        if !recordings.isEmpty {
            parts.append("on " + recordings.joined(separator: ", ") + " it leads the loopback (a loopback recorded late, or mic and loopback "
                         + "swapped: no canceller can follow it) or lags it by more (beyond a canceller's reach too)")
        }
        if !calls.isEmpty {
            parts.append("on " + calls.joined(separator: ", ") + " the scenario's echo path delay, with the devices' latencies, puts it past "
                         + "the search (beyond a canceller's reach too)")
        }
        return "The echo lies outside the 0–\(Int(range)) ms delay search of its reference: " + parts.joined(separator: "; ")
            + ". Those items' figures and wins say how the modes coped with an echo they could not place."
    }

    /// The recordings whose measured echo delay lies past a mode's reach (`EchoReach`), with the
    /// modes: a simulated call has the lint's `echo-delay-beyond-filter` for it, a recording has
    /// nothing else, and a 300 ms echo leaves speex at 0.4 dB of steady ERLE without a word. nil
    /// where none.
    static func delayBeyondReachNote(_ results: [CorpusRun.Result]) -> String? {
        var items: [(item: String, delay: Double, modes: [String])] = []
        for result in results {
            guard let summary = result.summary, summary.pipeline == nil, let mode = result.mode,
                  let delay = summary.metrics?.delayMilliseconds, let reach = EchoReach.milliseconds(for: mode), delay > reach else { continue }
            let short = "\(mode.description) (\(ReportFormatting.number(reach, digits: 0)) ms)"
            if let index = items.firstIndex(where: { $0.item == result.item }) { items[index].modes.append(short) }
            else { items.append((result.item, delay, [short])) }
        }
        guard !items.isEmpty else { return nil }
        return "Recordings whose echo arrives later than a mode's filter reaches (no canceller removes what its filter does not span): "
            + items.map { "\($0.item), \(ReportFormatting.number($0.delay, digits: 0)) ms: " + $0.modes.joined(separator: ", ") }.joined(separator: "; ")
            + ". Those modes' figures there measure the reach, not the canceller."
    }

    /// Where the corpus holds recordings: what their runs' pipeline issues count. The Modes table's
    /// note names clicks and gaps in the sent audio, which a recording's run does not measure, and
    /// a canceller that dropped 30 ms every 2 s of a recording read "0 runs with pipeline issues".
    static func recordingPipelineNote(_ results: [CorpusRun.Result]) -> String? {
        let recordings = results.filter { $0.summary?.recordingHealth != nil }.count
        guard recordings > 0 else { return nil }
        return "Runs of recordings (\(recordings) of \(results.count) runs) count only canceller resets as pipeline issues: clicks and "
            + "gaps in a recording's output are not measured (its report has no sent_clicks or sent_gaps), so a canceller that drops "
            + "audio or clicks there reads as a healthy pipeline."
    }

    /// The recordings whose mic or loopback reached full scale, with how many samples: a clipped
    /// echo is no longer the loopback's linear image, so every canceller's figures there stand on
    /// an echo none can fully remove, and without echo and near-end tracks the gate that finds
    /// double talk misreads it (6.86 % of a mic clipped reads 81 single-talk frames for 535, and
    /// turns which mode is best). Otherwise only a run's health cell says so; nil where none clipped.
    static func clippedRecordingsNote(_ results: [CorpusRun.Result]) -> String? {
        var items: [String] = []
        var said = Set<String>()
        for result in results {
            guard let health = result.summary?.recordingHealth, health.isClipped, said.insert(result.item).inserted else { continue }
            let parts = [health.clippedSamples.mic > 0 ? "mic: \(InputCensus.samples(health.clippedSamples.mic))" : nil,
                         (health.clippedSamples.loopback ?? 0) > 0 ? "loopback: \(InputCensus.samples(health.clippedSamples.loopback!))" : nil]
            items.append("\(result.item) (" + parts.compactMap { $0 }.joined(separator: ", ") + " at full scale)")
        }
        guard !items.isEmpty else { return nil }
        return "Recordings that clipped: " + items.joined(separator: ", ") + ". A clipped echo is not the loopback's linear image: "
            + "no canceller removes all of it, and without echo and near-end tracks the gate that finds double talk misreads it, so "
            + "read these items' figures and verdicts with care."
    }

    /// The backends whose canceller runs below the rate of a call or recording it ran on,
    /// resampled around: the band above half its rate is never sent, and reads as echo removed in
    /// their ERLE, its convergence and their wins (a pass-through plugin at 8 kHz stands best on
    /// both axes of a white-noise corpus, with 8.2 dB of ERLE). nil where none does.
    /// Those that removed no echo in the band they run in (`EvalDocument.removesNoEchoInItsBand`)
    /// are named with the runs they did so in: those runs stand on no front, which their ERLE
    /// alone would not say.
    static func bandLimitedNote(_ results: [CorpusRun.Result]) -> String? {
        var backends: [EchoCancellerBackend] = [], rates: [EchoCancellerBackend: Int] = [:]
        var runs: [EchoCancellerBackend: (none: Int, all: Int)] = [:]
        for result in results {
            // A 16 kHz recording loses nothing to a 16 kHz canceller.
            guard let backend = result.mode?.backend, let rate = result.bandLimitedCancellerRate else { continue }
            if !backends.contains(backend) { backends.append(backend) }
            rates[backend] = rate
            guard let bands = result.summary?.metrics?.erleBands else { continue }
            let none = EvalDocument.removesNoEchoInItsBand(bands, cancellerRate: rate)
            runs[backend, default: (0, 0)] = (runs[backend, default: (0, 0)].none + (none ? 1 : 0), runs[backend, default: (0, 0)].all + 1)
        }
        guard !backends.isEmpty else { return nil }
        let named = backends.map { "\($0.name) at \(rates[$0]! / 1000) kHz" }.joined(separator: ", ")
        var note = "Cancellers run below the call's rate (\(named)) never send the band above half their rate, and what was there "
            + "reads as echo removed, in their ERLE, convergence and wins: about 10·log10(24 kHz over half the rate) on a far end "
            + "with as much power up there as below (white noise: 4.8 dB at 16 kHz, 7.8 dB at 8 kHz, a little more with the "
            + "resampler's roll-off), a few hundredths of a dB on speech; a 48 kHz call's near end loses that band too."
        let removedNone = backends.compactMap { backend -> String? in
            guard let count = runs[backend], count.none > 0 else { return nil }
            return "\(backend.name) (\(count.none) of \(count.all) runs)"
        }
        if !removedNone.isEmpty {
            note += " Removed no echo in the band it runs in (every octave band under a quarter of its rate reads 0.0 dB): "
                + removedNone.joined(separator: ", ") + "; no canceller there, those runs stand on no front and have no convergence in the median."
        }
        return note
    }

    /// What each backend's runs were measured with (eval.json's per-run `library`: a library and
    /// its version, a plugin's name and SHA-256), so that a page read without eval.json says what
    /// it measured; a backend whose runs name several (merged shards of two builds) lists each.
    /// A failed run's canceller counts too (a plugin that crashed: which build crashed is what
    /// its author needs). nil where no run names one.
    static func librariesNote(_ results: [CorpusRun.Result]) -> String? {
        var order: [String] = [], libraries: [String: [String]] = [:]
        func digest(_ library: String) -> Substring? { library.range(of: "sha256 ").map { library[$0.upperBound...] } }
        let ranDigests = Set(results.compactMap { $0.summary?.library.flatMap(digest) })
        for result in results {
            guard let backend = result.mode?.backend.name, let library = result.summary?.library ?? result.library else { continue }
            // A failed run knows its plugin by the name it was registered under; a run of the same
            // file that ran names it as the plugin names itself: one build, named once.
            if result.summary == nil, let failed = digest(library), ranDigests.contains(failed) { continue }
            if libraries[backend] == nil { order.append(backend) }
            if libraries[backend]?.contains(library) != true { libraries[backend, default: []].append(library) }
        }
        guard !order.isEmpty else { return nil }
        return "Measured with: " + order.map { "\($0): \(libraries[$0]!.joined(separator: " and "))" }.joined(separator: "; ") + "."
    }

    /// The bands the item's runs give no ERLE in, with the runs' own reason and the modes it holds
    /// for ("every mode" where all): an empty slot in the band chart says nothing by itself.
    static func unmeasuredBandsNote(_ ran: [CorpusRun.Result]) -> String? {
        let withBands = ran.filter { ($0.summary?.metrics?.erleBands.contains { $0.erleDB != nil }) == true }
        let lines = reasonsByMode(withBands) { result in
            (result.summary?.metrics?.erleBands ?? []).compactMap { band in
                band.unmeasuredReason.map { "\(RunReportDocument.bandName(band)): \($0)" }
            }
        }
        return lines.isEmpty ? nil : "No ERLE in " + lines.joined(separator: "; ") + "."
    }

    /// Each reason the runs give (`reasons`), once, with the modes it holds for ("every mode"
    /// where it holds for `modeCount` runs: all of `runs` unless said), in the order first given.
    static func reasonsByMode(_ runs: [CorpusRun.Result], ofModes modeCount: Int? = nil,
                              _ reasons: (CorpusRun.Result) -> [String]) -> [String] {
        var grouped: [(reason: String, modes: [String])] = []
        for result in runs {
            let mode = result.modeName
            for text in reasons(result) {
                if let index = grouped.firstIndex(where: { $0.reason == text }) { grouped[index].modes.append(mode) } else { grouped.append((text, [mode])) }
            }
        }
        let all = modeCount ?? runs.count
        return grouped.map { "\($0.reason) (\($0.modes.count == all ? "every mode" : $0.modes.joined(separator: ", ")))" }
    }

    /// Why an item's runs have no steady ERLE (and, with `nearEnd`, no near-end attenuation in
    /// double talk), in their reports' own words (`echo_unmeasured`; the telephony double talk's
    /// reason), each reason once with the modes it holds for ("every mode" where all): nil where
    /// every run has both, or says nothing.
    static func unmeasuredReasons(_ results: [CorpusRun.Result], nearEnd: Bool) -> [String]? {
        let ran = results.filter { $0.summary != nil }
        func grouped(_ what: String, _ reason: (CorpusRun.Result) -> String?) -> [String] {
            reasonsByMode(ran) { result in reason(result).map { ["\(what): \($0)"] } ?? [] }
        }
        let erle = grouped("no steady ERLE") { result in
            result.summary?.metrics?.erleSteadyDB == nil ? result.summary?.echoUnmeasuredReason : nil
        }
        let attenuation = !nearEnd ? [] : grouped("no near-end attenuation") { result in
            // A lone talker's figure stands in its cell ("alone"): nothing is missing there.
            guard let m = result.summary?.metrics, let n = m.nearEnd, n.attenuationDB == nil, result.summary?.nearEndAlone == nil else { return nil }
            return m.telephony?.doubleTalkUnmeasuredReason
        }
        return erle.isEmpty && attenuation.isEmpty ? nil : erle + attenuation
    }
}
