import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import ScenarioFiles
import Simulation

/// `vectors/golden.json`: for each vector scenario, the metrics it must reproduce (value and
/// tolerance), its findings (lint and requirement), its pipeline counters and the SHA-256 of its output taps.
/// `bless()` measures them; `verify()` re-runs every scenario and lists what differs.
public struct GoldenVectors {
    public var directory: String
    /// Polled every engine tick and between scenarios: once cancelled, the running scenario
    /// stops, its scratch folder goes, and `bless`/`verify` throw `RunCancelled`.
    public var cancellation: RunCancellation?
    /// Metric tolerance written by `bless()` for a metric golden.json gives none, and what
    /// `verify()` uses where `tolerance` is absent: results are bit-identical on one
    /// architecture, the slack only absorbs FFT code paths that differ between CPUs.
    public static let tolerance = 0.05
    static let metricKeys = ["erl_db", "erle_db", "erle_steady_db", "convergence_s", "delay_ms"]

    public init(directory: String, cancellation: RunCancellation? = nil) {
        self.directory = directory
        self.cancellation = cancellation
    }

    var goldenPath: String { (directory as NSString).appendingPathComponent("golden.json") }
    var scenariosDirectory: String { (directory as NSString).appendingPathComponent("scenarios") }

    public struct Failure: DescribedError {
        public let description: String
    }

    /// What `verify()` found, in scenario order: scenarios that could not be checked (bad input)
    /// and differences from golden.json, one line each.
    public struct Verification {
        public var unchecked: [String] = []
        public var mismatches: [String] = []
        /// The lines to print, the scenarios that could not be checked first.
        public var lines: [String] { unchecked + mismatches }
    }

    /// Runs every scenario and writes golden.json. Tolerances of an existing golden.json are
    /// kept (a hand-widened one is a decision, not a measurement); the rest is re-measured.
    /// A scenario that cannot be loaded or run, or whose name another file already uses, stops
    /// it with golden.json untouched.
    public func bless() throws {
        try checkFolderExists()
        let previous = try GoldenFile.read(goldenPath, requiringEveryCheck: false)
        let loaded = try loadScenarios()
        if let problem = loaded.problems.first { throw Failure(description: problem) }
        var entries: [String: JSONValue] = [:]
        for scenario in loaded.scenarios {
            let measured = try GoldenMeasurement.entry(for: scenario, cancellation: cancellation)
            entries[scenario.name] = GoldenMeasurement.keepingTolerances(of: previous?.scenarios[scenario.name], in: measured)
        }
        let golden = JSONValue.object(["schema": .string(GoldenFile.schema), "scenarios": .object(entries)])
        // A signal after the last run still leaves golden.json as it was.
        if cancellation?.isCancelled == true { throw RunCancelled() }
        try AtomicFile.write(golden.canonicalText(), to: goldenPath)
    }

    /// A --vectors folder that is not there is said to be missing (run outside the repository,
    /// the default `vectors` is not there, and "no golden expectations here" would advise a bless
    /// that fails).
    private func checkFolderExists() throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder) else {
            throw Failure(description: "\(directory): no such folder; give --vectors the project's vectors folder "
                          + "(the one holding golden.json and scenarios/: vectors/ in the repository)")
        }
        guard isFolder.boolValue else { throw Failure(description: "\(directory): is a file, not a folder (--vectors names the folder holding golden.json and scenarios/)") }
    }

    /// Re-runs every scenario and compares it with golden.json. A malformed golden.json throws
    /// before anything runs; a scenario that cannot be loaded or run, or whose name another file
    /// already uses, is listed and the others are still checked.
    public func verify() throws -> Verification {
        try checkFolderExists()
        guard let golden = try GoldenFile.read(goldenPath, requiringEveryCheck: true) else {
            // Not "run make golden" for the project's folder: blessing where expectations are
            // missing would record whatever the code does now, hiding the regressions `verify`
            // exists to catch. A folder of one's own scenarios has none until its first bless.
            throw Failure(description: "\(goldenPath): no golden expectations here; give --vectors the project's vectors folder (the one holding golden.json and scenarios/), or, for a folder of your own scenarios, write its first golden.json with `echolab vectors bless --vectors \(InputFile.parent(of: goldenPath))` and review it")
        }
        let loaded = try loadScenarios()
        var result = Verification(unchecked: loaded.problems)
        let named = Set(loaded.names)
        for scenario in loaded.scenarios {
            let measured: JSONValue
            do {
                measured = try GoldenMeasurement.entry(for: scenario, cancellation: cancellation)
            } catch let cancelled as RunCancelled {
                throw cancelled
            } catch {
                result.unchecked.append(Self.line(error, file: scenario.file))
                continue
            }
            guard let want = golden.scenarios[scenario.name] else {
                result.mismatches.append("\(scenario.file): scenario \(scenario.name) has no golden entry")
                continue
            }
            result.mismatches += GoldenComparison.differences(measured, want, file: scenario.file)
        }
        // A file that cannot be loaded has no name: its entry may be the one that looks orphaned.
        let orphan = loaded.problems.isEmpty ? "has no scenario file" : "has no scenario file that could be loaded"
        for name in golden.scenarios.keys.sorted() where !named.contains(name) {
            result.mismatches.append("\(goldenPath): golden entry \(name) \(orphan)")
        }
        if cancellation?.isCancelled == true { throw RunCancelled() }
        return result
    }

    /// Every scenario file, loaded, in discovery order; a file that cannot be loaded, or whose
    /// name an earlier file already uses (golden.json has one entry per name), is a problem line.
    /// `names` holds every name a file claims, the ones left out for a clash included.
    private func loadScenarios() throws -> (scenarios: [Scenario], problems: [String], names: [String]) {
        var scenarios: [Scenario] = [], problems: [String] = [], firstFileOfName: [String: String] = [:]
        for file in try ScenarioDiscovery.files(in: [scenariosDirectory]) {
            if cancellation?.isCancelled == true { throw RunCancelled() }
            let scenario: Scenario
            do {
                scenario = try ScenarioLoader.load(path: file)
            } catch {
                problems.append(Self.line(error, file: file))
                continue
            }
            if let first = firstFileOfName[scenario.name] {
                problems.append("\(file): name: '\(scenario.name)' is already used by \(first)")
                continue
            }
            firstFileOfName[scenario.name] = file
            scenarios.append(scenario)
        }
        return (scenarios, problems, Array(firstFileOfName.keys))
    }

    /// An error as one line that names the scenario file (the loader's own errors already do).
    private static func line(_ error: any Error, file: String) -> String {
        let text = String(describing: error)
        return text.hasPrefix(file) ? text : "\(file): \(text)"
    }
}
