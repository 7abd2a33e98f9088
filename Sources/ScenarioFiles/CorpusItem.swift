/// One item of a corpus: a scenario file (simulated), or a recording (straight to the canceller).
public enum CorpusItem: Sendable, Hashable {
    case scenario(String)
    case recording(RecordingItem)
    /// A recording that cannot run (a missing file, a wrong key in its manifest entry): it fails
    /// with `problem` in every mode, and the other items still run.
    case broken(name: String, file: String, problem: String)

    /// The file that names it in messages and eval.json (the scenario, the recording's mic, or
    /// what lists the broken item).
    public var file: String {
        switch self {
        case .scenario(let file): file
        case .recording(let item): item.mic
        case .broken(_, let file, _): file
        }
    }
}
