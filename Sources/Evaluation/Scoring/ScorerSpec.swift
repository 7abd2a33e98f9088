import AudioCore
import Foundation

/// A scorer as `--scorer NAME=PROGRAM` names it: the name its scores are reported under, and the
/// command that starts it (run by `/bin/sh -c`, so it may carry arguments).
public struct ScorerSpec: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let command: String

    public init(name: String, command: String) throws {
        guard !name.isEmpty, name.count <= 64,
              name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
        else {
            throw ScorerSpecError(text: "\(name)=\(command)", problem: "a scorer's name is 1 to 64 of a-z, 0-9, '-' and '_'")
        }
        guard !command.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ScorerSpecError(text: "\(name)=", problem: "no program after '='")
        }
        self.name = name
        self.command = command
    }

    /// Reads `NAME=PROGRAM`.
    public init(parsing text: String) throws {
        guard let equals = text.firstIndex(of: "=") else {
            throw ScorerSpecError(text: text, problem: "expected NAME=PROGRAM")
        }
        try self.init(name: String(text[..<equals]), command: String(text[text.index(after: equals)...]))
    }

    public var description: String { "\(name)=\(command)" }
}

/// A `--scorer` value that is not `NAME=PROGRAM`.
public struct ScorerSpecError: DescribedError {
    public let text: String
    public let problem: String
    public var description: String { "--scorer '\(text)': \(problem)" }
}
