import AudioCore

/// A scenario file that cannot be run, with the file and the key at fault in one line.
public struct ScenarioError: DescribedError, Equatable {
    public let file: String
    public let key: String?
    public let problem: String
    /// The scenario's own `name`, where the file gives one and it was read before the problem:
    /// an eval lists the failure under it, which the item's baseline runs are known by.
    public var itemName: String?

    public init(file: String, key: String?, problem: String, itemName: String? = nil) {
        self.file = file
        self.key = key
        self.problem = problem
        self.itemName = itemName
    }

    public var description: String {
        if let key { return "\(file): \(key): \(problem)" }
        return "\(file): \(problem)"
    }
}
