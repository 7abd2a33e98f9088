import AudioInterop
import EchoLabJSON
import Foundation
import Metrics

/// Asks scorers about one run: cuts its signals into the stretches of one talk type each
/// (`ScoringStretch`), writes each stretch's files as 16-bit WAVs into a temporary folder, sends
/// one request per stretch to each scorer, and averages each score over a talk type's stretches,
/// weighted by their length. A scorer that fails any request of the run leaves its scores for the
/// run null with the reason; the run stands, and the other scorers are asked as usual.
public struct RunScoring {
    /// The run's signals, all lined up with the mic: the reference as played (the far end; not
    /// shifted by the echo's delay, as the AEC Challenge gives its loopback), the canceller's
    /// output with its latency taken out, and the clean tracks where they are known.
    public struct Signals {
        public var sampleRate: Int
        public var reference: [Float]
        public var mic: [Float]
        public var output: [Float]
        public var nearEnd: [Float]?
        public var echo: [Float]?

        public init(sampleRate: Int, reference: [Float], mic: [Float], output: [Float], nearEnd: [Float]? = nil, echo: [Float]? = nil) {
            self.sampleRate = sampleRate
            self.reference = reference
            self.mic = mic
            self.output = output
            self.nearEnd = nearEnd
            self.echo = echo
        }

        var length: Int { [reference.count, mic.count, output.count, nearEnd?.count ?? .max, echo?.count ?? .max].min()! }
    }

    /// The protocol version requests carry.
    public static let protocolVersion = 1

    /// Scores `signals` with each scorer; `id` names the run in the requests.
    public static func score(_ signals: Signals, talk runs: [TalkRun], frameSize: Int, id: String,
                             scorers: [ScorerProcess]) -> [ScorerResult] {
        guard !scorers.isEmpty else { return [] }
        let stretches = ScoringStretch.stretches(runs, frameSize: frameSize, sampleRate: signals.sampleRate, length: signals.length)
        guard !stretches.isEmpty else {
            let reason = "no stretch of one talk type lasts \(FixedDecimal.text(ScoringStretch.minimumSeconds, fractionDigits: 0)) s or more"
            return scorers.map { ScorerResult(name: $0.spec.name, talkTypes: nil, unscoredReason: reason) }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("echolab-score-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let requests: [JSONValue]
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            requests = try stretches.enumerated().map { index, stretch in
                try request(signals, stretch, index: index, id: id, folder: folder)
            }
        } catch {
            let reason = "cannot write the stretches to score into \(folder): \(error)"
            return scorers.map { ScorerResult(name: $0.spec.name, talkTypes: nil, unscoredReason: reason) }
        }
        return scorers.map { scorer in
            do {
                var answers: [Answer] = []
                for request in requests {
                    answers.append(try Answer(reading: try scorer.ask(request), for: request, scorer: scorer.spec.name))
                }
                return try combine(answers, stretches: stretches, sampleRate: signals.sampleRate, scorer: scorer.spec.name)
            } catch let failure as ScorerFailure {
                return ScorerResult(name: scorer.spec.name, talkTypes: nil, unscoredReason: failure.reason)
            } catch {
                return ScorerResult(name: scorer.spec.name, talkTypes: nil, unscoredReason: "\(error)")
            }
        }
    }

    /// Writes one stretch's files and returns its request.
    private static func request(_ signals: Signals, _ stretch: ScoringStretch, index: Int, id: String, folder: String) throws -> JSONValue {
        let rate = Double(signals.sampleRate)
        func write(_ name: String, _ signal: [Float]?) throws -> JSONValue {
            guard let signal else { return .null }
            let path = (folder as NSString).appendingPathComponent("\(index + 1)-\(name).wav")
            try SoundFileWriter.write(Array(signal[stretch.samples]), to: path, sampleRate: signals.sampleRate, encoding: .pcm16)
            return .string(path)
        }
        return .object([
            "protocol": .number(Double(protocolVersion)),
            "id": .string("\(id)#\(index + 1)"),
            "talk_type": .string(stretch.talk.rawValue),
            "sample_rate": .number(rate),
            "start_s": .number(Double(stretch.samples.lowerBound) / rate),
            "end_s": .number(Double(stretch.samples.upperBound) / rate),
            "reference": try write("reference", signals.reference),
            "mic": try write("mic", signals.mic),
            "output": try write("output", signals.output),
            "near_end": try write("near_end", signals.nearEnd),
            "echo": try write("echo", signals.echo),
        ])
    }

    /// One answer, checked: the request's id, and scores that are numbers within their range.
    struct Answer {
        var reportedName: String?
        var version: String?
        var modelSHA256: String?
        var scores: [String: ScoreValue]

        init(reading answer: JSONValue, for request: JSONValue, scorer: String) throws {
            func garbage(_ problem: String) -> ScorerFailure {
                ScorerFailure(scorer: scorer, reason: "answered \(problem)")
            }
            guard case .object(let object) = answer else { throw garbage("a JSON value that is not an object") }
            guard object["id"] == request["id"] else {
                throw garbage("for id \(object["id"]?.lineText() ?? "none"), not \(request["id"]!.lineText())")
            }
            if let error = object["error"] {
                throw ScorerFailure(scorer: scorer, reason: "could not score \(request["id"]!.stringValue ?? ""): \(error.stringValue ?? error.lineText())")
            }
            guard case .object(let given)? = object["scores"], !given.isEmpty else { throw garbage("no \"scores\" object") }
            var checked: [String: ScoreValue] = [:]
            for (name, score) in given.sorted(by: { $0.key < $1.key }) {
                func number(_ key: String) throws -> Double {
                    guard let value = score[key]?.doubleValue, value.isFinite else { throw garbage("score '\(name)' whose \"\(key)\" is not a finite number") }
                    return value
                }
                let value = try number("value"), minimum = try number("min"), maximum = try number("max")
                guard let higher = score["higher_is_better"]?.boolValue else { throw garbage("score '\(name)' whose \"higher_is_better\" is not true or false") }
                guard minimum <= maximum else { throw garbage("score '\(name)' whose min \(minimum) is above its max \(maximum)") }
                guard (minimum...maximum).contains(value) else {
                    throw garbage("score '\(name)' = \(value), outside its own range \(minimum)…\(maximum)")
                }
                checked[name] = ScoreValue(value: value, higherIsBetter: higher, minimum: minimum, maximum: maximum)
            }
            self.scores = checked
            let identity = object["scorer"]
            reportedName = identity?["name"]?.stringValue
            version = identity?["version"]?.stringValue
            modelSHA256 = identity?["model_sha256"]?.stringValue
        }
    }

    /// Each talk type's scores: every score the length-weighted mean of its stretches'.
    private static func combine(_ answers: [Answer], stretches: [ScoringStretch], sampleRate: Int, scorer: String) throws -> ScorerResult {
        var talkTypes: [TalkTypeScores] = []
        for talk in [TalkRun.Talk.farEndSingleTalk, .nearEndSingleTalk, .doubleTalk] {
            let chosen = zip(answers, stretches).filter { $0.1.talk == talk }
            guard let first = chosen.first else { continue }
            let names = Set(first.0.scores.keys)
            guard chosen.allSatisfy({ Set($0.0.scores.keys) == names }) else {
                throw ScorerFailure(scorer: scorer, reason: "answered different scores for stretches of one talk type")
            }
            let total = chosen.reduce(0) { $0 + $1.1.samples.count }
            var scores: [String: ScoreValue] = [:]
            for name in names {
                var score = first.0.scores[name]!
                score.value = chosen.reduce(0.0) { $0 + $1.0.scores[name]!.value * Double($1.1.samples.count) } / Double(total)
                scores[name] = score
            }
            talkTypes.append(TalkTypeScores(talkType: talk.rawValue, stretches: chosen.count,
                                            seconds: Double(total) / Double(sampleRate), scores: scores))
        }
        let first = answers[0]
        return ScorerResult(name: scorer, reportedName: first.reportedName, version: first.version, modelSHA256: first.modelSHA256,
                            talkTypes: talkTypes, unscoredReason: nil)
    }
}
