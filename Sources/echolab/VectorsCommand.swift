import ArgumentParser
import Foundation
import Evaluation
import Reporting

struct VectorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vectors",
        abstract: "Recreate, re-measure or check the golden test vectors.",
        discussion: """
        The vectors folder holds inputs/ (small seeded signals), scenarios/ (one scenario per case) and golden.json \
        (each scenario's metrics with tolerances, findings (lint and requirement), pipeline counters and the SHA-256 of its output taps). \
        Run each subcommand from the project's root, or give --vectors.
        """,
        subcommands: [Generate.self, Bless.self, Verify.self]
    )

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Write the seeded input signals and scenario files (bit-identical every time).",
            discussion: "Writes VECTORS/inputs/ and VECTORS/scenarios/; golden.json is left as it is. Exit codes: 0 written; 1 a file cannot be written; 64 usage error.")
        @OptionGroup
        var options: VectorsOptions

        func run() throws {
            do { try VectorCorpus.generate(into: options.vectors) } catch { throw CommandFailure.exit(error) }
            print(printable("vectors: inputs and scenarios written to \(options.vectors)"))
        }
    }

    struct Bless: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bless",
            abstract: "Run every vector scenario and record its metrics and tap hashes in golden.json.",
            discussion: "Only after an intended change of behaviour: review the diff of golden.json. Exit codes: 0 re-measured; 1 a scenario cannot be run or golden.json cannot be written; 64 usage error.")
        @OptionGroup
        var options: VectorsOptions

        func run() throws {
            do { try GoldenVectors(directory: options.vectors).bless() } catch { throw CommandFailure.exit(error) }
            print(printable("vectors: \(options.vectors)/golden.json re-measured; review its diff"))
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Run every vector scenario and compare with golden.json; exit 3 on a mismatch.",
            discussion: "golden.json is checked first: a value that is not a number or null, a negative tolerance or an unknown key is an error naming the key, not a difference. Each mismatch is one line on stderr. Exit codes: 0 all match; 1 golden.json missing or malformed, or a scenario that cannot run; 3 a mismatch; 64 usage error.")
        @OptionGroup
        var options: VectorsOptions

        func run() throws {
            let mismatches: [String]
            do { mismatches = try GoldenVectors(directory: options.vectors).verify() } catch { throw CommandFailure.exit(error) }
            for line in mismatches { standardError("echolab: \(line)") }
            if !mismatches.isEmpty { throw ExitCode(3) }
            print("golden vectors: all match")
        }
    }
}
