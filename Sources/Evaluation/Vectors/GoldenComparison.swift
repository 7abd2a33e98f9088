import AudioCore
import Foundation
import EchoLabJSON

/// A measured golden entry against the expected one (checked complete by `GoldenFile`): one
/// line per difference, each naming the scenario file and what differs.
enum GoldenComparison {
    static func differences(_ measured: JSONValue, _ want: JSONValue, file: String) -> [String] {
        var problems: [String] = []
        for key in GoldenVectors.metricKeys {
            let got = measured["metrics"]?[key]?["value"] ?? .null
            let expected = want["metrics"]?[key]?["value"] ?? .null
            switch (got, expected) {
            case (.number(let a), .number(let b)):
                // As golden.json holds it, to four decimals: an exact tolerance (0) passes the
                // value bless wrote a moment ago.
                let (measured, golden) = (printed(a), printed(b))
                let tolerance = want["metrics"]?[key]?["tolerance"]?.doubleValue ?? GoldenVectors.tolerance
                if !isWithin(measured, golden, tolerance: tolerance) {
                    problems.append("\(file): \(key) \(FixedDecimal.text(measured, fractionDigits: 4)) differs from golden "
                                    + "\(FixedDecimal.text(golden, fractionDigits: 4)) ± \(tolerance)")
                }
            case (.null, .null): break
            default: problems.append("\(file): \(key) is \(text(got)) but golden has \(text(expected))")
            }
        }
        if measured["findings"] != want["findings"] {
            problems.append("\(file): findings differ from golden: got \(text(measured["findings"])), golden has \(text(want["findings"]))")
        }
        for key in GoldenFile.pipelineKeys where measured["pipeline"]?[key] != want["pipeline"]?[key] {
            problems.append("\(file): pipeline.\(key) is \(text(measured["pipeline"]?[key])) but golden has \(text(want["pipeline"]?[key]))")
        }
        // `"taps_sha256": null`: the taps are not compared (results from another machine, whose
        // floating point moves the last bits), said in golden.json where its diff shows it.
        if want["taps_sha256"] != .null {
            problems += tapDifferences(measured["taps_sha256"]?.objectValue ?? [:], want["taps_sha256"]?.objectValue ?? [:], file: file)
        }
        // As golden.json prints it: its numbers are the measured ones rounded (a restart's
        // 9.9999999999998 ms is golden's 10).
        problems += leafDifferences(measured["hardware"]?.roundedAsPrinted(), want["hardware"], path: "hardware")
            .map { "\(file): \($0.path) is \(text($0.got)) but golden has \(text($0.want))" }
        return problems
    }

    /// The paths (`hardware.routes[1].route`) where two values differ, down to their leaves: the
    /// whole objects on one line, 2,400 characters each, hid the one key that changed.
    static func leafDifferences(_ got: JSONValue?, _ want: JSONValue?, path: String) -> [(path: String, got: JSONValue?, want: JSONValue?)] {
        switch (got, want) {
        case let (.object(a)?, .object(b)?):
            return Set(a.keys).union(b.keys).sorted().flatMap { leafDifferences(a[$0], b[$0], path: path + "." + $0) }
        case let (.array(a)?, .array(b)?) where a.count == b.count:
            return zip(a, b).enumerated().flatMap { leafDifferences($1.0, $1.1, path: path + "[\($0)]") }
        default:
            return got == want ? [] : [(path, got, want)]
        }
    }

    /// One line per tap that differs, by name: all the hashes on one line hid which one it was.
    private static func tapDifferences(_ got: [String: JSONValue], _ want: [String: JSONValue], file: String) -> [String] {
        Set(got.keys).union(want.keys).sorted().compactMap { tap in
            switch (got[tap]?.stringValue, want[tap]?.stringValue) {
            case let (a?, b?) where a.lowercased() != b.lowercased(): "\(file): tap \(tap): SHA-256 \(a) differs from golden \(b)"
            case (_?, nil): "\(file): tap \(tap): written by the run, but golden has no hash for it"
            case (nil, _?): "\(file): tap \(tap): golden has a hash, but the run wrote no such tap"
            default: nil
            }
        }
    }

    /// `measured` lies within `tolerance` of `golden`, both to four decimals, the same on either
    /// side: their difference is counted in whole ten-thousandths, and so is a tolerance of four
    /// decimals or fewer. (In binary, 9.7447 − 9.6947 is 0.0500000000000007 and failed ± 0.05,
    /// while 9.6947 − 9.6447 passed.)
    static func isWithin(_ measured: Double, _ golden: Double, tolerance: Double) -> Bool {
        let difference = abs(FixedDecimal.scaled(measured, fractionDigits: 4) - FixedDecimal.scaled(golden, fractionDigits: 4))
        let units = tolerance * 10_000
        let allowed = abs(units - units.rounded()) < 1e-6 ? units.rounded() : units
        return Double(difference) <= allowed
    }

    /// A metric as golden.json holds it: rounded to four decimals as they are printed.
    static func printed(_ value: Double) -> Double { Double(FixedDecimal.scaled(value, fractionDigits: 4)) / 10_000 }

    /// A value on one line for a message: its canonical text without the final newline and
    /// with each line's indentation gone.
    static func text(_ value: JSONValue?) -> String {
        guard let value else { return "nothing" }
        return value.canonicalText().split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }
}
