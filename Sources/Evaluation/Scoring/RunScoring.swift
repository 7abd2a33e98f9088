import AudioCore
import AudioInterop
import EchoLabJSON
import Foundation
import Metrics

/// Asks scorers about one run: cuts its signals into the stretches of one talk type each
/// (`ScoringStretch`), and for each stretch writes its files as 16-bit WAVs into a temporary
/// folder, sends one request to each scorer and removes the files — one stretch at a time, so a
/// long call needs a stretch's memory and disk, not its own. Each score is then averaged over a
/// talk type's stretches, weighted by their length. A scorer that fails any request of the run
/// leaves its scores for the run null with the reason (and is asked nothing more about it); the
/// run stands, and the other scorers are asked as usual.
public struct RunScoring {
    /// The tracks a request names.
    public enum Track: String, CaseIterable, Sendable {
        case reference, mic, output, nearEnd = "near_end", echo
    }

    /// Where a run's tracks are read from, all lined up with the mic: the reference as played
    /// (the far end; not shifted by the echo's delay, as the AEC Challenge gives its loopback),
    /// the canceller's output with its latency taken out, and the clean tracks where known.
    public protocol Tracks {
        var sampleRate: Int { get }
        /// Samples every track holds.
        var length: Int { get }
        /// The samples of `track` in `range`; nil for a track the run does not have.
        func samples(_ track: Track, _ range: Range<Int>) throws -> [Float]?
    }

    /// Tracks held in memory.
    public struct Signals: Tracks {
        public var sampleRate: Int
        var tracks: [Track: [Float]]

        public init(sampleRate: Int, reference: [Float], mic: [Float], output: [Float], nearEnd: [Float]? = nil, echo: [Float]? = nil) {
            self.sampleRate = sampleRate
            tracks = [.reference: reference, .mic: mic, .output: output]
            tracks[.nearEnd] = nearEnd
            tracks[.echo] = echo
        }

        public var length: Int { tracks.values.map(\.count).min() ?? 0 }
        public func samples(_ track: Track, _ range: Range<Int>) throws -> [Float]? { tracks[track].map { Array($0[range]) } }
    }

    /// Every scorer's result when none could be asked, with why.
    public static func unscored(_ scorers: [ScorerProcess], because reason: String) -> [ScorerResult] {
        scorers.map { ScorerResult.unscored($0.spec.name, because: reason) }
    }

    /// The protocol version requests carry.
    public static let protocolVersion = 1

    /// Scores `tracks` with each scorer; `runs` are the activity gate's decisions over frames of
    /// `frameSize`; `id` names the run in the requests.
    /// A `cancellation` is polled between stretches and while a scorer is answering: once
    /// cancelled, nothing more is asked and the scorers not done read "cancelled" (the caller
    /// then discards the run, or exits as interrupted).
    public static func score(_ tracks: some Tracks, talk runs: [TalkRun], frameSize: Int, id: String,
                             scorers: [ScorerProcess], cancellation: RunCancellation? = nil) -> [ScorerResult] {
        guard !scorers.isEmpty else { return [] }
        let stretches = ScoringStretch.stretches(runs, frameSize: frameSize, sampleRate: tracks.sampleRate, length: tracks.length)
        guard !stretches.isEmpty else {
            let reason = "no stretch of one talk type lasts \(FixedDecimal.text(ScoringStretch.minimumSeconds, fractionDigits: 0)) s or more"
            return unscored(scorers, because: reason)
        }
        let folder = TemporaryFolder.uniquePath(prefix: "echolab-score")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var answers = [[Answer]](repeating: [], count: scorers.count)
        var failures = [String?](repeating: nil, count: scorers.count)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            return unscored(scorers, because: "cannot make a folder for the stretches to score: \(error)".named(folder))
        }
        for (index, stretch) in stretches.enumerated() where failures.contains(where: { $0 == nil }) {
            if cancellation?.isCancelled == true {
                for scorer in failures.indices where failures[scorer] == nil { failures[scorer] = "cancelled" }
                break
            }
            let request: JSONValue, files: [String]
            do {
                (request, files) = try Self.request(tracks, stretch, index: index, id: id, folder: folder)
            } catch {
                let reason = "cannot write the stretch to score into the temporary folder: \(error)".named(folder)
                for scorer in failures.indices where failures[scorer] == nil { failures[scorer] = reason }
                break
            }
            for (position, scorer) in scorers.enumerated() where failures[position] == nil {
                do {
                    answers[position].append(try Answer(reading: try scorer.ask(request, cancellation: cancellation), for: request,
                                                         scorer: scorer.spec.name))
                } catch is RunCancelled {
                    failures[position] = "cancelled"
                } catch let failure as ScorerFailure {
                    failures[position] = failure.reason
                } catch {
                    failures[position] = "\(error)"
                }
                failures[position] = failures[position]?.named(folder)
            }
            for file in files { unlink(file) }
        }
        return scorers.enumerated().map { position, scorer in
            if let reason = failures[position] { return .unscored(scorer.spec.name, because: reason) }
            do {
                return try combine(answers[position], stretches: stretches, sampleRate: tracks.sampleRate, scorer: scorer.spec.name)
            } catch {
                return .unscored(scorer.spec.name, because: (error as? ScorerFailure)?.reason ?? "\(error)")
            }
        }
    }

    /// Writes one stretch's files; returns its request and the files written.
    private static func request(_ tracks: some Tracks, _ stretch: ScoringStretch, index: Int, id: String,
                                folder: String) throws -> (JSONValue, [String]) {
        let rate = Double(tracks.sampleRate)
        var object: [String: JSONValue] = [
            "protocol": .number(Double(protocolVersion)),
            "id": .string("\(id)#\(index + 1)"),
            "talk_type": .string(stretch.talk.rawValue),
            "sample_rate": .number(rate),
            "start_s": .number(Double(stretch.samples.lowerBound) / rate),
            "end_s": .number(Double(stretch.samples.upperBound) / rate),
        ]
        var files: [String] = []
        for track in Track.allCases {
            guard let samples = try tracks.samples(track, stretch.samples) else { object[track.rawValue] = .null; continue }
            let path = (folder as NSString).appendingPathComponent("\(index + 1)-\(track.rawValue).wav")
            files.append(path)
            try SoundFileWriter.write(samples, to: path, sampleRate: tracks.sampleRate, encoding: .pcm16)
            object[track.rawValue] = .string(path)
        }
        return (.object(object), files)
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
            // `ScorerProcess.ask` has checked it is an object answering this request's id.
            guard case .object(let object) = answer else { throw garbage("a JSON value that is not an object") }
            if let error = object["error"] {
                // Its words go into reports and onto the terminal: one line, controls made visible.
                let words = PrintableText.line(error.stringValue ?? error.lineText())
                throw ScorerFailure(scorer: scorer, reason: "could not score \(request["id"]!.stringValue ?? ""): \(words)")
            }
            guard case .object(let given)? = object["scores"] else { throw garbage("no \"scores\" object") }
            guard !given.isEmpty else { throw garbage("an empty \"scores\" object") }
            var checked: [String: ScoreValue] = [:]
            for (name, score) in given.sorted(by: { $0.key < $1.key }) {
                if name.isEmpty { throw garbage("a score with an empty name") }
                if let problem = Self.textProblem(name) { throw garbage("a score name that \(problem)") }
                func number(_ key: String) throws -> Double {
                    guard let value = score[key]?.doubleValue, value.isFinite else { throw garbage("score '\(name)' whose \"\(key)\" is not a finite number") }
                    // A score past this prints as "inf" and is written as null once averaged.
                    guard abs(value) <= Self.scoreMagnitudeLimit else { throw garbage("score '\(name)' whose \"\(key)\" \(value) is past ±1e9") }
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
            for (key, text) in [("name", reportedName), ("version", version), ("model_sha256", modelSHA256)] {
                if let text, let problem = Self.textProblem(text) { throw garbage("a scorer \(key) that \(problem)") }
            }
        }

        /// The largest magnitude a score, or its range's end, may have.
        static let scoreMagnitudeLimit = 1e9

        /// Why a name a scorer gives cannot go into reports as it is: control characters
        /// (`PrintableText.needsEscape`: an escape sequence would reach a terminal through
        /// compare's stdout and `cat report.md`, NUL a file, a bidirectional override reorder a
        /// page), or more than 200 characters. nil where it can.
        static func textProblem(_ text: String) -> String? {
            let unsafe = text.unicodeScalars.filter(PrintableText.needsEscape)
            if !unsafe.isEmpty {
                return "holds a control character (\(unsafe.prefix(3).map { String(format: "U+%04X", $0.value) }.joined(separator: ", ")))"
            }
            return text.count > 200 ? "is longer than 200 characters" : nil
        }
    }

    /// Each talk type's scores: every score the length-weighted mean of its stretches'. One run's
    /// answers are one scorer's (name, version, model) and give each score one direction and range:
    /// averaged, a value outside the range it is reported with (0 and −8 in 0…5 and −10…10 read
    /// −2.4 in 0…5), or a direction its statistics and compare's verdicts would not hold to.
    private static func combine(_ answers: [Answer], stretches: [ScoringStretch], sampleRate: Int, scorer: String) throws -> ScorerResult {
        guard answers.allSatisfy({ $0.reportedName == answers[0].reportedName && $0.version == answers[0].version
                                     && $0.modelSHA256 == answers[0].modelSHA256 }) else {
            throw ScorerFailure(scorer: scorer, reason: "answered as different scorers (name, version or model) for one run's stretches")
        }
        var talkTypes: [TalkTypeScores] = []
        for talk in [TalkRun.Talk.farEndSingleTalk, .nearEndSingleTalk, .doubleTalk] {
            let chosen = zip(answers, stretches).filter { $0.1.talk == talk }
            guard let first = chosen.first else { continue }
            let names = Set(first.0.scores.keys)
            guard chosen.allSatisfy({ Set($0.0.scores.keys) == names }) else {
                throw ScorerFailure(scorer: scorer, reason: "answered different scores for stretches of one talk type")
            }
            for name in names.sorted() {
                let declared = first.0.scores[name]!
                guard chosen.allSatisfy({ $0.0.scores[name]!.isDeclared(like: declared) }) else {
                    throw ScorerFailure(scorer: scorer, reason: "answered score '\(name)' with another direction or range for stretches of one talk type")
                }
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

private extension String {
    /// The reason with the stretches' folder named `<stretch folder>`: it is new each run, and a
    /// reason naming it would make reports differ from run to run.
    func named(_ folder: String) -> String { replacingOccurrences(of: folder, with: "<stretch folder>") }
}
