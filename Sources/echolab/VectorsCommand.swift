import ArgumentParser
import Foundation
import Evaluation
import Reporting

struct VectorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vectors",
        abstract: "Recreate, re-measure or check the golden test vectors.",
        subcommands: [Generate.self, Bless.self, Verify.self]
    )

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Write the seeded input signals and scenario files (bit-identical every time).")
        @Option(help: "The vectors folder.")
        var vectors: String = "vectors"

        func run() throws {
            do { try VectorCorpus.generate(into: vectors) } catch { throw CommandFailure.exit(error) }
            print(printable("vectors: inputs and scenarios written to \(vectors)"))
        }
    }

    struct Bless: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bless",
            abstract: "Run every vector scenario and record its metrics and tap hashes in golden.json.",
            discussion: "Only after an intended change of behaviour: review the diff of golden.json.")
        @Option(help: "The vectors folder.")
        var vectors: String = "vectors"

        func run() throws {
            do { try GoldenVectors(directory: vectors).bless() } catch { throw CommandFailure.exit(error) }
            print(printable("vectors: \(vectors)/golden.json re-measured; review its diff"))
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Run every vector scenario and compare with golden.json; exit 3 on a mismatch.")
        @Option(help: "The vectors folder.")
        var vectors: String = "vectors"

        func run() throws {
            let mismatches: [String]
            do { mismatches = try GoldenVectors(directory: vectors).verify() } catch { throw CommandFailure.exit(error) }
            for line in mismatches { standardError("echolab: \(line)") }
            if !mismatches.isEmpty { throw ExitCode(3) }
            print("golden vectors: all match")
        }
    }
}
