import ArgumentParser
import AudioInterop
import Foundation
import Reporting
import Simulation

struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Run every scenario of a corpus and write one report folder each plus a summary.",
        discussion: """
        PATH is a scenario file or a folder of them (*.json, searched recursively; the output folder, hidden files and \
        EchoLab's own JSON outputs — reports, summaries, golden.json — are passed over). Each scenario writes OUT/NAME/; \
        OUT/summary.json and OUT/summary.md list them all. A broken scenario is reported in one line and the others still \
        run. Exit codes: 0 all ran; 1 a scenario failed, or the corpus holds no scenario; 64 usage error; 130/143 \
        interrupted by SIGINT/SIGTERM (the summary then lists what finished and says "complete": false).
        """
    )

    @Argument(help: "Scenario files or folders.")
    var paths: [String]

    @Option(name: .shortAndLong, help: "Output folder (created if needed; must not hold the corpus).")
    var out: String = "reports"

    // `.unconditional`: `--jobs -1` is a bad value to report, not a missing one.
    @Option(parsing: .unconditional, help: "Scenarios run at once, at least 1 (results do not depend on it).")
    var jobs: Int = 1

    @Flag(help: "Do not write the WAV taps.")
    var noTaps = false

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1 (got \(jobs))") }
        guard !paths.isEmpty else { throw ValidationError("give at least one scenario file or folder") }
        guard !out.isEmpty else { throw ValidationError("--out must name a folder (got an empty string)") }
    }

    func run() throws {
        Interrupts.install()
        let files: [String]
        do {
            try Self.checkOutputHoldsNoCorpus(out: out, paths: paths)
            files = try ScenarioDiscovery.files(in: paths, excluding: out)
            guard !files.isEmpty else { throw ScenarioDiscovery.Empty(paths: paths) }
            try AtomicFile.prepareDirectory(out)
            Self.removeStaleSummary(in: out)
        } catch {
            throw CommandFailure.exit(error)
        }
        let corpus = CorpusRun(scenarioFiles: files, outputDirectory: out, jobs: jobs, taps: noTaps ? .none : .standard,
                               cancellation: Interrupts.cancellation)
        let progress = ProgressLine(label: "eval")
        let audioSeconds = AudioSecondsCounter()
        let outcome = corpus.run { done, total, item in
            guard progress.isEnabled else { return }
            if let error = item.error { progress.print("echolab: \(error)") }
            let seconds = audioSeconds.add(item.report?.durationSeconds ?? 0)
            let speed = seconds / max(progress.elapsedSeconds, 1e-9)
            progress.update(fraction: Double(done) / Double(total),
                            detail: "\(done)/\(total) scenarios, \(String(format: "%.0f", speed))× real time", force: true)
        }
        progress.finish()
        // On a terminal the errors were printed as they came; elsewhere (CI logs) they come here.
        if !progress.isEnabled {
            for item in outcome.items { if let error = item.error { standardError("echolab: \(error)") } }
        }
        do {
            try outcome.writeSummary(to: out)
        } catch {
            throw CommandFailure.exit(error)
        }
        let failed = outcome.items.filter { $0.error != nil }.count
        if let code = Interrupts.exitCode {
            standardError("echolab: interrupted: \(outcome.items.count) of \(outcome.plannedCount) scenarios finished; \(out)/summary.json says \"complete\": false")
            throw ExitCode(code)
        }
        print("\(outcome.items.count - failed) of \(outcome.items.count) scenarios ran → \(out)/summary.md")
        if failed > 0 { throw ExitCode(1) }
    }

    /// An output folder that is, or holds, a corpus folder would write reports among the
    /// scenarios (and the next discovery would pass over the scenarios inside it).
    static func checkOutputHoldsNoCorpus(out: String, paths: [String]) throws {
        let folder = InputFile.canonical(out)
        for path in paths {
            let corpus = InputFile.canonical(path)
            if corpus == folder || corpus.hasPrefix(folder == "/" ? "/" : folder + "/") {
                throw OutputHoldsCorpus(out: out, corpus: path)
            }
        }
    }

    struct OutputHoldsCorpus: Error, CustomStringConvertible {
        let out: String
        let corpus: String
        var description: String { "\(out): output folder holds the corpus \(corpus); choose a folder outside it (e.g. reports/)" }
    }

    /// A summary of an earlier run would describe other scenarios if this one is killed before
    /// it writes its own: remove it first (only EchoLab's own).
    static func removeStaleSummary(in folder: String) {
        let json = (folder as NSString).appendingPathComponent("summary.json")
        guard ScenarioDiscovery.isEchoLabOutput(json) else { return }
        try? FileManager.default.removeItem(atPath: json)
        try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent("summary.md"))
    }
}

/// Seconds of call audio finished so far, for the speed on the progress line.
private final class AudioSecondsCounter: @unchecked Sendable {
    private var total = 0.0
    private let lock = NSLock()
    func add(_ seconds: Double) -> Double {
        lock.lock(); defer { lock.unlock() }
        total += seconds
        return total
    }
}
