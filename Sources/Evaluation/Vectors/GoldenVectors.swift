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
    /// Metric tolerance written by `bless()`: results are bit-identical on one architecture, the
    /// slack only absorbs FFT code paths that differ between CPUs.
    public static let tolerance = 0.05
    static let metricKeys = ["erl_db", "erle_db", "erle_steady_db", "convergence_s", "delay_ms"]

    public init(directory: String) {
        self.directory = directory
    }

    var goldenPath: String { (directory as NSString).appendingPathComponent("golden.json") }
    var scenariosDirectory: String { (directory as NSString).appendingPathComponent("scenarios") }

    public struct Failure: DescribedError {
        public let description: String
    }

    /// Runs every scenario and writes golden.json.
    public func bless() throws {
        var entries: [String: JSONValue] = [:]
        for file in try ScenarioDiscovery.files(in: [scenariosDirectory]) {
            let (name, measured) = try measure(file)
            entries[name] = measured
        }
        let golden = JSONValue.object(["schema": .string("echolab.golden/1"), "scenarios": .object(entries)])
        try AtomicFile.write(golden.canonicalText(), to: goldenPath)
    }

    /// One line per difference; empty when everything matches.
    public func verify() throws -> [String] {
        guard let data = FileManager.default.contents(atPath: goldenPath) else {
            // Not "run make golden": blessing where expectations are missing would record whatever
            // the code does now, hiding the regressions `verify` exists to catch.
            throw Failure(description: "\(goldenPath): no golden expectations here; give --vectors the project's vectors folder (the one holding golden.json and scenarios/)")
        }
        let golden: JSONValue
        do {
            golden = try JSONValue.parse(Array(data), maximumBytes: 64 << 20)
        } catch {
            throw Failure(description: "\(goldenPath): not valid JSON: \(error)")
        }
        guard case .object(let expected)? = golden["scenarios"] else {
            throw Failure(description: "\(goldenPath): no \"scenarios\" object")
        }
        if let unknown = golden.objectValue?.keys.sorted().first(where: { $0 != "schema" && $0 != "scenarios" }) {
            throw Failure(description: "\(goldenPath): \(unknown): unknown key (golden.json has schema and scenarios)")
        }
        try Self.validate(expected, in: goldenPath)
        var problems: [String] = []
        var seen = Set<String>()
        for file in try ScenarioDiscovery.files(in: [scenariosDirectory]) {
            let (name, measured) = try measure(file)
            seen.insert(name)
            guard let want = expected[name] else {
                problems.append("\(file): scenario \(name) has no golden entry")
                continue
            }
            problems += compare(measured, want, file: file)
        }
        for name in expected.keys.sorted() where !seen.contains(name) {
            problems.append("\(goldenPath): golden entry \(name) has no scenario file")
        }
        return problems
    }

    private func compare(_ measured: JSONValue, _ want: JSONValue, file: String) -> [String] {
        var problems: [String] = []
        for key in Self.metricKeys {
            let got = measured["metrics"]?[key]
            guard let expected = want["metrics"]?[key] else { continue }
            switch (got?["value"], expected["value"]) {
            case (.number(let a)?, .number(let b)?):
                let tolerance = expected["tolerance"]?.doubleValue ?? Self.tolerance
                if abs(a - b) > tolerance { problems.append("\(file): \(key) \(a) differs from golden \(b) ± \(tolerance)") }
            case (.null?, .null?), (nil, nil): break
            default:
                problems.append("\(file): \(key) is \(got?["value"]?.canonicalText() ?? "missing") but golden has \(expected["value"]?.canonicalText() ?? "nothing")")
            }
        }
        for key in ["findings", "pipeline", "taps_sha256", "hardware"] where measured[key] != want[key] {
            problems.append("\(file): \(key) differ from golden: got \(Self.oneLine(measured[key])), golden has \(Self.oneLine(want[key]))")
        }
        return problems
    }

    /// A value on one line for a message: its canonical text with each line's indentation gone.
    private static func oneLine(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        return value.canonicalText().split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    /// The expectations must be what `bless` writes: a hand-edited golden.json with a string for
    /// a number, a negative tolerance or a misspelt key would otherwise compare as a difference
    /// (exit 3, "is 9.6 but golden has \"abc\"") or not at all (an unknown key is never read).
    static func validate(_ scenarios: [String: JSONValue], in path: String) throws {
        func fail(_ key: String, _ problem: String) -> Failure { Failure(description: "\(path): scenarios.\(key): \(problem)") }
        let entryKeys: Set<String> = ["metrics", "findings", "pipeline", "taps_sha256", "hardware"]
        for (name, entry) in scenarios.sorted(by: { $0.key < $1.key }) {
            guard case .object(let fields) = entry else { throw fail(name, "expected an object, found \(entry.typeName)") }
            if let unknown = fields.keys.sorted().first(where: { !entryKeys.contains($0) }) {
                throw fail("\(name).\(unknown)", "unknown key (an entry has \(entryKeys.sorted().joined(separator: ", ")))")
            }
            func check(_ key: String, _ valid: (JSONValue) -> Bool, _ expected: String) throws {
                if let value = fields[key], !valid(value) { throw fail("\(name).\(key)", "expected \(expected), found \(value.typeName)") }
            }
            try check("findings", { $0.arrayValue?.allSatisfy { $0.stringValue != nil } == true }, "an array of rule names")
            try check("pipeline", { $0.objectValue != nil }, "an object")
            try check("taps_sha256", { $0.objectValue?.values.allSatisfy { $0.stringValue != nil } == true }, "an object of hashes")
            try check("hardware", { $0.objectValue != nil || $0 == .null }, "an object")
            guard let metrics = fields["metrics"] else { continue }
            guard case .object(let metricFields) = metrics else { throw fail("\(name).metrics", "expected an object, found \(metrics.typeName)") }
            for (key, metric) in metricFields.sorted(by: { $0.key < $1.key }) {
                let at = "\(name).metrics.\(key)"
                guard metricKeys.contains(key) else { throw fail(at, "unknown metric (\(metricKeys.joined(separator: ", ")))") }
                guard case .object(let parts) = metric else { throw fail(at, "expected an object, found \(metric.typeName)") }
                if let unknown = parts.keys.sorted().first(where: { $0 != "value" && $0 != "tolerance" }) {
                    throw fail("\(at).\(unknown)", "unknown key (value, tolerance)")
                }
                switch parts["value"] {
                case .number?, .null?, nil: break
                case let other?: throw fail("\(at).value", "expected a number or null, found \(other.typeName)")
                }
                switch parts["tolerance"] {
                case nil: break
                case .number(let tolerance)? where tolerance >= 0: break
                case .number(let tolerance)?: throw fail("\(at).tolerance", "\(tolerance) is negative")
                case let other?: throw fail("\(at).tolerance", "expected a number, found \(other.typeName)")
                }
            }
        }
    }

    /// Runs one scenario into a temporary folder and returns its golden entry.
    private func measure(_ file: String) throws -> (String, JSONValue) {
        let scenario = try ScenarioLoader.load(path: file)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("echolab-golden-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Only the taps and report.json are read: no pages.
        let report = try RunOutput(scenario: scenario, outputDirectory: folder, renderer: nil).run()
        let json = report.json()
        var metrics: [String: JSONValue] = [:]
        for key in Self.metricKeys {
            metrics[key] = .object(["value": json["metrics"]?[key] ?? .null, "tolerance": .number(Self.tolerance)])
        }
        var hashes: [String: JSONValue] = [:]
        for (_, tap) in report.taps.sorted(by: { $0.key < $1.key }) {
            let data = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(tap))
            hashes[tap] = .string(sha256Hex(of: data))
        }
        let pipeline = JSONValue.object(["ticks": json["pipeline"]?["ticks"] ?? .null,
                                         "underruns": json["pipeline"]?["underruns"] ?? .null,
                                         "overruns": json["pipeline"]?["overruns"] ?? .null])
        var entry: [String: JSONValue] = ["metrics": .object(metrics),
                                          "findings": .array(report.findings.map { .string($0.rule) }),
                                          "pipeline": pipeline,
                                          "taps_sha256": .object(hashes)]
        // Scenarios that model the hardware pin its formats, latency, routes and session counters.
        entry["hardware"] = json["hardware"]
        return (scenario.name, .object(entry))
    }
}
