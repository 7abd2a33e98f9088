import AudioCore
import EchoLabJSON
import Foundation

/// golden.json read and checked before anything runs. It must be what `bless` writes, give or
/// take hand-set tolerances: a wrong type, an unknown key or schema is an error naming the key,
/// not a difference (exit 3, "is 9.6 but golden has \"abc\"") or an expectation never read. For
/// `verify`, an entry must also hold every check a run measures: one that lost a metric, its
/// findings, pipeline or taps would silently stop checking them.
struct GoldenFile {
    static let schema = "echolab.golden/1"
    static let entryKeys = ["metrics", "findings", "pipeline", "taps_sha256", "hardware"]
    static let pipelineKeys = ["ticks", "underruns", "overruns"]

    var scenarios: [String: JSONValue]

    /// The file at `path`, checked; nil when there is none. With `requiringEveryCheck` false
    /// (bless, which re-measures everything but the tolerances) a missing check is no error.
    static func read(_ path: String, requiringEveryCheck: Bool) throws -> GoldenFile? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        guard !isDirectory.boolValue else { throw GoldenVectors.Failure(description: "\(path): is a folder, not a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GoldenVectors.Failure(description: "\(path): cannot be read")
        }
        let golden: JSONValue
        do {
            golden = try JSONValue.parse(Array(data), maximumBytes: 64 << 20)
        } catch {
            throw GoldenVectors.Failure(description: "\(path): not valid JSON: \(error)")
        }
        let checker = Checker(path: path, requiringEveryCheck: requiringEveryCheck)
        return GoldenFile(scenarios: try checker.document(golden))
    }

    private struct Checker {
        let path: String
        let requiringEveryCheck: Bool

        func fail(_ key: String, _ problem: String) -> GoldenVectors.Failure {
            GoldenVectors.Failure(description: "\(path): \(key): \(problem)")
        }

        func document(_ golden: JSONValue) throws -> [String: JSONValue] {
            guard case .object(let fields) = golden else { throw GoldenVectors.Failure(description: "\(path): expected an object, found \(golden.typeName)") }
            if let unknown = fields.keys.sorted().first(where: { $0 != "schema" && $0 != "scenarios" }) {
                throw fail(unknown, "unknown key (golden.json has schema and scenarios)")
            }
            switch fields["schema"] {
            case .string(Self.schemaName)?: break
            case nil: throw fail("schema", "missing (expected \"\(Self.schemaName)\")")
            case .string(let other)?: throw fail("schema", "\"\(other)\" is not a format this echolab reads (\"\(Self.schemaName)\")")
            case let other?: throw fail("schema", "expected \"\(Self.schemaName)\", found \(other.typeName)")
            }
            guard case .object(let scenarios)? = fields["scenarios"] else {
                throw GoldenVectors.Failure(description: "\(path): no \"scenarios\" object")
            }
            for (name, entry) in scenarios.sorted(by: { $0.key < $1.key }) { try self.entry(entry, at: "scenarios.\(name)") }
            return scenarios
        }

        private static var schemaName: String { GoldenFile.schema }

        private func entry(_ entry: JSONValue, at place: String) throws {
            guard case .object(let fields) = entry else { throw fail(place, "expected an object, found \(entry.typeName)") }
            // bless re-measures all but the tolerances and a `taps_sha256: null`, but refuses
            // what verify would: a misspelt metric took its hand-set tolerance with it.
            if let unknown = fields.keys.sorted().first(where: { !GoldenFile.entryKeys.contains($0) }) {
                throw fail("\(place).\(unknown)", "unknown key (an entry has \(GoldenFile.entryKeys.sorted().joined(separator: ", ")))")
            }
            if case .array(let findings)? = fields["findings"] {
                if let index = findings.firstIndex(where: { $0.stringValue == nil }) {
                    throw fail("\(place).findings[\(index)]", "expected a rule name (a string), found \(findings[index].typeName)")
                }
            } else if let other = fields["findings"] {
                throw fail("\(place).findings", "expected an array of rule names, found \(other.typeName)")
            }
            // A file an earlier EchoLab wrote (its pipeline counted `frames`) is re-blessed, not refused.
            if requiringEveryCheck, let pipeline = fields["pipeline"] { try self.pipeline(pipeline, at: "\(place).pipeline") }
            if let taps = fields["taps_sha256"], taps != .null { try self.taps(taps, at: "\(place).taps_sha256") }
            if let hardware = fields["hardware"], hardware.objectValue == nil, hardware != .null {
                throw fail("\(place).hardware", "expected an object, found \(hardware.typeName)")
            }
            if let metrics = fields["metrics"] { try self.metrics(metrics, at: "\(place).metrics") }
            // `hardware` is there only for scenarios that model it: a run that has one and an
            // entry without it is a difference, which `verify` reports. bless measures all of
            // them again: a missing one is no error there.
            for key in ["metrics", "findings", "pipeline", "taps_sha256"] where requiringEveryCheck && fields[key] == nil {
                throw missing("\(place).\(key)")
            }
        }

        /// A metric's tolerance: absent (or null, as absent: the default), or a number of 0 or more.
        private func tolerance(_ value: JSONValue?, at place: String) throws {
            switch value {
            case nil, .null?: break
            case .number(let tolerance)? where tolerance >= 0: break
            case .number(let tolerance)?: throw fail(place, "\(tolerance) is negative")
            case let other?: throw fail(place, "expected a number, found \(other.typeName)")
            }
        }

        private func missing(_ key: String) -> GoldenVectors.Failure {
            fail(key, "missing: an entry must check everything a run measures (vectors bless writes it all)")
        }

        private func pipeline(_ pipeline: JSONValue, at place: String) throws {
            guard case .object(let counters) = pipeline else { throw fail(place, "expected an object, found \(pipeline.typeName)") }
            if let unknown = counters.keys.sorted().first(where: { !GoldenFile.pipelineKeys.contains($0) }) {
                throw fail("\(place).\(unknown)", "unknown key (\(GoldenFile.pipelineKeys.joined(separator: ", ")))")
            }
            for key in GoldenFile.pipelineKeys {
                switch counters[key] {
                case .number(let count)? where count >= 0 && count == count.rounded(): break
                case .number(let count)?: throw fail("\(place).\(key)", "\(count) is not a count (a whole number, 0 or more)")
                case nil: throw missing("\(place).\(key)")
                case let other?: throw fail("\(place).\(key)", "expected a number, found \(other.typeName)")
                }
            }
        }

        private func taps(_ taps: JSONValue, at place: String) throws {
            guard case .object(let hashes) = taps else { throw fail(place, "expected an object of hashes, found \(taps.typeName)") }
            for (tap, hash) in hashes.sorted(by: { $0.key < $1.key }) {
                guard let text = hash.stringValue else { throw fail("\(place).\(tap)", "expected a SHA-256 (64 hex digits), found \(hash.typeName)") }
                guard text.count == 64, text.allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
                    throw fail("\(place).\(tap)", "\"\(text)\" is not a SHA-256 (64 hex digits)")
                }
            }
        }

        private func metrics(_ metrics: JSONValue, at place: String) throws {
            guard case .object(let fields) = metrics else { throw fail(place, "expected an object, found \(metrics.typeName)") }
            for (key, metric) in fields.sorted(by: { $0.key < $1.key }) {
                let at = "\(place).\(key)"
                guard GoldenVectors.metricKeys.contains(key) else { throw fail(at, "unknown metric (\(GoldenVectors.metricKeys.joined(separator: ", ")))") }
                guard case .object(let parts) = metric else { throw fail(at, "expected an object, found \(metric.typeName)") }
                if let unknown = parts.keys.sorted().first(where: { $0 != "value" && $0 != "tolerance" }) {
                    throw fail("\(at).\(unknown)", "unknown key (value, tolerance)")
                }
                switch parts["value"] {
                case .number?, .null?: break
                case nil: if requiringEveryCheck { throw missing("\(at).value") }
                case let other?: throw fail("\(at).value", "expected a number or null, found \(other.typeName)")
                }
                try tolerance(parts["tolerance"], at: "\(at).tolerance")
            }
            if requiringEveryCheck, let absent = GoldenVectors.metricKeys.first(where: { fields[$0] == nil }) { throw missing("\(place).\(absent)") }
        }
    }
}
