import AudioInterop
import Foundation
import Evaluation
import Reporting
import Synchronization

/// SIGINT, SIGTERM and SIGHUP (a closed terminal) stop a run cleanly instead of killing it
/// mid-write: the first one cancels the runs (no new item starts, running ones stop at their next
/// tick and remove their partial files), the command writes what finished and exits 128 + the
/// signal (130, 143, 129). A second signal, while that cleanup runs, ends the process at once —
/// but not the first one's second delivery: GNU `timeout` sends its signal to the command and then
/// to its process group, so the command gets it twice within microseconds, and taken as a second
/// signal it ended eval before it wrote eval.json (1 run in 25 under `timeout -s INT`).
/// A SIGHUP ignored when the process starts (`nohup`) stays ignored: that is what nohup asks. So
/// does a SIGINT: a shell without job control starts a background command (`echolab eval … &` in
/// a script) with SIGINT ignored, so that a Ctrl-C meant for the foreground leaves it running.
///
/// The handlers are sigaction(2)'s, in place when `install` returns: a `DispatchSourceSignal`
/// needs the signal ignored first and registers itself asynchronously, so a signal in between
/// would be lost. The handler only touches an atomic (`RunCancellation`), which is safe in a
/// signal handler; the runs poll it.
enum Interrupts {
    static let cancellation = RunCancellation()

    static func install() {
        // Created now: the handler must not be the first to touch it.
        _ = cancellation.isCancelled
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            if signalNumber != SIGTERM, SystemCalls.isIgnored(signalNumber) { continue }
            // Interrupted system calls (a write, a semaphore wait) go on: the runs poll instead.
            SystemCalls.install(interruptHandler, for: signalNumber)
        }
    }

    /// When the first signal came (CLOCK_MONOTONIC, in ns).
    static let firstSignalNanoseconds = Atomic<Int64>(0)
    /// The same signal again within this is the first one delivered twice (to the process and to
    /// its group), not a second signal: far under two presses of Ctrl-C, far over the
    /// microseconds between `timeout`'s two kill(2) calls.
    static let sameSignalNanoseconds: Int64 = 250_000_000

    /// The exit code for a run that was interrupted: 128 + the signal.
    static var exitCode: Int32? { cancellation.signal.map { 128 + $0 } }
}

/// The first signal asks the runs to stop; a second one, while they clean up, ends the process
/// with the signal's default action.
private func interruptHandler(_ signalNumber: Int32) {
    // clock_gettime(2) is async-signal-safe.
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let nanoseconds = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    if Interrupts.cancellation.isCancelled {
        if Interrupts.cancellation.signal == signalNumber,
           nanoseconds - Interrupts.firstSignalNanoseconds.load(ordering: .relaxed) < Interrupts.sameSignalNanoseconds {
            return
        }
        signal(signalNumber, SIG_DFL)
        raise(signalNumber)
        return
    }
    Interrupts.firstSignalNanoseconds.store(nanoseconds, ordering: .relaxed)
    Interrupts.cancellation.cancel(signal: signalNumber)
    // A plugin's child may be what the run waits on (for up to 2 s a frame, if it hangs).
    PluginProcess.stopWaiting()
}
