import ArgumentParser
import Foundation
import Reporting
import Simulation

struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Run every scenario of a corpus and write one report folder each plus a summary.",
        discussion: "PATH is a scenario file or a folder of them (*.json, searched recursively). Each scenario writes OUT/NAME/; OUT/summary.json and OUT/summary.md list them all. A broken scenario is reported in one line and the others still run; the exit code is then 1."
    )

    @Argument(help: "Scenario files or folders.")
    var paths: [String]

    @Option(name: .shortAndLong, help: "Output folder.")
    var out: String = "reports"

    @Option(help: "Scenarios run at once (results do not depend on it).")
    var jobs: Int = 1

    @Flag(help: "Do not write the WAV taps.")
    var noTaps = false

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        guard !paths.isEmpty else { throw ValidationError("give at least one scenario file or folder") }
    }

    func run() throws {
        let files: [String]
        do {
            try AtomicFile.prepareDirectory(out)
            files = try ScenarioDiscovery.files(in: paths)
        } catch {
            throw CommandFailure.exit(error)
        }
        let corpus = CorpusRun(scenarioFiles: files, outputDirectory: out, jobs: jobs, taps: noTaps ? .none : .standard)
        let outcome = corpus.run { done, total, item in
            guard showsProgress else { return }
            standardError("[\(done)/\(total)] \(item.name): " + (item.error.map { "FAILED: \($0)" } ?? "ok"))
        }
        for item in outcome.items {
            if let error = item.error { standardError("echolab: \(error)") }
        }
        do {
            try outcome.writeSummary(to: out)
        } catch {
            throw CommandFailure.exit(error)
        }
        let failed = outcome.items.filter { $0.error != nil }.count
        print("\(outcome.items.count - failed) of \(outcome.items.count) scenarios ran → \(out)/summary.md")
        if outcome.items.contains(where: { $0.error != nil }) { throw ExitCode(1) }
    }
}
