import ArgumentParser
import AudioInterop
import Foundation
import Evaluation
import Reporting

/// The CI gate: `eval.json` of this change against a committed baseline.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two eval.json files item × mode; print a Markdown diff and fail on a regression.",
        discussion: """
        A run regressed when its steady-state or whole ERLE fell, or its near-end attenuation rose, by more than \
        --max-regression-db, over the whole call or in any of its device and route segments; when its TCLw fell, or its \
        send attenuation range in double talk rose, by as much; when it gained a finding, the lint's or a missed \
        telephony requirement's (the rule is named; a requirement only where the baseline measured it, and a TCLw that \
        crosses 46 dB fails even by less than --max-regression-db); when a fault counter of its pipeline (underruns, overruns, drops, rejected frames, \
        clipped samples, canceller resets, clicks or gaps in sent) rose at all, or a buffer stopped conserving samples; \
        when it lost the near end entirely where the baseline kept it; when a figure the baseline measured is no longer \
        measured, or stands on fewer than 20 analysis frames; when it failed where the baseline ran (or its item could not be \
        loaded), or failed as a run only CURRENT has; when a scorer's score (eval --scorer) fell by more than \
        --max-regression-mos in any talk type, or the run is no longer scored (the scorer failed); or when it is \
        missing from CURRENT. A baseline figure on fewer than 20 analysis frames judges nothing; a lower bound (≥) \
        counts only where the change is certain (ERLE or TCLw fell: CURRENT measured and under the baseline; attenuation \
        rose: the baseline measured and CURRENT over it); a change a bound leaves uncertain is listed as not judged. Findings that went away are listed as \
        improvements. Runs only CURRENT has that ran are listed, not judged, and so are runs measured with another canceller \
        library (a version, a plugin's SHA-256) than the baseline's — unless --judge-library-changes, where the new \
        library is the change to judge (your plugin's next build against its last) —, and scores CURRENT was not scored for or scored by \
        another scorer version or model. An interrupted CURRENT ("complete": false) fails; the runs it did not reach \
        are listed as not run, not as regressions. An interrupted BASELINE fails too: the runs it never reached would pass \
        unjudged; so does a BASELINE that is one shard of an eval (eval --shard K/N), unless CURRENT is the same shard. An item CURRENT lists twice fails its second listing, a regression. Exit codes, as diff's: 0 no regression (an equal report \
        included); 1 a regression; 2 a file cannot be read or is not an EchoLab eval.json, or the diff cannot be written to stdout (a full disk, a reader that went away); 64 usage error (also a \
        --markdown or --junit file refused: a compared file, both the same file, a folder, pipe or device, one in a folder that cannot be written).
        """
    )

    @Argument(help: "The reference eval.json (e.g. the committed reports/baseline.json).")
    var baseline: String

    @Argument(help: "The eval.json to judge (e.g. reports/eval.json of this change).")
    var current: String

    // `.unconditional`: `--max-regression-db -1` is a bad value to report, not a missing one.
    @Option(parsing: .unconditional, help: ArgumentHelp("Largest drop of ERLE or TCLw, or rise of near-end attenuation or its double-talk range, that still passes (dB, ≥ 0).", valueName: "dB"))
    var maxRegressionDB: Double = 0.5

    // `.unconditional`, as --max-regression-db.
    @Option(name: .customLong("max-regression-mos"), parsing: .unconditional,
            help: ArgumentHelp("Largest fall of a scorer's score (such as AECMOS, in MOS) that still passes (≥ 0).", valueName: "score"))
    var maxRegressionMOS: Double = 0.1

    @Option(help: ArgumentHelp("Also write the Markdown diff to this file (never seen half-written; not one of the files compared; a missing folder is made). Without it, the diff goes to stdout only.", valueName: "file"))
    var markdown: String?

    @Option(help: ArgumentHelp("Also write the verdict as JUnit XML to this file, for CI test views: one test case per item × mode, its regressions as its failure, runs not judged (new in CURRENT, another library unless --judge-library-changes, not reached by an interrupted CURRENT) skipped (same rules as --markdown).", valueName: "file"))
    var junit: String?

    @Flag(help: ArgumentHelp("Judge runs measured with another canceller library too (still listed as such): the new library is the change to judge — your plugin's next build against its last, a backend library's update."))
    var judgeLibraryChanges = false

    func validate() throws {
        for (name, path) in [("BASELINE", baseline), ("CURRENT", current)] where path.isEmpty {
            throw ValidationError("\(name) is an empty string: name an eval.json")
        }
        guard maxRegressionDB.isFinite, maxRegressionDB >= 0 else {
            throw ValidationError("--max-regression-db must be a number ≥ 0 (got \(maxRegressionDB))")
        }
        guard maxRegressionMOS.isFinite, maxRegressionMOS >= 0 else {
            throw ValidationError("--max-regression-mos must be a number ≥ 0 (got \(maxRegressionMOS))")
        }
        try validateReportFiles()
    }

    /// The report files can take a new file, checked before anything is read or written: one that
    /// is a compared file (`--markdown eval.json` would replace the report it reads), a folder, a
    /// pipe or a device, or one file for both reports, is a usage error, as a bad value is — exit
    /// 2 says an input cannot be read.
    /// A report into a folder that cannot take a file (read-only, no permission) is refused as
    /// the other report files are, before anything is read, so its status is a usage error's
    /// (64), not an unreadable file's (2). The folder is the nearest that exists: a missing one
    /// is made, as `process --out` makes its own.
    private static func checkFolderWritable(_ report: String) throws {
        var folder = InputFile.parent(of: InputFile.absolute(report))
        var isFolder: ObjCBool = false
        while !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), folder != "/", !folder.isEmpty { folder = InputFile.parent(of: folder) }
        // A file where a folder of the path should be: no folder can be made there.
        guard isFolder.boolValue else {
            throw AtomicFile.WriteError(path: report, reason: "cannot write: \(folder) is a file, not a folder")
        }
        guard access(folder, W_OK) != 0 else { return }
        throw AtomicFile.WriteError(path: report, reason: "cannot write: the folder \(folder) is not writable (\(String(cString: strerror(errno))))")
    }

    private func validateReportFiles() throws {
        for (option, report) in [("--markdown", markdown), ("--junit", junit)] {
            guard let report else { continue }
            // Else named by nothing: "echolab: : cannot write: is a folder" (exit 2).
            if report.isEmpty { throw ValidationError("\(option) must name a file (got an empty string)") }
            do {
                try AtomicFile.checkWritable(report, inputs: [baseline, current])
                try Self.checkFolderWritable(report)
            } catch {
                // The names come from the command line: said on one line, printable, with the option.
                throw ValidationError("\(option) \(printable(CommandFailure.describe(error)))")
            }
        }
        if let markdown, let junit, InputFile.canonical(markdown) == InputFile.canonical(junit) {
            throw ValidationError(printable(SameReportFile(path: junit).description))
        }
    }

    func run() throws {
        let comparison: EvalComparison
        do {
            comparison = EvalComparison(baseline: try EvalDocument.read(baseline), current: try EvalDocument.read(current),
                                        maxRegressionDB: maxRegressionDB, maxRegressionScore: maxRegressionMOS,
                                        judgesLibraryChanges: judgeLibraryChanges)
        } catch {
            throw CommandFailure.exit(error, code: 2)
        }
        let text = ComparisonMarkdown.render(comparison, baselineName: baseline, currentName: current)
        do {
            // Into a folder that does not exist yet, as `process --out` and `eval --out` write.
            for report in [markdown, junit].compactMap({ $0 }) { try AtomicFile.prepareFolder(containing: report) }
            if let markdown { try AtomicFile.write(text, to: markdown) }
            if let junit {
                try AtomicFile.write(ComparisonJUnit.render(comparison, baselineName: baseline, currentName: current), to: junit)
            }
        } catch {
            throw CommandFailure.exit(error, code: 2)
        }
        // The report files first: a reader that goes away (`| head`) must not cost CI its JUnit.
        // Item names and errors come from the files compared: shown printable, line by line.
        // A verdict that never reached its reader is no verdict: trouble, as diff says it.
        try writeStandardOutput(text.split(separator: "\n", omittingEmptySubsequences: false).map { printable(String($0)) }.joined(separator: "\n"),
                                what: "the comparison", code: 2)
        if comparison.hasRegression { throw ExitCode(1) }
    }
}

/// `--markdown` and `--junit` name one file: one report would replace the other.
struct SameReportFile: Error, CustomStringConvertible {
    let path: String
    var description: String { "\(path): given to both --markdown and --junit; name two files" }
}
