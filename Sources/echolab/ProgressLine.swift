import Dispatch
import Foundation

/// One progress line on stderr, redrawn in place at most five times a second: percentage,
/// speed and time left. Only on a terminal (`showsProgress`); a pipe or a CI log gets nothing.
final class ProgressLine: @unchecked Sendable {
    private let label: String
    private let started = DispatchTime.now()
    private var lastDraw: UInt64 = 0
    private var drawn = false
    private let lock = NSLock()
    let isEnabled: Bool

    init(label: String, enabled: Bool = showsProgress) {
        self.label = label
        isEnabled = enabled
    }

    /// `fraction` of the work is done; `speed` says how fast (e.g. "312× real time").
    func update(fraction: Double, detail: String = "", force: Bool = false) {
        guard isEnabled else { return }
        lock.lock(); defer { lock.unlock() }
        let now = DispatchTime.now().uptimeNanoseconds
        guard force || now - lastDraw >= 200_000_000 else { return }
        lastDraw = now
        let elapsed = Double(now - started.uptimeNanoseconds) / 1e9
        let clamped = min(1, max(0, fraction))
        let eta = clamped > 0.001 ? elapsed * (1 - clamped) / clamped : nil
        var line = "\(label) \(String(format: "%3.0f%%", clamped * 100))"
        if !detail.isEmpty { line += "  \(detail)" }
        if let eta { line += "  ETA \(Self.clock(eta))" }
        writeStandardError("\r\u{1B}[K" + line)
        drawn = true
    }

    /// Prints `text` as a line of its own above the progress line.
    func print(_ text: String) {
        lock.lock(); defer { lock.unlock() }
        if drawn { writeStandardError("\r\u{1B}[K") }
        writeStandardError(printable(text) + "\n")
        lastDraw = 0
    }

    /// Clears the line (at the end of the work).
    func finish() {
        lock.lock(); defer { lock.unlock() }
        if drawn { writeStandardError("\r\u{1B}[K") }
        drawn = false
    }

    var elapsedSeconds: Double { Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
                             : String(format: "%d:%02d", total / 60, total % 60)
    }
}
