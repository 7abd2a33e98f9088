import Dispatch
import Foundation
import Evaluation
import Reporting

/// SIGINT and SIGTERM stop a run cleanly instead of killing it mid-write: the first one cancels
/// the runs (no new item starts, running ones stop at their next tick and remove their partial
/// files), the command writes what finished and exits 128 + the signal (130, 143). A second
/// signal, while that cleanup runs, ends the process at once.
enum Interrupts {
    static let cancellation = RunCancellation()
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static func install() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                if cancellation.isCancelled {
                    signal(signalNumber, SIG_DFL)
                    raise(signalNumber)
                }
                cancellation.cancel(signal: signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The exit code for a run that was interrupted: 128 + the signal.
    static var exitCode: Int32? { cancellation.signal.map { 128 + $0 } }
}
