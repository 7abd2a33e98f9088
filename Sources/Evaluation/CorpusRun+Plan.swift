import AudioCore
import AudioInterop
import Crypto
import Foundation
import ScenarioFiles
import Simulation

/// The plan of a corpus run: its entries, this shard's slice of them, and what identifies the
/// whole plan across its shards.
extension CorpusRun {
    /// Items × modes in plan order, this shard's slice only.
    public var plan: [Entry] {
        let modes: [EchoControlMode?] = self.modes ?? [nil]
        let all = items.indices.flatMap { item in modes.map { Entry(item: item, mode: $0) } }
        guard let shard else { return all }
        return all.enumerated().filter { shard.contains($0.offset) }.map { $0.element }
    }

    /// What every shard of one plan shares: the number of entries of the whole plan and a SHA-256
    /// of its modes and items, in plan order (a scenario's file as given and its text, so that a
    /// scenario edited between two shards' jobs is another plan; a recording's name, files,
    /// channel and talk type; a broken item's name, file and problem; each field prefixed with its
    /// length, so no two lists hash the same text), and of the plugins its runs use, by name: the
    /// file's SHA-256, its options and its rate (a plugin rebuilt for each shard's job, or given
    /// other options, is another canceller under the same name: its shards' runs were summed as
    /// one mode). Audio files are named, not read: hashing a corpus's recordings would cost a read
    /// of all of them in every shard.
    public struct PlanIdentity: Sendable, Equatable {
        public var entries: Int
        public var digest: String
    }

    /// This run's whole plan, unsharded; `plugins`: those its runs use, `pluginDigests`: their
    /// files' SHA-256 as the eval started.
    func planIdentity(plugins: [CancellerPlugin], pluginDigests: PluginDigests) -> PlanIdentity {
        var hash = SHA256()
        func field(_ text: String?) {
            let bytes = Array((text ?? "\u{0}none").utf8)
            hash.update(data: Array("\(bytes.count):".utf8))
            hash.update(data: bytes)
        }
        field(modes.map { $0.map(\.description).joined(separator: ",") } ?? "as written")
        for item in items {
            switch item {
            case .scenario(let file):
                field("scenario"); field(file)
                field(FileManager.default.contents(atPath: file).map { lowercaseHex(SHA256.hash(data: $0)) })
            case .recording(let recording):
                field("recording"); field(recording.name); field(recording.mic); field(recording.loopback)
                field(recording.echo); field(recording.nearEnd); field("\(recording.channel)"); field(recording.talkType?.rawValue)
            case .broken(let name, let file, let problem):
                field("broken"); field(name); field(file); field(problem)
            }
        }
        // Nothing where no plugin runs, so that such a plan keeps the digest it had.
        var named: [String: CancellerPlugin] = [:]
        for plugin in plugins where named[plugin.name] == nil { named[plugin.name] = plugin }
        for plugin in named.values.sorted(by: { $0.name < $1.name }) {
            field("plugin"); field(plugin.name); field(pluginDigests.digest(of: plugin)); field(plugin.options); field("\(plugin.sampleRate)")
        }
        return PlanIdentity(entries: items.count * (modes?.count ?? 1), digest: lowercaseHex(hash.finalize()))
    }

    /// The K-th of N deterministic slices of a plan: entry i belongs to slice i mod N + 1.
    public struct Shard: Sendable, Equatable, CustomStringConvertible {
        public let index: Int
        public let count: Int

        public init(index: Int, count: Int) throws {
            guard count >= 1, (1...count).contains(index) else {
                throw ShardError(text: "\(index)/\(count)")
            }
            self.index = index
            self.count = count
        }

        /// Reads `K/N`.
        public init(parsing text: String) throws {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 2, let index = parts[0], let count = parts[1] else { throw ShardError(text: text) }
            try self.init(index: index, count: count)
        }

        public var description: String { "\(index)/\(count)" }
        func contains(_ position: Int) -> Bool { position % count == index - 1 }
    }

    public struct ShardError: DescribedError {
        public let text: String
        public var description: String { "'\(text)': a shard is K/N with 1 ≤ K ≤ N" }
    }
}
