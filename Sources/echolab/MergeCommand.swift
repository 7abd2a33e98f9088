import ArgumentParser
import AudioInterop
import Foundation
import Evaluation
import Reporting

/// Joins the outputs of `eval --shard 1/N … N/N` (CI-matrix jobs, Kubernetes Indexed Job pods).
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the output folders of eval --shard 1/N … N/N into what one unsharded eval writes.",
        discussion: """
        Each SHARD is a folder written by `echolab eval --shard K/N` (or its eval.json). Every shard of the plan must be \
        given once, from one `eval --shard` command: one corpus given by the same paths, one --modes and one EchoLab \
        build (each shard's eval.json names its whole plan; shards of another plan are refused). OUT gets each run's \
        folder (ITEM/MODE/, copied) and eval.json, eval.md and eval.html recomputed over all runs: byte-identical to an \
        unsharded run's but for timing. OUT is locked while it is written, as eval locks its own. The runs are copied \
        into a hidden folder in OUT first: a merge that fails leaves OUT's runs as they were and removes its earlier \
        eval.json, eval.md and eval.html, as an eval that runs nothing does, since its exit status, 1, is also a merge's \
        with failed runs (not where OUT is or lies in a shard, holds earlier runs waiting to be moved back, or a run folder \
        merge may not replace); one interrupted before the runs move into place leaves OUT as it was (a signal once they move lets \
        the merge finish and says so; the exit status is then the merge's). An interrupted shard makes the merge incomplete ("complete": false), which \
        `compare` fails. Exit codes: 0 merged, every run succeeded; 1 merged with failed runs (as eval: their errors \
        are printed and eval.json lists them) or with an interrupted shard (named), or a shard cannot be read, does not fit the others, or OUT cannot be written; 3 lint findings with --strict (every run merged); 64 usage error; 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM \
        before the runs moved (nothing merged). See deploy/ for a CI matrix and a Kubernetes Indexed Job.
        """
    )

    @Argument(help: "The shards' output folders (or their eval.json files): every shard 1/N … N/N, once.")
    var shards: [String]

    @Option(name: .shortAndLong, help: "Output folder (created if needed; not one of the shards).")
    var out: String

    @Flag(help: "Exit with code 3 when the lint finds a broken AEC rule in any merged run, as eval --strict does over an unsharded eval (a failed run or an interrupted shard, exit 1, comes first).")
    var strict = false

    func validate() throws {
        guard !shards.isEmpty else { throw ValidationError("give the output folders of shards 1/N … N/N") }
        guard !shards.contains("") else { throw ValidationError("a shard's folder is an empty string") }
        guard !out.isEmpty else { throw ValidationError("--out must name a folder (got an empty string)") }
    }

    func run() throws {
        Interrupts.install()
        do {
            var loaded: [(folder: String, shard: EvalMerge.Shard)] = []
            for path in shards {
                // A shard is a folder or its eval.json: a typo is neither.
                if let missing = InputFile.missingProblem(at: path) { throw EvalDocument.ReadError(path: path, problem: missing) }
                var isDirectory: ObjCBool = false
                let isFolder = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
                let file = isFolder ? (path as NSString).appendingPathComponent("eval.json") : path
                let folder = isFolder ? path : InputFile.parent(of: path)
                loaded.append((folder, EvalMerge.Shard(path: file, folder: folder, eval: try EvalFile.read(file))))
            }
            let merged = try EvalMerge.merge(loaded.map(\.shard))
            let runs = try MergeOutput.runs(of: loaded.map { ($0.folder, $0.shard.eval) }, out: out)
            do {
                try MergeOutput.write(merged, runs: runs, to: out, renderer: ReportPages(), cancellation: Interrupts.cancellation)
            } catch is MergeOutput.Cancelled {
                standardError("echolab: interrupted: nothing merged into \(out)")
                throw ExitCode(Interrupts.exitCode ?? 130)
            }
            if Interrupts.cancellation.isCancelled {
                // The signal came once runs were moving into place: undoing them then would be
                // the riskier half, so the merge finished; said, as the exit status cannot.
                standardError("echolab: interrupted once the runs were moving into place: the merge was finished")
            }
            let failed = merged.outcome.failedCount
            // An interrupted shard's runs are missing: said here as eval.json says it.
            let missing = merged.outcome.isComplete ? nil : "incomplete: \(merged.outcome.plannedCount) planned"
            // The failed runs' errors as the shards' evals printed them, and eval's exit status:
            // a CI job that merges and stops there fails as the unsharded eval would.
            for line in EvalCommand.errorLines(merged.outcome.results) { standardError(line) }
            // An interrupted shard is named: its eval exited non-zero, and a merge that stopped
            // there with 0 passed a CI job that `compare` alone would have failed.
            for shard in loaded.map(\.shard) where !shard.eval.isComplete {
                standardError("echolab: \(shard.path): incomplete: its eval was interrupted (\(shard.eval.items.reduce(0) { $0 + $1.results.count }) of \(shard.eval.planned) runs)")
            }
            // Shards that each say they are complete and still lack runs (an eval.json edited by
            // hand): exit 1 needs a reason on stderr too.
            if !merged.outcome.isComplete, loaded.allSatisfy(\.shard.eval.isComplete) {
                standardError("echolab: incomplete: the shards hold \(merged.outcome.results.count) of the plan's \(merged.outcome.plannedCount) runs, "
                              + "though each eval.json says it is complete (edited?)")
            }
            // What --strict fails on: `LintTally(strictlyJudging:)`, counted once for both lines.
            let strictTally = strict ? LintTally(strictlyJudging: merged.outcome) : nil
            print(printable("merged \(loaded.count) shard\(loaded.count == 1 ? "" : "s"): "
                            + EvalCommand.summaryLine(merged.outcome.results, failed: failed, strictRuns: strictTally?.runsWithFindings,
                                                      incomplete: missing, out: out)))
            let lint = strictTally.flatMap { EvalCommand.lintLine($0, of: merged.outcome.results.count, out: out) }
            if let lint { standardError(lint) }
            if failed > 0 || !merged.outcome.isComplete { throw ExitCode(1) }
            if lint != nil { throw ExitCode(3) }
        } catch let code as ExitCode {
            throw code
        } catch {
            // Nothing merged, and the exit status is a merge's with failed runs: an earlier
            // eval.json left in OUT would be gated as this merge's by a CI job that accepts 1
            // (a missing shard's merge "passed" `compare` so). Removed as eval removes it, never
            // from a shard (OUT one of them, or inside one), nor from an OUT whose earlier runs
            // wait to be moved back by hand (its reports then describe them again), nor from a
            // folder merge may not write.
            // The reason first, then what was removed for it.
            let failure = CommandFailure.exit(error)
            let leavesOutToTheUser = error is MergeOutput.NotUndone || error is MergeOutput.EarlierRunsAside || error is MergeOutput.NotOurs
            if !leavesOutToTheUser, !shards.contains(where: { Self.isShard($0, around: out) }) {
                EvalCommand.removeStaleReportUnlessHeld(in: out, command: "merge", because: "merged nothing")
            }
            throw failure
        }
    }

    /// Whether OUT is the shard `path` (a folder or its eval.json) or lies inside it.
    static func isShard(_ path: String, around out: String) -> Bool {
        var isDirectory: ObjCBool = false
        let isFolder = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        return InputFile.isSameOrInside(out, isFolder ? path : InputFile.parent(of: path))
    }
}
