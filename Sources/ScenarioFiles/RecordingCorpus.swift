import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Simulation

/// A recorded call to score: the microphone and the loopback (what the loudspeaker played),
/// and, where the corpus has them, the echo and the near-end talker alone (a synthetic corpus's
/// ground truth). Recordings are not simulated: they go straight to the canceller.
public struct RecordingItem: Sendable, Hashable {
    public var name: String
    public var mic: String
    /// The far end as played (the canceller's reference); nil for near-end single talk.
    public var loopback: String?
    public var echo: String?
    public var nearEnd: String?
    public var talkType: TalkType?
    /// Which channel of multichannel files to take (mono files need none).
    public var channel: ChannelSelection
    /// Where the item is written down, for messages: `MANIFEST: corpus[N]` (nil for an
    /// AEC-Challenge folder's items, which their mic's path names).
    public var origin: String?

    public init(name: String, mic: String, loopback: String?, echo: String? = nil, nearEnd: String? = nil, talkType: TalkType? = nil,
                channel: ChannelSelection = .monoOnly, origin: String? = nil) {
        self.name = name
        self.mic = mic
        self.loopback = loopback
        self.echo = echo
        self.nearEnd = nearEnd
        self.talkType = talkType
        self.channel = channel
        self.origin = origin
    }

    /// The files it reads, each with the manifest key that names it.
    public var inputs: [(path: String, key: String?)] {
        [("mic", mic), ("loopback", loopback), ("echo", echo), ("near_end", nearEnd)]
            .compactMap { key, path in path.map { (path: $0, key: Optional(key)) } }
    }
}

/// Who talks in a recording, as the AEC-Challenge names its real recordings (its blind test
/// sets write the same names with hyphens: `farend-singletalk-with-movement`).
public enum TalkType: String, Sendable, Hashable, CaseIterable {
    case farEndSingleTalk = "farend_singletalk"
    case farEndSingleTalkWithMovement = "farend_singletalk_with_movement"
    case doubleTalk = "doubletalk"
    case doubleTalkWithMovement = "doubletalk_with_movement"
    case nearEndSingleTalk = "nearend_singletalk"

    /// The talk type written either way (hyphens for underscores, or both mixed).
    init?(spelling: String) {
        self.init(rawValue: spelling.replacingOccurrences(of: "-", with: "_"))
    }

    /// Its two spellings: with underscores, as the challenge's real recordings are named, and
    /// with hyphens, as its blind test sets name files and folders.
    var spellings: [String] { [rawValue, rawValue.replacingOccurrences(of: "_", with: "-")] }

    /// The talk type a name ends with, in either spelling.
    static func ending(_ stem: String) -> TalkType? {
        // The longest first (…_singletalk_with_movement before …_singletalk).
        for type in allCases.sorted(by: { $0.rawValue.count > $1.rawValue.count }) {
            for spelling in type.spellings where stem.hasSuffix("_" + spelling) && stem.count > spelling.count + 1 {
                return type
            }
        }
        return nil
    }
}

/// Reads recordings laid out as the Microsoft AEC-Challenge ships them, as they are:
/// - **synthetic**: `farend_speech/farend_speech_fileid_N.wav`, `nearend_mic_signal/nearend_mic_fileid_N.wav`,
///   `echo_signal/echo_fileid_N.wav`, `nearend_speech/nearend_speech_fileid_N.wav` (and `meta.csv`);
///   item `fileid_N`, with the echo and near end as ground truth;
/// - **real**: `GUID_<talk type>_lpb.wav` + `GUID_<talk type>_mic.wav` (near-end single talk: the
///   mic alone); item `GUID_<talk type>`. The talk type may be written with hyphens
///   (`GUID_farend-singletalk-with-movement_mic.wav`), and the files may sit in one subfolder per
///   talk type (`doubletalk/`, `farend-singletalk/`, `nearend-singletalk/`; their `sweep/` is
///   passed over), as the blind test sets ship them.
/// Items come in a stable order (file ids numerically, names by byte order), so a corpus's
/// plan — and its shards — are the same on every machine.
public enum RecordingCorpus {
    public enum Layout: String, Sendable { case synthetic, real }

    /// Why a folder is not a usable recording corpus.
    public struct LayoutError: DescribedError, Equatable {
        public let path: String
        public let problem: String
        public var description: String { "\(path): \(problem)" }
    }

    /// The layout of `folder`, if it is one of the AEC-Challenge layouts.
    public static func layout(of folder: String) -> Layout? {
        var isDirectory: ObjCBool = false
        let mics = (folder as NSString).appendingPathComponent("nearend_mic_signal")
        if FileManager.default.fileExists(atPath: mics, isDirectory: &isDirectory), isDirectory.boolValue { return .synthetic }
        return realFolders(in: folder).contains { sub in
            sub == folder || ((try? FileManager.default.contentsOfDirectory(atPath: sub)) ?? []).contains { realName(of: $0)?.role == .mic }
        } ? .real : nil
    }

    /// The blind test sets' subfolders, one per talk type, in either spelling (their `sweep/`,
    /// calibration sweeps, is not read).
    static let talkTypeFolders = Set(TalkType.allCases.flatMap(\.spellings))

    /// Where a real layout's recordings are: the folder itself where it holds a recording's mic,
    /// and its talk-type subfolders — those only in a folder without scenarios (`*.json`): a
    /// folder of scenarios stays one, whatever its subfolders are called.
    static func realFolders(in folder: String) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        let own = names.contains { realName(of: $0)?.role == .mic } ? [folder] : []
        guard !names.contains(where: { $0.lowercased().hasSuffix(".json") }) else { return own }
        return own + names.filter(talkTypeFolders.contains).compactMap { name in
            let sub = (folder as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: sub, isDirectory: &isDirectory) && isDirectory.boolValue ? sub : nil
        }
    }

    /// The items of an AEC-Challenge folder. A mic whose far end or loopback is missing, whose
    /// partner file (echo and near-end tracks included) is there but cannot be read, a WAV whose
    /// name fits no item and a file of an item without a mic are broken items (a `LayoutError` naming
    /// the file as its message): each fails, the others still run.
    public static func items(in folder: String) throws -> [CorpusItem] {
        switch layout(of: folder) {
        case .synthetic: try syntheticItems(in: folder)
        case .real: try realItems(in: folder)
        case nil: throw LayoutError(path: folder, problem: "not an AEC-Challenge layout (no nearend_mic_signal/ folder, no *_mic.wav files)")
        }
    }

    /// The synthetic layout's folders: (folder, file prefix, one of its files in messages).
    static let syntheticFolders = [("nearend_mic_signal", "nearend_mic", "a mic"), ("farend_speech", "farend_speech", "a far-end file"),
                                   ("echo_signal", "echo", "an echo file"), ("nearend_speech", "nearend_speech", "a near-end speech file")]

    static func syntheticItems(in folder: String) throws -> [CorpusItem] {
        func path(_ sub: String, _ prefix: String, _ id: String) -> String {
            ((folder as NSString).appendingPathComponent(sub) as NSString).appendingPathComponent("\(prefix)_fileid_\(id).wav")
        }
        // Each folder's ids; a WAV that fits no name, or a file of an id without a mic, is an item
        // that fails (named by the file, as `sub/file.wav`): skipped, a gate would pass on less.
        var ids: [String: [String]] = [:]
        var strays: [CorpusItem] = []
        for (sub, prefix, _) in syntheticFolders {
            let subfolder = (folder as NSString).appendingPathComponent(sub)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: subfolder) else { continue }
            for name in names.sorted() where name.lowercased().hasSuffix(".wav") && !name.hasPrefix(".") {
                let id = name.hasPrefix(prefix + "_fileid_") && name.hasSuffix(".wav")
                    ? String(name.dropFirst(prefix.count + "_fileid_".count).dropLast(4)) : ""
                // The id names the item's output folder: it follows a scenario name's rule.
                if id.isEmpty || RunName.problem("fileid_\(id)") != nil {
                    let file = (subfolder as NSString).appendingPathComponent(name)
                    let error = LayoutError(path: file, problem: "not an AEC-Challenge synthetic name (\(sub)/\(prefix)_fileid_N.wav); rename or move it")
                    strays.append(.broken(name: "\(sub)/\(name)", file: file, problem: error.description))
                } else {
                    ids[sub, default: []].append(id)
                }
            }
        }
        let micIDs = ids["nearend_mic_signal"] ?? []
        guard !micIDs.isEmpty else {
            throw LayoutError(path: (folder as NSString).appendingPathComponent("nearend_mic_signal"), problem: "no nearend_mic_fileid_N.wav files")
        }
        let mics = Set(micIDs)
        for (sub, prefix, role) in syntheticFolders.dropFirst() {
            for id in (ids[sub] ?? []).sorted(by: numericOrder) where !mics.contains(id) {
                let file = path(sub, prefix, id)
                let error = LayoutError(path: file, problem: "\(role) without its mic (nearend_mic_fileid_\(id).wav)")
                strays.append(.broken(name: "\(sub)/\(prefix)_fileid_\(id).wav", file: file, problem: error.description))
            }
        }
        return micIDs.sorted(by: numericOrder).map { id in
            let loopback = path("farend_speech", "farend_speech", id), mic = path("nearend_mic_signal", "nearend_mic", id)
            let echo = path("echo_signal", "echo", id), nearEnd = path("nearend_speech", "nearend_speech", id)
            let mine = "nearend_mic_fileid_\(id).wav"
            // The far end must be there; the tracks may be absent, but one that is there and
            // cannot be read (a folder, no permission) would silently change the gate.
            for (file, role, required) in [(loopback, "the far end", true), (echo, "the echo track", false), (nearEnd, "the near-end track", false)] {
                guard let problem = partnerProblem(file, role: role, of: mine, whenMissing: required ? "missing: \(role) of \(mine)" : nil)
                else { continue }
                return .broken(name: "fileid_\(id)", file: mic, problem: LayoutError(path: file, problem: problem).description)
            }
            return .recording(RecordingItem(name: "fileid_\(id)", mic: mic, loopback: loopback,
                                            echo: InputFile.problem(at: echo) == nil ? echo : nil,
                                            nearEnd: InputFile.problem(at: nearEnd) == nil ? nearEnd : nil))
        } + strays
    }

    /// Why the partner file `path` (`role` of `mic`) cannot be used, or nil: `whenMissing` when
    /// nothing is at the path (nil: the file is optional), what is wrong with whatever is there
    /// otherwise.
    static func partnerProblem(_ path: String, role: String, of mic: String, whenMissing: String?) -> String? {
        guard let problem = InputFile.problem(at: path) else { return nil }
        // Nothing at the path, not even a link (`problem` names a link to nothing as such).
        var entry = stat()
        if lstat(path, &entry) != 0, errno == ENOENT { return whenMissing }
        return "\(problem); \(role) of \(mic)"
    }

    enum Role { case mic, loopback }

    /// `GUID_<talk type>_mic.wav` → (item `GUID_<talk type>`, talk type, role).
    static func realName(of file: String) -> (item: String, talkType: TalkType, role: Role)? {
        for (suffix, role) in [("_mic.wav", Role.mic), ("_lpb.wav", Role.loopback)] where file.hasSuffix(suffix) {
            let item = String(file.dropLast(suffix.count))
            if let type = TalkType.ending(item) { return (item, type, role) }
        }
        return nil
    }

    /// The recordings of the folder and of its talk-type subfolders, in that order. The folder's
    /// own WAVs are read even where none is a mic (each then fails as an item of its own), and a
    /// subfolder of a folder without scenarios that holds WAVs but is not named for a talk type
    /// fails as one item: read or failed, never passed over, so a gate never passes on fewer
    /// recordings than the folder holds.
    static func realItems(in folder: String) throws -> [CorpusItem] {
        var folders = realFolders(in: folder)
        if folders.first != folder && holdsWAVs(folder) { folders.insert(folder, at: 0) }
        return try folders.flatMap(realItems(inOne:)) + unreadSubfolders(of: folder)
    }

    /// Whether `folder` holds a WAV (not a hidden one) of its own.
    private static func holdsWAVs(_ folder: String) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains { $0.lowercased().hasSuffix(".wav") && !$0.hasPrefix(".") }
    }

    /// A subfolder holding WAVs that the real layout does not read (not a talk type's, not the
    /// sweeps'), as a broken item each; none in a folder of scenarios.
    private static func unreadSubfolders(of folder: String) -> [CorpusItem] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        guard !names.contains(where: { $0.lowercased().hasSuffix(".json") }) else { return [] }
        return names.compactMap { name in
            guard !name.hasPrefix("."), name != "sweep", !talkTypeFolders.contains(name) else { return nil }
            let sub = (folder as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: sub, isDirectory: &isDirectory), isDirectory.boolValue, holdsWAVs(sub) else { return nil }
            let folders = TalkType.allCases.map { $0.spellings[1] + "/" }.joined(separator: ", ")
            let error = LayoutError(path: sub, problem: "a folder of WAVs not named for a talk type (\(folders)): its recordings are not read; rename or move it")
            return .broken(name: name + "/", file: sub, problem: error.description)
        }
    }

    static func realItems(inOne folder: String) throws -> [CorpusItem] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        var items: [CorpusItem] = []
        for name in names.sorted() {
            // A WAV that does not fit the naming (another talk type, a case, a typo) or a
            // loopback without its mic is an item that fails: skipped, a gate would pass on less.
            let file = (folder as NSString).appendingPathComponent(name)
            // The challenge's real folders also hold `GUID_sweep_{mic,lpb}.wav`, sweeps for an RT60
            // estimate: calibration, not a call to cancel.
            if name.hasSuffix("_sweep_mic.wav") || name.hasSuffix("_sweep_lpb.wav") { continue }
            guard let parsed = realName(of: name) else {
                if name.lowercased().hasSuffix(".wav") && !name.hasPrefix(".") {
                    let error = LayoutError(path: file, problem: "not an AEC-Challenge recording name (ID_<talk type>_mic.wav or "
                                            + "_lpb.wav; talk types \(TalkType.allCases.map(\.rawValue).joined(separator: ", ")), "
                                            + "or with hyphens for underscores); rename or move it")
                    // Named by the whole file name: its stem may be a scenario's name elsewhere.
                    items.append(.broken(name: name, file: file, problem: error.description))
                }
                continue
            }
            // The item's name is a folder of the output, under the rule a scenario's name follows.
            if let problem = RunName.problem(parsed.item) {
                // One line per recording: its mic's (a loopback of its own only without one).
                if parsed.role == .loopback && names.contains(parsed.item + "_mic.wav") { continue }
                let error = LayoutError(path: file, problem: "the recording's name \(problem); rename it")
                items.append(.broken(name: name, file: file, problem: error.description))
                continue
            }
            guard parsed.role == .mic else {
                if !names.contains(parsed.item + "_mic.wav") {
                    let error = LayoutError(path: file, problem: "a loopback without its mic (\(parsed.item)_mic.wav)")
                    items.append(.broken(name: parsed.item, file: file, problem: error.description))
                }
                continue
            }
            let mic = (folder as NSString).appendingPathComponent(name)
            let loopback = (folder as NSString).appendingPathComponent(parsed.item + "_lpb.wav")
            let hasLoopback = InputFile.problem(at: loopback) == nil
            let whenMissing = parsed.talkType == .nearEndSingleTalk ? nil
                : "missing: the loopback of \(name) (\(parsed.talkType.rawValue) needs one)"
            if let problem = partnerProblem(loopback, role: "the loopback", of: name, whenMissing: whenMissing) {
                items.append(.broken(name: parsed.item, file: mic, problem: LayoutError(path: loopback, problem: problem).description))
                continue
            }
            items.append(.recording(RecordingItem(name: parsed.item, mic: mic, loopback: hasLoopback ? loopback : nil,
                                                  talkType: parsed.talkType)))
        }
        return items
    }

    /// File ids in numeric order (2 before 10), then by text for ids that are not numbers.
    static func numericOrder(_ a: String, _ b: String) -> Bool {
        switch (Int(a), Int(b)) {
        case let (x?, y?): x < y
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): a < b
        }
    }
}
