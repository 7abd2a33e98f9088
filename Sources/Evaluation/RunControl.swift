import AudioCore
import EchoLabJSON
import Synchronization

/// Lets a caller stop runs from another thread (a signal handler's queue): runs check it every
/// engine tick and corpora before each item. The first request wins; it records which signal
/// (if any) asked, so the command can exit 128 + signal.
public final class RunCancellation: Sendable {
    private let state = Atomic<Int32>(0)

    public init() {}

    /// Asks every run watching this to stop; `signal` is the POSIX signal number (or -1 for a
    /// request that came from no signal).
    public func cancel(signal: Int32 = -1) {
        _ = state.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
    }

    public var isCancelled: Bool { state.load(ordering: .relaxed) != 0 }

    /// The signal that asked, if one did.
    public var signal: Int32? {
        let value = state.load(ordering: .relaxed)
        return value > 0 ? value : nil
    }
}

/// A run stopped on request (`RunCancellation`): nothing of it is kept.
public struct RunCancelled: DescribedError {
    public var description: String { "interrupted" }
}
