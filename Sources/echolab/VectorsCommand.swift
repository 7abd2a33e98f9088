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
            abstract: "Write EchoLab's shipped seeded input signals and scenario files (bit-identical every time).",
            discussion: """
            (Re)creates EchoLab's own vectors in VECTORS/inputs/ and VECTORS/scenarios/ (make vectors); golden.json is left as it is. \
            A file there of a shipped name is kept if it already holds those bytes; one that differs is refused before anything is written. \
            Exit codes: 0 written; 1 a file cannot be written, or differs from the shipped file of its name; 64 usage error.
            """)
        @OptionGroup
        var options: VectorsOptions

        func run() throws {
            let counts: (written: Int, unchanged: Int)
            do { counts = try VectorCorpus.generate(into: options.vectors) } catch { throw CommandFailure.exit(error) }
            // Said as it is: "written" of a folder that already holds every file reads as a change.
            let files = { (count: Int) in count == 1 ? "1 file" : "\(count) files" }
            if counts.written == 0 {
                print(printable("vectors: \(options.vectors) already holds the \(files(counts.unchanged)) shipped; none written"))
            } else {
                print(printable("vectors: \(files(counts.written)) written to \(options.vectors)\(counts.unchanged > 0 ? ", \(counts.unchanged) already as shipped" : "")"))
            }
        }
    }

    struct Bless: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bless",
            abstract: "Run every vector scenario and record its metrics and tap hashes in golden.json.",
            discussion: """
            Only after an intended change of behaviour: review the diff of golden.json. Each metric keeps the tolerance golden.json gave it \
            (0.05 where it gives none). Two scenario files with one name are refused. Exit codes: 0 re-measured; 1 a scenario cannot be run, \
            two share a name, or golden.json cannot be read or written (then it is left as it was); 64 usage error; \
            129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (golden.json left as it was).
            """)
        @OptionGroup
        var options: VectorsOptions

        func run() throws {
            Interrupts.install()
            do {
                try GoldenVectors(directory: options.vectors, cancellation: Interrupts.cancellation).bless()
            } catch is RunCancelled {
                standardError("echolab: vectors bless: interrupted; golden.json left as it was")
                throw ExitCode(Interrupts.exitCode ?? 130)
            } catch {
                throw CommandFailure.exit(error)
            }
            print(printable("vectors: \((options.vectors as NSString).appendingPathComponent("golden.json")) re-measured; review its diff"))
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Run every vector scenario and compare with golden.json; exit 3 on a mismatch.",
            discussion: """
            golden.json is checked first: a value that is not a number or null, a negative tolerance, an unknown key or schema, or a check \
            missing from an entry is an error naming the key, not a difference. A scenario that cannot run (or shares another's name) is \
            one line and the others are still checked. Each mismatch is one line on stderr. Exit codes: 0 all match; 1 golden.json missing \
            or malformed, or a scenario that cannot run (also when others mismatch); 3 a mismatch; 64 usage error; \
            129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM.
            """)
        @OptionGroup
        var options: VectorsOptions

        func run() throws {
            Interrupts.install()
            let verification: GoldenVectors.Verification
            do {
                verification = try GoldenVectors(directory: options.vectors, cancellation: Interrupts.cancellation).verify()
            } catch is RunCancelled {
                standardError("echolab: vectors verify: interrupted; not every scenario was checked")
                throw ExitCode(Interrupts.exitCode ?? 130)
            } catch {
                throw CommandFailure.exit(error)
            }
            for line in verification.lines { standardError("echolab: \(line)") }
            // A scenario that could not be checked is bad input, and may hide a mismatch of its own.
            if !verification.unchecked.isEmpty { throw ExitCode(1) }
            if !verification.mismatches.isEmpty { throw ExitCode(3) }
            print("golden vectors: all match")
        }
    }
}
