import Dispatch
import Foundation
import Synchronization

/// One progress line on stderr, redrawn in place at most five times a second: percentage,
/// speed and time left. Only on a terminal (`showsProgress`); a pipe or a CI log gets nothing.
final class ProgressLine: Sendable {
    private let label: String
    private let started = DispatchTime.now()
    /// When the line was last drawn, and whether it is on the screen (updates come from the jobs'
    /// threads).
    private let line = Mutex<(lastDraw: UInt64, drawn: Bool, fraction: Double)>((0, false, 0))
    let isEnabled: Bool

    init(label: String, enabled: Bool = showsProgress) {
        self.label = label
        isEnabled = enabled
    }

    /// `fraction` of the work is done; `speed` says how fast (e.g. "312× real time"). The line
    /// never goes back: a fraction under one already drawn draws that one (eval's jobs tell
    /// their shares from several threads, and a finished run's count alone left out the others').
    func update(fraction: Double, detail: String = "", force: Bool = false) {
        guard isEnabled else { return }
        line.withLock { line in
            let now = DispatchTime.now().uptimeNanoseconds
            line.fraction = max(line.fraction, min(1, max(0, fraction)))
            guard force || now - line.lastDraw >= 200_000_000 else { return }
            line.lastDraw = now
            let elapsed = Double(now - started.uptimeNanoseconds) / 1e9
            let clamped = line.fraction
            let eta = clamped > 0.001 ? elapsed * (1 - clamped) / clamped : nil
            var text = "\(label) \(String(format: "%3.0f%%", clamped * 100))"
            if !detail.isEmpty { text += "  \(detail)" }
            if let eta { text += "  ETA \(Self.clock(eta))" }
            writeStandardError("\r\u{1B}[K" + text)
            line.drawn = true
        }
    }

    /// Prints `text` as a line of its own above the progress line.
    func print(_ text: String) {
        line.withLock { line in
            if line.drawn { writeStandardError("\r\u{1B}[K") }
            writeStandardError(printable(text) + "\n")
            line.lastDraw = 0
        }
    }

    /// Clears the line (at the end of the work).
    func finish() {
        line.withLock { line in
            if line.drawn { writeStandardError("\r\u{1B}[K") }
            line.drawn = false
        }
    }

    var elapsedSeconds: Double { Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
                             : String(format: "%d:%02d", total / 60, total % 60)
    }
}
