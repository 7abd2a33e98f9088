/// The lint's findings over an eval's runs, for what is said of them in one place: each rule
/// once, in the order the runs (in plan order) first have it, with the runs that have it; and how
/// many runs have any. eval's stdout line, `eval --strict`'s line and eval.md's note read it, so
/// they name the same rules in the same order.
public struct LintTally: Sendable {
    /// Each rule with the runs that have it (a run once, however often its report lists the rule).
    public let rules: [(rule: String, runs: [CorpusRun.Result])]
    /// The runs with at least one lint finding.
    public let runsWithFindings: Int

    public init(_ results: [CorpusRun.Result]) {
        var order: [String] = [], runs: [String: [CorpusRun.Result]] = [:], affected = 0
        for result in results {
            var seen = Set<String>()
            let rules = (result.summary?.findings(of: .lint) ?? []).filter { seen.insert($0).inserted }
            if !rules.isEmpty { affected += 1 }
            for rule in rules {
                if runs[rule] == nil { order.append(rule) }
                runs[rule, default: []].append(result)
            }
        }
        rules = order.map { ($0, runs[$0]!) }
        runsWithFindings = affected
    }
}

extension LintTally {
    /// What `--strict` fails on: the lint's findings over the outcome's runs, but not
    /// `aec-disabled-with-real-devices` in a run that `--modes` turned the canceller off in — the
    /// reference run the eval asked for, not the app's choice (a corpus with `disabled` beside its
    /// modes could not pass --strict at all). Its report still lists the finding.
    public init(strictlyJudging outcome: CorpusRun.Outcome) {
        guard outcome.modes != nil else { self.init(outcome.results); return }
        self.init(outcome.results.map { result in
            guard result.mode?.intensity == .disabled, var summary = result.summary else { return result }
            var result = result
            summary.findings.removeAll { $0 == LintRule.aecDisabledWithRealDevices.rawValue }
            result.summary = summary
            return result
        })
    }
}
