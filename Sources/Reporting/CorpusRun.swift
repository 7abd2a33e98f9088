import AudioInterop
import Dispatch
import Foundation
import Simulation
import Synchronization

/// Finds scenario files: files as given, folders searched recursively for `*.json`, in sorted
/// order. Inside folders it passes over what EchoLab itself writes, so a corpus can be evaluated
/// again with its reports beside it: the output folder, hidden files (`.x.partial`), and JSON
/// files whose top-level `schema` is EchoLab's (`echolab.run/…`, `echolab.summary/…`,
/// `echolab.golden/…`). A file named explicitly is taken as a scenario whatever it holds.
public enum ScenarioDiscovery {
    public struct NotFound: Error, CustomStringConvertible {
        public let path: String
        public var problem = "no such file or folder"
        public var description: String { "\(path): \(problem)" }
    }

    /// Why nothing was found: a corpus that runs nothing must not pass a CI gate.
    public struct Empty: Error, CustomStringConvertible {
        public let paths: [String]
        public init(paths: [String]) { self.paths = paths }
        public var description: String {
            "\(paths.joined(separator: ", ")): no scenario files (*.json) found"
        }
    }

    public static func files(in paths: [String], excluding outputFolder: String? = nil) throws -> [String] {
        let excluded = outputFolder.map(InputFile.canonical)
        var found: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw NotFound(path: path, problem: InputFile.problem(at: path) ?? "no such file or folder")
            }
            if !isDirectory.boolValue {
                if let problem = InputFile.problem(at: path) { throw NotFound(path: path, problem: problem) }
                found.append(path)
                continue
            }
            var inFolder: [String] = []
            let enumerator = FileManager.default.enumerator(at: URL(fileURLWithPath: path), includingPropertiesForKeys: nil,
                                                            options: [.skipsHiddenFiles])
            while let url = enumerator?.nextObject() as? URL {
                let relative = String(url.path.dropFirst(URL(fileURLWithPath: path).path.count)).drop { $0 == "/" }
                let item = (path as NSString).appendingPathComponent(String(relative))
                if let excluded, InputFile.canonical(item) == excluded {
                    enumerator?.skipDescendants()
                    continue
                }
                if item.hasSuffix(".json"), InputFile.problem(at: item) == nil, !isEchoLabOutput(item) { inFolder.append(item) }
            }
            found += inFolder.sorted()
        }
        return found
    }

    /// Whether `path` is a JSON file EchoLab wrote (its top-level `schema` names one of its formats).
    public static func isEchoLabOutput(_ path: String) -> Bool {
        guard let size = InputFile.size(at: path), size <= 64 << 20,
              let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let schema = object["schema"] as? String else { return false }
        return schema.hasPrefix("echolab.")
    }
}

/// Runs many scenarios, `jobs` at a time, each into OUT/NAME/. One bad scenario is an error line
/// for that item; the others still run. Results are in input order whatever the job count, and
/// each item's files are the same as a single `echolab run` would write.
public struct CorpusRun {
    public struct Item: Sendable {
        public var name: String
        public var file: String
        public var report: RunReport?
        public var error: String?
        var wasCancelled = false
    }

    public struct Outcome: Sendable {
        /// The items that ran (or failed), in input order; after an interruption, only those.
        public var items: [Item]
        /// Items of the corpus, run or not.
        public var plannedCount: Int
        /// False when the run was interrupted before every item ran.
        public var isComplete: Bool { items.count == plannedCount }

        /// `summary.json` and `summary.md` in `directory`, written atomically.
        public func writeSummary(to directory: String) throws {
            func optional(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
            let json = JSONValue.object([
                "schema": .string("echolab.summary/1"),
                "complete": .bool(isComplete),
                "planned": .number(Double(plannedCount)),
                "tool": .object(["name": .string("echolab"), "version": .string(EchoLabVersion.current)]),
                "scenarios": .array(items.map { item in
                    var object: [String: JSONValue] = ["name": .string(item.name), "file": .string(item.file),
                                                       "error": item.error.map(JSONValue.string) ?? .null]
                    if let report = item.report {
                        object["aec_mode"] = .string(report.aecMode)
                        object["erl_db"] = optional(report.metrics.erlDB)
                        object["erle_db"] = optional(report.metrics.erleDB)
                        object["erle_steady_db"] = optional(report.metrics.erleSteadyDB)
                        object["convergence_s"] = optional(report.metrics.convergenceSeconds)
                        object["delay_ms"] = optional(report.metrics.delayMilliseconds)
                        object["underruns"] = .number(Double(report.pipeline.underruns))
                        object["findings"] = .array(report.findings.map { .string($0.rule) })
                    }
                    return .object(object)
                }),
            ])
            try AtomicFile.write(json.canonicalText(), to: (directory as NSString).appendingPathComponent("summary.json"))
            var md = "# EchoLab evaluation\n\n"
            if !isComplete { md += "**Interrupted:** \(items.count) of \(plannedCount) scenarios ran; the others are not listed.\n\n" }
            md += "| scenario | AEC | ERL | ERLE | steady ERLE | convergence | delay | underruns | findings |\n|---|---|---|---|---|---|---|---|---|\n"
            for item in items {
                guard let r = item.report else {
                    md += "| \(item.name) | **failed**: \(item.error ?? "") | | | | | | | |\n"
                    continue
                }
                let m = r.metrics
                md += "| [\(item.name)](\(item.name)/report.md) | \(r.aecMode) | \(ReportFormatting.db(m.erlDB)) | \(ReportFormatting.db(m.erleDB)) | "
                md += "\(ReportFormatting.db(m.erleSteadyDB)) | \(ReportFormatting.seconds(m.convergenceSeconds)) | "
                md += "\(ReportFormatting.number(m.delayMilliseconds, digits: 1, unit: " ms")) | \(r.pipeline.underruns) | "
                md += "\(r.findings.map(\.rule).joined(separator: ", ")) |\n"
            }
            try AtomicFile.write(md, to: (directory as NSString).appendingPathComponent("summary.md"))
        }
    }

    public var scenarioFiles: [String]
    public var outputDirectory: String
    public var jobs: Int
    public var taps: TapSelection
    /// When cancelled, no new item starts and running ones stop at their next tick, leaving
    /// nothing behind; the outcome lists what finished.
    public var cancellation: RunCancellation?

    public init(scenarioFiles: [String], outputDirectory: String, jobs: Int = 1, taps: TapSelection = .standard,
                cancellation: RunCancellation? = nil) {
        self.scenarioFiles = scenarioFiles
        self.outputDirectory = outputDirectory
        self.jobs = jobs
        self.taps = taps
        self.cancellation = cancellation
    }

    /// Runs them all; `progress(done, total, item)` is called as items finish (from any thread, serialised).
    public func run(progress: @escaping @Sendable (Int, Int, Item) -> Void = { _, _, _ in }) -> Outcome {
        let files = scenarioFiles
        let results = Mutex<[Item?]>(Array(repeating: nil, count: files.count))
        let done = Mutex(0)
        let next = Mutex(0)
        let directory = outputDirectory, taps = self.taps, cancellation = self.cancellation
        let workers = max(1, min(jobs, files.count))
        // Load everything first: each scenario writes OUT/NAME/, so two with one name would
        // overwrite each other; the second is refused.
        var firstFileOfName: [String: String] = [:]
        var loaded: [Result<Scenario, ItemError>] = []
        for file in files {
            do {
                let scenario = try ScenarioLoader.load(path: file)
                if let first = firstFileOfName[scenario.name] {
                    loaded.append(.failure(ItemError(description: "\(file): name: '\(scenario.name)' is already used by \(first)")))
                } else {
                    firstFileOfName[scenario.name] = file
                    loaded.append(.success(scenario))
                }
            } catch {
                loaded.append(.failure(ItemError(description: String(describing: error))))
            }
        }
        let scenarios = loaded
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let index: Int = next.withLock { value in defer { value += 1 }; return value }
                guard index < files.count, cancellation?.isCancelled != true else { return }
                let item = Self.runOne(scenarios[index], file: files[index], directory: directory, taps: taps,
                                       cancellation: cancellation)
                // An item stopped by the interruption did not finish: it is not part of the outcome.
                if item.wasCancelled { return }
                results.withLock { $0[index] = item }
                let count = done.withLock { value in value += 1; return value }
                progress(count, files.count, item)
            }
        }
        return Outcome(items: results.withLock { $0.compactMap { $0 } }, plannedCount: files.count)
    }

    static func runOne(_ loaded: Result<Scenario, ItemError>, file: String, directory: String, taps: TapSelection,
                       cancellation: RunCancellation?) -> Item {
        let fallbackName = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        do {
            let scenario = try loaded.get()
            let folder = (directory as NSString).appendingPathComponent(scenario.name)
            let report = try RunOutput(scenario: scenario, outputDirectory: folder, taps: taps, cancellation: cancellation).run()
            return Item(name: scenario.name, file: file, report: report, error: nil)
        } catch is RunCancelled {
            return Item(name: fallbackName, file: file, report: nil, error: nil, wasCancelled: true)
        } catch {
            return Item(name: fallbackName, file: file, report: nil, error: String(describing: error))
        }
    }

    /// A corpus item that could not be loaded, as its one-line message.
    struct ItemError: Error, CustomStringConvertible, Sendable {
        let description: String
    }
}
