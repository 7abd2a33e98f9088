import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Simulation

/// One scenario run into a scratch folder and turned into its golden entry.
enum GoldenMeasurement {
    /// Runs `scenario` into a scratch folder (removed whatever happens) and returns its entry,
    /// each metric with the default tolerance.
    static func entry(for scenario: Scenario, cancellation: RunCancellation?) throws -> JSONValue {
        let folder = TemporaryFolder.uniquePath(prefix: "echolab-golden")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Only the taps and report.json are read: no pages.
        let report = try RunOutput(scenario: scenario, outputDirectory: folder, renderer: nil, cancellation: cancellation).run()
        let json = report.json()
        var metrics: [String: JSONValue] = [:]
        for key in GoldenVectors.metricKeys {
            metrics[key] = .object(["value": json["metrics"]?[key] ?? .null, "tolerance": .number(GoldenVectors.tolerance)])
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
        return .object(entry)
    }

    /// `measured` with the tolerance `previous` (the entry golden.json had) gives each metric,
    /// and its `"taps_sha256": null` (taps not compared) where it had one.
    static func keepingTolerances(of previous: JSONValue?, in measured: JSONValue) -> JSONValue {
        guard case .object(var entry) = measured, case .object(var metrics)? = entry["metrics"] else { return measured }
        if previous?["taps_sha256"] == .null { entry["taps_sha256"] = .null }
        for (key, metric) in metrics {
            guard case .number(let tolerance)? = previous?["metrics"]?[key]?["tolerance"], case .object(var parts) = metric else { continue }
            parts["tolerance"] = .number(tolerance)
            metrics[key] = .object(parts)
        }
        entry["metrics"] = .object(metrics)
        return .object(entry)
    }
}
