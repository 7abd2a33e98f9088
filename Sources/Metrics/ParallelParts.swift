import Dispatch
import Synchronization

/// Runs `count` independent parts on the global pool and returns their results in part order.
/// Callers choose parts whose results do not depend on which thread ran them, and combine them
/// in index order, so output stays bit-identical whatever the core count or scheduling.
enum ParallelParts {
    static func map<Result: Sendable>(count: Int, threads: Int, _ part: @Sendable (Int) -> Result) -> [Result] {
        guard count > 1 else { return count == 1 ? [part(0)] : [] }
        guard threads > 1 else { return (0..<count).map(part) }
        let results = Mutex<[Result?]>(Array(repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let value = part(index)
            results.withLock { $0[index] = value }
        }
        return results.withLock { $0.map { $0! } }
    }

    /// `0..<total` cut into `count` contiguous, nearly equal ranges.
    static func ranges(of total: Int, count: Int) -> [Range<Int>] {
        (0..<count).map { (total * $0 / count)..<(total * ($0 + 1) / count) }
    }
}
