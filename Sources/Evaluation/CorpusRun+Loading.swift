import AudioCore
import AudioInterop
import Foundation
import ScenarioFiles
import Simulation

/// A corpus's items loaded once before anything runs, checked against the output folder.
extension CorpusRun {
    /// A loaded item: a scenario, or a recording as it is.
    enum Loaded: Sendable {
        case scenario(Scenario)
        case recording(RecordingItem)
    }

    /// The items loaded (or why each cannot be), in the corpus's order: `load()` once, then
    /// `checkOutputFolder(_:)` and `run(_:progress:)`.
    public struct LoadedItems: Sendable {
        let items: [Swift.Result<Loaded, ItemError>]

        /// The backends the loaded items run in as written (without `--modes`): each scenario's
        /// own, and `recordingDefaultMode`'s for a recording, by name, each once in plan order —
        /// a scenario refused for its plugin (a name given another canceller) names it too, so
        /// that a `--plugin` of that name is not said to be unused.
        public var backendsAsWritten: [String] {
            var names: [String] = []
            for item in items {
                let name: String
                switch item {
                case .success(.scenario(let scenario)): name = scenario.voiceProcessing.backend.name
                case .success(.recording): name = CorpusRun.recordingDefaultMode.backend.name
                case .failure(let error):
                    guard let backend = error.backendAsWritten else { continue }
                    name = backend
                }
                if !names.contains(name) { names.append(name) }
            }
            return names
        }
    }

    /// Loads every scenario once, before anything runs. Each item writes OUT/NAME/, so two with
    /// one name would overwrite each other: the second is refused.
    public func load() -> LoadedItems { LoadedItems(items: loadScenarios()) }

    /// Throws `OutputFolder.Conflict` when the output folder is, or holds, a file that an item
    /// reads — an input beside the corpus that eval's own reports would replace (an input named
    /// `eval.html` in `--out`), or an earlier run's tap that another item reads and its own
    /// re-run would rewrite. `run` refuses a folder holding its scenario's inputs; eval writes
    /// into the whole `--out`, so every item's inputs are checked against it before anything is
    /// written or removed.
    public func checkOutputFolder(_ loaded: LoadedItems) throws {
        try OutputFolder.check(outputDirectory, holdsNoneOf: plugins)
        for case .success(let item) in loaded.items {
            switch item {
            case .scenario(let scenario):
                try OutputFolder.check(outputDirectory, for: scenario)
            case .recording(let recording):
                try OutputFolder.check(outputDirectory, holdsNone: recording.inputs,
                                       of: recording.origin.map { "\($0) (\(recording.name))" } ?? "recording \(recording.name)")
            }
        }
    }

    private func loadScenarios() -> [Swift.Result<Loaded, ItemError>] {
        // Names are compared case aside: OUT/NAME/ of `Call` and `call` is one folder on a
        // case-insensitive file system (macOS's default), where their runs would overwrite each other.
        func key(_ name: String) -> String { name.lowercased() }
        var firstFileOfName: [String: String] = [:]
        var firstNameOfKey: [String: String] = [:]
        /// The mic of each name's recording where a recording folder (not a manifest) gave it.
        var folderRecordingOfName: [String: String] = [:]
        // The item that first took each name, and the first other item that claimed it: both
        // fail. Were the first to run, eval.json and the gate would hold under the name whichever
        // file sorts first — a copy not renamed took an item's place in the baseline's eyes.
        var firstIndexOfName: [String: Int] = [:]
        var claimedAgain: [Int: (name: String, place: String, by: String)] = [:]
        // Each scenario file's first listing, by its canonical path: the same file reached twice
        // (a folder given twice, `.` and `sub/..`) is said as such before it is read, so a broken
        // one's problem is not printed once per listing.
        var firstListingOfFile: [String: String] = [:]
        var loaded = items.enumerated().map { index, item -> Swift.Result<Loaded, ItemError> in
            if case .scenario(let file) = item {
                let canonical = InputFile.canonical(file)
                if let first = firstListingOfFile[canonical] {
                    return .failure(ItemError(description: "\(file): listed twice in the corpus (also as \(first)): give each item once"))
                }
                firstListingOfFile[canonical] = file
            }
            do {
                let loaded: Loaded
                let name: String
                // Where the item is written down, for messages: a manifest's entry, else its file.
                var place = item.file
                switch item {
                case .scenario(let file):
                    let scenario = try ScenarioLoader.load(path: file)
                    (loaded, name) = (.scenario(scenario), scenario.name)
                case .recording(let recording):
                    (loaded, name) = (.recording(recording), recording.name)
                    place = recording.origin ?? item.file
                case .broken(let name, _, let problem):
                    // Its name is taken: two runs with one name and mode would be one to compare.
                    if firstFileOfName[key(name)] == nil { (firstFileOfName[key(name)], firstNameOfKey[key(name)]) = (item.file, name) }
                    return .failure(ItemError(description: problem))
                }
                if let first = firstFileOfName[key(name)] {
                    let asWritten = firstNameOfKey[key(name)].flatMap { $0 == name ? nil : $0 }
                    func caseNote(_ other: String) -> String { " (as '\(other)': names that differ only in case are one folder on a case-insensitive file system)" }
                    // The first item is told of the claim under its own name, and of the other's as written.
                    let claim = (name: asWritten ?? name, place: first,
                                 by: place + (asWritten == nil ? "" : caseNote(name)))
                    if case .recording(let recording) = item, recording.origin == nil, let other = folderRecordingOfName[key(name)] {
                        // One folder's recording reached twice (a folder given twice, or a set and
                        // its own subfolder) is said as such, as a scenario's file is.
                        if InputFile.canonical(other) == InputFile.canonical(recording.mic) {
                            return .failure(ItemError(description: "\(place): listed twice in the corpus (also as \(first)): give each item once"))
                        }
                        if let index = firstIndexOfName[key(name)], claimedAgain[index] == nil { claimedAgain[index] = claim }
                        // Two AEC-Challenge folders name their items alike (fileid_0, …).
                        return .failure(ItemError(description: "\(place): name: '\(name)' is already used by \(first): two recording folders "
                                                  + "name their items alike; evaluate them apart, or list one's recordings in a manifest under names of their own"))
                    }
                    if let index = firstIndexOfName[key(name)], claimedAgain[index] == nil { claimedAgain[index] = claim }
                    return .failure(ItemError(description: "\(place): name: '\(name)' is already used by \(first)\(asWritten.map(caseNote) ?? "")"))
                }
                // OUT/NAME/ beside eval's own reports: a folder named eval.md would take the
                // report's place (and an earlier eval.md would be removed for it).
                if Self.reportNames.contains(name.lowercased()) {
                    return .failure(ItemError(description: "\(place): name: '\(name)' is a report eval writes in its output folder; choose another"))
                }
                (firstFileOfName[key(name)], firstNameOfKey[key(name)]) = (place, name)
                firstIndexOfName[key(name)] = index
                if case .recording(let recording) = item, recording.origin == nil { folderRecordingOfName[key(name)] = recording.mic }
                return .success(loaded)
            } catch {
                // Named below, once every item's name is known.
                return .failure(ItemError(description: String(describing: error), itemName: (error as? ScenarioError)?.itemName))
            }
        }
        // A scenario that failed after its own name was read fails under that name — the baseline
        // knows its runs by it, not by the file's — where no other item has it, whatever the
        // order of the files: a broken copy (an editor's backup) took a healthy item's name and
        // had it refused.
        var brokenNames: [String: Int] = [:]
        for case .failure(let error) in loaded { if let name = error.itemName { brokenNames[key(name), default: 0] += 1 } }
        for index in loaded.indices {
            guard case .failure(var error) = loaded[index], let name = error.itemName else { continue }
            if firstFileOfName[key(name)] != nil || brokenNames[key(name)] != 1 || Self.reportNames.contains(name.lowercased()) {
                error.itemName = nil
                loaded[index] = .failure(error)
            }
        }
        for (index, claim) in claimedAgain {
            loaded[index] = .failure(ItemError(description: "\(claim.place): name: '\(claim.name)' is also used by \(claim.by): "
                                               + "neither runs, since eval.json and the gate know an item by its name; give each its own"))
        }
        // Only scenarios that run, as written, use their own plugins (--modes replaces a
        // scenario's aec): the first to give a name a canceller keeps it. A conflict fails the
        // item under its own name, which its baseline runs are known by.
        guard modes == nil else { return loaded }
        var pluginNames = PluginNames(registered: plugins)
        for index in loaded.indices {
            guard case .success(.scenario(let scenario)) = loaded[index], let plugin = scenario.voiceProcessing.backend.plugin else { continue }
            do {
                try pluginNames.admit(plugin, from: items[index].file)
            } catch {
                loaded[index] = .failure(ItemError(description: String(describing: error), itemName: scenario.name,
                                                   backendAsWritten: plugin.name))
            }
        }
        return loaded
    }

    /// The distinct far-end and near-end files of the loaded scenarios, in plan order: what every
    /// run of them reads at the engine's rate.
    static func engineRateInputs(_ scenarios: [Swift.Result<Loaded, ItemError>]) -> [(path: String, channel: ChannelSelection)] {
        var seen = Set<String>(), files: [(path: String, channel: ChannelSelection)] = []
        for case .success(.scenario(let scenario)) in scenarios {
            for case .file(let path, let channel)? in [scenario.farEnd, scenario.nearEnd]
            where seen.insert("\(channel) \(path)").inserted {
                files.append((path, channel))
            }
        }
        return files
    }
}
