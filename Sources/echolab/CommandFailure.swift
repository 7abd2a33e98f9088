import ArgumentParser
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

/// `text` as one line that a terminal shows as it is (stderr's lines and the commands' summary
/// lines on stdout): line breaks (also U+2028, U+2029) and tabs
/// become spaces, every other control character (NUL, ESC, DEL, the C1 range) a visible `\xNN`,
/// and the bidirectional controls, which reorder what follows them, a visible `\u{NNNN}`.
/// Messages quote file names and scenario values, and an ESC there could move the cursor or
/// clear the screen.
func printable(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n", "\r", "\t", "\u{2028}", "\u{2029}": result.append(" ")
        case _ where scalar.value < 0x100 && needsEscape(scalar):
            let hex = String(scalar.value, radix: 16)
            result.append(contentsOf: "\\x\(hex.count < 2 ? "0" + hex : hex)".unicodeScalars)
        case _ where needsEscape(scalar):
            result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
        default: result.append(scalar)
        }
    }
    return String(result)
}

private func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029: true
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true      // bidirectional controls
    default: false
    }
}

/// Whether progress lines go to stderr: only on a terminal.
var showsProgress: Bool { isatty(STDERR_FILENO) != 0 }
