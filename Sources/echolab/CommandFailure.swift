import ArgumentParser
import AudioCore
import AudioInterop
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

/// Writes `line` and a line break to stderr, as one line a terminal shows as it is (`printable`).
func standardError(_ line: String) {
    writeStandardError(printable(line) + "\n")
}

/// Writes `text` to stderr as it is, with write(2). A reader that went away (EPIPE: SIGPIPE is
/// ignored, `EchoLab.main`) or a full disk loses the text, never the command: Foundation's
/// `FileHandle.write(_:)` traps on a failed write, and the reports still to be written would be
/// lost with the process.
func writeStandardError(_ text: String) {
    _ = SystemCalls.writeAll(text, to: STDERR_FILENO)
}

/// Writes `what` (a command's primary output: metrics' JSON, compare's verdict) to stdout, after
/// anything printed before it, and fails the command (exit `code`, one line on stderr) when it
/// cannot all be written: a full disk or a reader that went away would otherwise lose it under
/// exit status 0.
func writeStandardOutput(_ text: String, what: String, code: Int32 = 1) throws {
    fflush(nil)
    if let reason = SystemCalls.writeAll(text, to: STDOUT_FILENO) {
        throw CommandFailure.exit(StandardOutputError(what: what, reason: reason), code: code)
    }
}

/// The primary output could not be written to stdout.
struct StandardOutputError: Error, CustomStringConvertible {
    let what: String
    let reason: String
    var description: String { "standard output: cannot write \(what): \(reason)" }
}

/// `PrintableText.line`: every message and summary line goes through it.
func printable(_ text: String) -> String { PrintableText.line(text) }

/// Whether progress lines go to stderr: only on a terminal.
/// A progress line redraws itself with ANSI's erase-line, which a terminal that says it has no
/// such control (TERM=dumb: Emacs' shell, some CI consoles) prints as text: none there.
var showsProgress: Bool { isatty(STDERR_FILENO) != 0 && ProcessInfo.processInfo.environment["TERM"] != "dumb" }
