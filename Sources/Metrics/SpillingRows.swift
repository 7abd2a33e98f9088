import AudioCore
import AudioInterop
import Foundation
import Synchronization

/// A long call's metric rows could not be written to the temporary folder, or read back.
public struct SpillError: DescribedError, Sendable {
    public enum Operation: Sendable { case write, read }
    public let directory: String
    public let operation: Operation
    public let reason: String
    public var description: String {
        switch operation {
        case .write:
            "\(directory): cannot write the metric rows of a long call there: \(reason) (free space, or point TMPDIR elsewhere)"
        case .read:
            "\(directory): cannot read back the metric rows of a long call written there: \(reason)"
        }
    }
}

extension SpillError {
    /// The error two tables' owner reports: a read error first (figures read after it are not
    /// the call's), else either. No array: owners ask every tick.
    public static func first(_ a: SpillError?, _ b: SpillError?) -> SpillError? {
        b?.operation == .read ? b : a ?? b
    }
}

/// An append-only table of fixed-width rows (`width` elements each) whose memory stays bounded
/// however long a call runs: the newest `residentRows` rows are kept in memory, and each time that
/// buffer fills it is written, as one block, to an unlinked temporary file. Reading walks the rows
/// in order, a block at a time, so sums over any row range come out bit for bit as they would
/// from one in-memory array (same values, same order of additions).
///
/// A call of a few minutes never touches the disk. A 24-hour call of far-end speech spills about
/// 1.1 GB of metric rows (page cache, not the process's memory); the file disappears with the
/// table (or the process).
///
/// Appends come from one thread; reads come after the last append, maybe from another thread (a
/// finished table is shared: `EchoAnalysis` is `Sendable`). All mutable state sits in one
/// `Mutex`, so every access is serialised (uncontended, as appends and reads never overlap).
public final class SpillingRows<Element: BitwiseCopyable & Sendable>: Sendable {
    public let width: Int
    public let residentRows: Int
    private let state: Mutex<State>

    fileprivate struct State {
        let width: Int
        let residentRows: Int
        /// The newest rows, not yet spilled (`width` elements each).
        var resident: [Element] = []
        /// Rows already in the file.
        var spilledRows = 0
        var file: SpillFile?
        /// Reused when reading spilled blocks; holds block `loadedBlock`.
        var readBuffer: [Element] = []
        var loadedBlock = -1
        /// Why a block could not be written (a full or unwritable temporary folder: the rows then
        /// stay in memory — nothing is lost — and the owner stops the call) or read back (the
        /// rows read as zeros, and the owner fails the run instead of reporting them).
        var spillError: SpillError?

        var count: Int { spilledRows + resident.count / width }
    }

    /// - Parameter residentRows: rows held in memory before a block is written to disk.
    public init(width: Int, residentRows: Int = 16_384) {
        precondition(width > 0 && residentRows > 0)
        self.width = width
        self.residentRows = residentRows
        var initial = State(width: width, residentRows: residentRows)
        initial.resident.reserveCapacity(width * residentRows)
        state = Mutex(initial)
    }

    public var count: Int { state.withLock { $0.count } }

    /// Why a block could not be written or read back, if one could not (see `State.spillError`).
    public var spillError: SpillError? { state.withLock { $0.spillError } }

    /// Appends one row of a two-column table.
    @inline(__always)
    public func append(_ a: Element, _ b: Element) {
        precondition(width == 2)
        state.withLock { state in
            state.resident.append(a); state.resident.append(b)
            if state.resident.count == state.width * state.residentRows { state.spill() }
        }
    }

    /// Appends one row of a six-column table.
    @inline(__always)
    public func append(_ a: Element, _ b: Element, _ c: Element, _ d: Element, _ e: Element, _ f: Element) {
        precondition(width == 6)
        state.withLock { state in
            state.resident.append(a); state.resident.append(b); state.resident.append(c); state.resident.append(d)
            state.resident.append(e); state.resident.append(f)
            if state.resident.count == state.width * state.residentRows { state.spill() }
        }
    }

    /// Appends one row: the first `width` elements of `row`.
    public func append(row: [Element]) {
        precondition(row.count >= width)
        state.withLock { state in
            for index in 0..<state.width { state.resident.append(row[index]) }
            if state.resident.count == state.width * state.residentRows { state.spill() }
        }
    }

    /// Calls `body` with the element buffer and the offset of each row in `rows`, in order. The
    /// buffer is only valid inside the call, which holds the lock: `body` must not use this table.
    public func forEachRow(in rows: Range<Int>, _ body: ([Element], Int) -> Void) {
        state.withLock { state in
            let rows = rows.clamped(to: 0..<state.count)
            guard !rows.isEmpty else { return }
            let (width, residentRows) = (state.width, state.residentRows)
            var row = rows.lowerBound
            while row < min(rows.upperBound, state.spilledRows) {
                let block = row / residentRows
                let blockStart = block * residentRows
                state.readBlock(block)
                let end = min(rows.upperBound, blockStart + residentRows)
                while row < end {
                    body(state.readBuffer, (row - blockStart) * width)
                    row += 1
                }
            }
            while row < rows.upperBound {
                body(state.resident, (row - state.spilledRows) * width)
                row += 1
            }
        }
    }

    /// One element of one row (a random access: loads the row's block if it was spilled).
    public func element(row: Int, column: Int) -> Element {
        state.withLock { state in
            precondition(row >= 0 && row < state.count && column >= 0 && column < state.width)
            if row >= state.spilledRows { return state.resident[(row - state.spilledRows) * state.width + column] }
            state.readBlock(row / state.residentRows)
            return state.readBuffer[(row % state.residentRows) * state.width + column]
        }
    }
}

extension SpillingRows.State {
    /// Writes the resident rows to the file as one block and empties the buffer (its capacity kept).
    mutating func spill() {
        do throws(SpillFile.Failure) {
            if file == nil { file = try SpillFile() }
            try file!.append(resident)
        } catch {
            // Keep the rows in memory (the appends go on past the block size) and let the owner
            // stop the call with a clear error.
            spillError = SpillError(directory: file?.directory ?? TemporaryFolder.base, operation: .write,
                                    reason: error.reason)
            return
        }
        spilledRows += residentRows
        resident.removeAll(keepingCapacity: true)
    }

    mutating func readBlock(_ block: Int) {
        guard block != loadedBlock else { return }
        do throws(SpillFile.Failure) {
            try file!.read(block: block, count: residentRows * width, into: &readBuffer)
            loadedBlock = block
        } catch {
            // Read as zeros (`SpillFile.read`) so the sums can finish; the owner fails the run on
            // `spillError` instead of reporting them.
            // A read error wins over an earlier write error: the rows read are not the call's.
            if spillError?.operation != .read {
                spillError = SpillError(directory: file!.directory, operation: .read, reason: error.reason)
            }
            loadedBlock = -1
        }
    }
}
