import AudioCore

/// A scenario file that cannot be run, with the file and the key at fault in one line.
public struct ScenarioError: DescribedError, Equatable {
    public let file: String
    public let key: String?
    public let problem: String

    public init(file: String, key: String?, problem: String) {
        self.file = file
        self.key = key
        self.problem = problem
    }

    public var description: String {
        if let key { return "\(file): \(key): \(problem)" }
        return "\(file): \(problem)"
    }
}
