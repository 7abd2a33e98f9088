import AudioCore
import Dispatch
import EchoLabJSON
import Foundation
import Synchronization

/// One running scorer program: started on the first request by `/bin/sh -c COMMAND`, it reads
/// one JSON request per line on stdin and writes one JSON answer per line on stdout (protocol 1,
/// docs/scorers.md). A scorer is foreign code: one that exits, stays silent past `timeout`, or
/// answers out of step with its requests (not JSON, not an object, another request's id, a line
/// over 1 MiB) fails that request with a one-line reason and is stopped; the next request starts
/// it again. An answer in step that says it cannot score, or whose scores are wrong, is judged by
/// the caller (`RunScoring`), and the program goes on.
public final class ScorerProcess {
    public let spec: ScorerSpec
    /// Seconds an answer may take (the first one includes the program's start).
    public let timeout: Double
    /// `--scorer-timeout`'s default: AECMOS' first answer (imports, model) takes about 10 s.
    public static let defaultTimeout: Double = 60
    /// The longest answer line read, and the most unread output kept.
    static let maximumAnswerBytes = 1 << 20
    static let maximumUnreadBytes = 16 << 20
    private var running: Running?

    /// What a started program holds: the process, its stdin, and what it has written so far.
    private final class Running: Sendable {
        let process: Process
        let input: FileHandle
        /// Unread stdout, stderr's last bytes, and whether stdout and stderr have closed.
        let state = Mutex<(stdout: OutputLines, stderr: [UInt8], closed: Bool, stderrClosed: Bool)>(
            (OutputLines(lineLimit: ScorerProcess.maximumAnswerBytes, bufferLimit: ScorerProcess.maximumUnreadBytes), [], false, false))
        let arrived = DispatchSemaphore(value: 0)

        init(process: Process, input: FileHandle) {
            self.process = process
            self.input = input
        }
    }

    public init(spec: ScorerSpec, timeout: Double) {
        self.spec = spec
        self.timeout = timeout
    }

    deinit { stop() }

    /// Sends `request` (a JSON object, written on one line) and returns the answer line's value.
    /// Once `cancellation` is cancelled (a signal) the wait ends within 50 ms: the program is
    /// stopped and `RunCancelled` thrown, not waited for to its timeout (a minute, by default).
    public func ask(_ request: JSONValue, cancellation: RunCancellation? = nil) throws -> JSONValue {
        let running = try self.running ?? start()
        // A program that has exited cannot take the request: what it said and its status are
        // read below, as for one that exits while answering.
        var writeFailed = false
        do {
            try running.input.write(contentsOf: Array((request.lineText() + "\n").utf8))
        } catch {
            writeFailed = true
        }
        let deadline = DispatchTime.now() + (writeFailed ? min(timeout, 2) : timeout)
        var exitedAt: DispatchTime?
        while true {
            let (line, overflow, closed) = running.state.withLock { state in (state.stdout.next(), state.stdout.overflow, state.closed) }
            if let line {
                let answer: JSONValue
                do {
                    answer = try JSONValue.parse(line, maximumBytes: Self.maximumAnswerBytes)
                } catch {
                    let text = String(decoding: line, as: UTF8.self)
                    // Python's json.dumps writes NaN and Infinity, which JSON does not have.
                    if text.contains("NaN") || text.contains("Infinity") {
                        throw failure(running, "answered NaN or Infinity, which JSON has not (a score must be a finite number): '\(text.prefix(120))'")
                    }
                    throw failure(running, "answered something that is not JSON: '\(text.prefix(80))'")
                }
                // Out of step with its requests (a line too many, another id): stopped, or every
                // later request would read the answer before its own.
                guard case .object(let object) = answer else { throw failure(running, "answered a JSON value that is not an object") }
                guard object["id"] == request["id"] else {
                    throw failure(running, "answered for id \(object["id"]?.lineText() ?? "none"), not \(request["id"]?.lineText() ?? "none")")
                }
                return answer
            }
            // An answer is one line of at most 1 MiB: a program that writes more, or writes on
            // unasked, is not answering, however long it would go on.
            switch overflow {
            case .longLine?:
                throw failure(running, "wrote a line of over \(Self.maximumAnswerBytes >> 20) MiB on stdout (an answer is one line of at most \(Self.maximumAnswerBytes >> 20) MiB)")
            case .unread?:
                throw failure(running, "wrote over \(Self.maximumUnreadBytes >> 20) MiB on stdout that no request asked for")
            case nil:
                break
            }
            // Exited a second ago, though its stdout is still open: a child it left behind holds
            // it (`sleep 1000 &`). Its status is the reason, not a timeout the child would run
            // out. (The second lets an answer written just before it exited be read first.)
            if !closed, exitedAt == nil, !running.process.isRunning || Self.hasExited(running.process.processIdentifier) {
                exitedAt = DispatchTime.now()
            }
            let exited = exitedAt.map { DispatchTime.now() >= $0 + .seconds(1) } ?? false
            if closed || exited {
                // Its last words may still be on their way: stderr is read to its end (a second
                // at most), or the reason would depend on which pipe was read first.
                let deadline = Date().addingTimeInterval(1)
                while !running.state.withLock({ $0.stderrClosed }) && Date() < deadline { usleep(1000) }
                let said = lastError(running)
                stop()
                let status = running.process.terminationReason == .uncaughtSignal
                    ? "was killed by signal \(running.process.terminationStatus)" : "exited with status \(running.process.terminationStatus)"
                let pending = request["id"]?.stringValue.map { " \($0)" } ?? ""
                let hint = running.process.terminationReason == .exit && running.process.terminationStatus == 0
                    ? " (a scorer reads requests until its stdin closes)" : ""
                throw ScorerFailure(scorer: spec.name, reason: "\(status) before answering\(pending)" + said + hint)
            }
            if cancellation?.isCancelled == true {
                stop()
                throw RunCancelled()
            }
            // The deadline holds however often output arrives.
            let now = DispatchTime.now()
            if now >= deadline || (running.arrived.wait(timeout: min(deadline, now + .milliseconds(50))) == .timedOut
                                   && DispatchTime.now() >= deadline) {
                throw failure(running, writeFailed ? "stopped reading its requests"
                                                   : "gave no answer within \(FixedDecimal.text(timeout, fractionDigits: timeout < 0.1 ? 3 : 1)) s")
            }
        }
    }

    /// Stops the program: its stdin closed, and what it started killed if it has not exited
    /// within a second.
    public func stop() {
        guard let running else { return }
        self.running = nil
        try? running.input.close()
        let deadline = Date().addingTimeInterval(1)
        while running.process.isRunning && Date() < deadline { usleep(10_000) }
        let pid = running.process.processIdentifier
        // Its group (it leads one), then itself should it lead none.
        if running.process.isRunning || kill(-pid, 0) == 0 { kill(-pid, SIGKILL); kill(pid, SIGKILL) }
        running.process.waitUntilExit()
    }

    /// Whether process `pid` has exited and waits to be reaped (a zombie, `/proc/PID/stat`'s
    /// state Z). Foundation reaps a child only once the pipes it was given close, which a child
    /// it left behind may hold open for as long as it runs: till then `isRunning` says true.
    private static func hasExited(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first == "Z"
    }

    private func start() throws -> Running {
        // A scorer that exits while a request is written must fail the request, not this process.
        signal(SIGPIPE, SIG_IGN)
        // Foundation starts it as the leader of a process group of its own: stopping the group
        // stops what its shell started too (a child left running would hold the pipes open).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", spec.command]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let running = Running(process: process, input: input.fileHandleForWriting)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            running.state.withLock { state in
                if data.isEmpty { state.closed = true } else { state.stdout.append([UInt8](data)) }
            }
            if data.isEmpty { handle.readabilityHandler = nil }
            running.arrived.signal()
        }
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                running.state.withLock { $0.stderrClosed = true }
                return
            }
            running.state.withLock { state in
                state.stderr += data
                if state.stderr.count > 4096 { state.stderr.removeFirst(state.stderr.count - 4096) }
            }
        }
        do {
            try process.run()
        } catch {
            throw ScorerFailure(scorer: spec.name, reason: "cannot start '\(spec.command)': \(error.localizedDescription)")
        }
        self.running = running
        return running
    }

    /// Stops the program and names what went wrong.
    private func failure(_ running: Running, _ reason: String) -> ScorerFailure {
        stop()
        return ScorerFailure(scorer: spec.name, reason: reason)
    }

    /// The last line the program wrote on stderr, as ": LINE" (nothing when it wrote none).
    private func lastError(_ running: Running) -> String {
        let text = running.state.withLock { String(decoding: $0.stderr, as: UTF8.self) }
        guard let line = text.split(whereSeparator: \.isNewline).last.map(String.init), !line.isEmpty else { return "" }
        return ": \(line.prefix(200))"
    }
}

/// Why a scorer gave no score.
public struct ScorerFailure: DescribedError, Sendable {
    public let scorer: String
    public let reason: String
    public var description: String { "scorer \(scorer): \(reason)" }
}
