import EchoLabJSON
import Simulation

/// What `compare` and `merge` rely on in an `eval.json`, checked when it is read: a gate must not
/// pass because a file lost its items, a run its metrics, or an ERLE became the string "NaN" —
/// read leniently, each of these was "no regression" (exit 0).
extension EvalDocument {
    /// Pipeline counters that count faults (`compare`: any rise is a regression). Written, read,
    /// buffered, priming and tick counts measure volume, not faults.
    public static let faultCounters: Set<String> = ["underruns", "overruns", "ignored_frames", "dropped", "rejected_frames",
                                                    "sent_clicks", "sent_gaps", "aec_resets"]

    /// The first problem of `document` as an eval.json, naming its key (`items[3].results[1].metrics`),
    /// or nil when every key the readers use has its type: `complete`, `planned`, `items` (each
    /// with a unique `index` if any, a `name`, a `file` and `results`, each result with a mode
    /// unique in its item, an OUT-relative `folder` that stays inside OUT, an `error`, and when it
    /// ran, its metrics as numbers or null, its `findings` as a list of rule names, its `scores` (if any) as scorer results, its `pipeline` (a recording's faults, or null from an older eval) with fault
    /// counters as numbers, and no other run of its name and mode that ran).
    public static func problem(in document: JSONValue) -> String? {
        guard document.objectValue != nil else { return "not a JSON object" }
        guard document["complete"]?.boolValue != nil else { return "complete: missing or not true/false" }
        guard let planned = document["planned"]?.doubleValue, isCount(planned) else { return "planned: missing or not a count" }
        if let plan = document["plan"] {
            guard let entries = plan["entries"]?.doubleValue, isCount(entries), plan["digest"]?.stringValue != nil else {
                return "plan: not {\"entries\": count, \"digest\": text}"
            }
        }
        guard let items = document["items"]?.arrayValue else { return "items: missing or not a list" }
        var indices: [Int: Int] = [:]
        // Runs that ran, by item name and mode: what `compare` pairs. (A second item that took a
        // name already used is listed under it too, as failed: names alone are not unique.)
        var ran: [String: String] = [:]
        for (position, item) in items.enumerated() {
            let key = "items[\(position)]"
            guard item.objectValue != nil else { return "\(key): not an object" }
            // `index` came with shards (echolab.eval/1 files written before them have none).
            if let index = item["index"] {
                guard let number = index.doubleValue, isCount(number) else { return "\(key).index: not a count" }
                if let other = indices[Int(number)] { return "\(key).index: \(Int(number)) is also items[\(other)]'s" }
                indices[Int(number)] = position
            }
            guard let name = item["name"]?.stringValue, !name.isEmpty else { return "\(key).name: missing or not a name" }
            guard item["file"]?.stringValue != nil else { return "\(key).file: missing or not a string" }
            guard let results = item["results"]?.arrayValue else { return "\(key).results: missing or not a list" }
            var modes: Set<String> = []
            for (resultPosition, result) in results.enumerated() {
                let resultKey = "\(key).results[\(resultPosition)]"
                if let problem = problem(inResult: result, key: resultKey, modes: &modes) { return problem }
                if result["error"]?.isNull == true {
                    let run = "\(name)\u{0}\(result["mode"]?.stringValue ?? "")"
                    if let other = ran[run] { return "\(resultKey): '\(name)' in this mode also ran as \(other)" }
                    ran[run] = resultKey
                }
            }
        }
        return nil
    }

    /// Whether `text` is a mode as eval writes one: `disabled`, or a backend's name and an
    /// intensity other than disabled.
    static func isModeName(_ text: String) -> Bool {
        if text == "disabled" { return true }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let intensity = EchoCancellerMode(rawValue: String(parts[1])) else { return false }
        return intensity != .disabled
    }

    /// A whole number from 0 that an `Int` holds exactly.
    static func isCount(_ value: Double) -> Bool { value >= 0 && value == value.rounded() && value < 1e15 }

    private static func problem(inResult result: JSONValue, key: String, modes: inout Set<String>) -> String? {
        guard result.objectValue != nil else { return "\(key): not an object" }
        let mode = result["mode"]
        guard mode?.stringValue != nil || mode?.isNull == true else { return "\(key).mode: missing or not a string or null" }
        let modeKey = mode?.stringValue ?? ""
        // A mode is `disabled` or BACKEND:INTENSITY (a plugin's backend is any name): one edited
        // to `speex:intensityBogus` read as a new run, not a broken file.
        if let text = mode?.stringValue, !isModeName(text) {
            return "\(key).mode: '\(text)' is not disabled or BACKEND:INTENSITY"
        }
        if modes.contains(modeKey) { return "\(key).mode: \(mode?.stringValue ?? "null") is listed twice for this item" }
        modes.insert(modeKey)
        guard let folder = result["folder"]?.stringValue else { return "\(key).folder: missing or not a string" }
        // Readers join it to OUT (merge copies and replaces what is there): it must stay inside,
        // and out of hidden folders (merge's own staging folder among them).
        let parts = folder.split(separator: "/", omittingEmptySubsequences: false)
        guard !folder.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0.hasPrefix(".") }) else {
            return "\(key).folder: '\(folder)' is not a folder inside the eval's output folder"
        }
        let error = result["error"]
        guard error?.stringValue != nil || error?.isNull == true else { return "\(key).error: missing or not a string or null" }
        guard error?.isNull == true else { return nil }
        let metrics = result["metrics"]
        guard metrics?.objectValue != nil || metrics?.isNull == true else { return "\(key).metrics: missing or not an object" }
        for keys in checkedFigures {
            if let value = metrics?.value(at: keys.path), !value.isNull {
                guard let number = value.doubleValue else { return "\(key).metrics.\(keys.path): not a number or null" }
                if let problem = levelProblem(number, path: keys.path) { return "\(key).metrics.\(keys.path): \(problem)" }
            }
            if let frames = metrics?.value(at: keys.frames), let problem = countProblem(frames) {
                return "\(key).metrics.\(keys.frames): \(problem)"
            }
        }
        // The lint's gate reads them: a list it cannot read passed a new finding as "no change".
        // Every eval.json EchoLab wrote lists them for a run that ran, none or more.
        guard let findings = result["findings"]?.arrayValue, findings.allSatisfy({ $0.stringValue != nil }) else {
            return "\(key).findings: missing or not a list of rule names"
        }
        if let problem = problem(inSegments: result["segments"], key: "\(key).segments") { return problem }
        // The score gate reads them: a list it cannot read, taken as no scores, passed a
        // regression as "not run on one side".
        if let scores = result["scores"], (try? JSONValueDecoder().decode([ScorerResult].self, from: scores)) == nil {
            return "\(key).scores: not a list of scorer results"
        }
        // The hardware model's stream faults, gated as the pipeline's are.
        if let streams = result["hardware_streams"] {
            guard let members = streams.objectValue else { return "\(key).hardware_streams: not an object" }
            for name in ["dropped_samples", "underruns"] {
                guard let count = members[name] else { return "\(key).hardware_streams.\(name): missing" }
                if let problem = countProblem(count) { return "\(key).hardware_streams.\(name): \(problem)" }
            }
        }
        // A recording's run from an older eval has null.
        guard let pipeline = result["pipeline"] else { return "\(key).pipeline: missing" }
        guard !pipeline.isNull else { return nil }
        guard pipeline.objectValue != nil else { return "\(key).pipeline: not an object or null" }
        return problem(inCounters: pipeline, key: "\(key).pipeline")
    }

    /// A simulated run's segments (absent from a recording's run and from eval.json files
    /// written before eval listed segments): objects with a start and their echo removal as numbers or null.
    private static func problem(inSegments segments: JSONValue?, key: String) -> String? {
        guard let segments else { return nil }
        guard let list = segments.arrayValue else { return "\(key): not a list" }
        for (index, segment) in list.enumerated() {
            guard segment.objectValue != nil else { return "\(key)[\(index)]: not an object" }
            guard segment["start_s"]?.doubleValue != nil else { return "\(key)[\(index)].start_s: missing or not a number" }
            for figure in EvalComparison.segmentFigures {
                if let value = segment[figure.path], !value.isNull {
                    guard let number = value.doubleValue else { return "\(key)[\(index)].\(figure.path): not a number or null" }
                    if let problem = levelProblem(number, path: figure.path) { return "\(key)[\(index)].\(figure.path): \(problem)" }
                }
                if let frames = segment[figure.frames], let problem = countProblem(frames) {
                    return "\(key)[\(index)].\(figure.frames): \(problem)"
                }
            }
        }
        return nil
    }

    /// The figures whose values and frames are checked: those the statistics and the gate read.
    private static let checkedFigures: [EvalDocument.FigureKeys] = {
        var keys: [EvalDocument.FigureKeys] = []
        for figure in EvalDocument.summarisedMetrics.map(\.figure.keys) + EvalComparison.judgedFigures.map(\.keys) where !keys.contains(figure) {
            keys.append(figure)
        }
        return keys
    }()

    /// The most a level in dB may be, either way: EchoLab's figures stay within a few hundred dB
    /// (an input at +120 dBFS over digital silence), and past this a hand-edited 1e308 turned a
    /// fall of ERLE into an "improvement" as its change overflowed.
    static let levelLimitDB = 1000.0

    /// Why a figure's value cannot be one EchoLab wrote: not finite, or a level (`…_db`) beyond
    /// ±`levelLimitDB`.
    private static func levelProblem(_ value: Double, path: String) -> String? {
        guard value.isFinite else { return "not a finite number" }
        guard path.hasSuffix("_db"), abs(value) > levelLimitDB else { return nil }
        return "\(value) dB is not a level EchoLab writes (at most ±\(Int(levelLimitDB)) dB)"
    }

    /// Why a count (frames, a fault counter) cannot be one: not a whole number from 0 to 2^53.
    private static func countProblem(_ value: JSONValue) -> String? {
        guard let number = value.doubleValue else { return value.isNull ? "null, where every run EchoLab writes has a count" : "not a number" }
        return number >= 0 && number <= 0x1p53 && number == number.rounded() ? nil : "\(value.lineText()) is not a count (a whole number, 0 or more)"
    }

    /// Fault counters are numbers and `conserved` flags true/false, at any depth; a stage's count
    /// of clipped samples may be null (a recording without a loopback counts none of it).
    private static func problem(inCounters object: JSONValue, key: String) -> String? {
        for (name, value) in (object.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            let here = "\(key).\(name)"
            if value.objectValue != nil {
                if let problem = problem(inCounters: value, key: here) { return problem }
                if name == "clipped_samples", value.objectValue!.values.contains(where: { $0.doubleValue == nil && $0 != .null }) {
                    return "\(here): a stage's count is neither a number nor null"
                }
                if name == "clipped_samples",
                   let (stage, problem) = value.objectValue!.sorted(by: { $0.key < $1.key }).lazy
                       .compactMap({ stage, count in count.isNull ? nil : countProblem(count).map { (stage, $0) } }).first {
                    return "\(here).\(stage): \(problem)"
                }
            } else if faultCounters.contains(name) {
                guard value.doubleValue != nil else { return "\(here): not a number" }
                if let problem = countProblem(value) { return "\(here): \(problem)" }
            } else if name == "conserved", value.boolValue == nil {
                return "\(here): not true/false"
            }
        }
        return nil
    }
}
