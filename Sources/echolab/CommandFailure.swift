import ArgumentParser
import Foundation

/// Prints one line naming the file and the problem, and exits non-zero. Typed errors of the
/// library are `CustomStringConvertible` with the file (and key) first.
enum CommandFailure {
    static func exit(_ error: Error, code: Int32 = 1) -> ExitCode {
        standardError("echolab: \(describe(error))")
        return ExitCode(code)
    }

    static func describe(_ error: Error) -> String {
        let text = String(describing: error)
        return text.split(separator: "\n").joined(separator: " ")
    }
}

func standardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Whether progress lines go to stderr: only on a terminal.
var showsProgress: Bool { isatty(STDERR_FILENO) != 0 }
