import AudioCore
import Foundation
import Synchronization

/// A long call's metric rows could not be written to the temporary folder.
public struct SpillError: DescribedError, Sendable {
    public let directory: String
    public let reason: String
    public var description: String {
        "\(directory): cannot write the metric rows of a long call there: \(reason) (free space, or point TMPDIR elsewhere)"
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
        var file: FileHandle?
        /// Reused when reading spilled blocks; holds block `loadedBlock`.
        var readBuffer: [Element] = []
        var loadedBlock = -1
        /// Why a block could not be written (a full or unwritable temporary folder). The rows then
        /// stay in memory — nothing is lost — and the owner reports the error (the call stops).
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

    deinit { state.withLock { _ = try? $0.file?.close() } }

    public var count: Int { state.withLock { $0.count } }

    /// Why a block could not be written, if one could not (see `State.spillError`).
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
        do {
            if file == nil { file = try SpillingRows.temporaryFile() }
            let file = file!
            let start = try file.seekToEnd()
            // Straight from the buffer: no copy into a `Data`.
            do {
                try resident.withUnsafeBytes { try file.write(contentsOf: $0) }
            } catch {
                try? file.truncate(atOffset: start)     // a half-written block is not a block
                throw error
            }
        } catch {
            // Keep the rows in memory (the appends go on past the block size) and let the owner
            // stop the call with a clear error.
            spillError = SpillError(directory: FileManager.default.temporaryDirectory.path, reason: SpillingRows.reason(error))
            return
        }
        spilledRows += residentRows
        resident.removeAll(keepingCapacity: true)
    }

    mutating func readBlock(_ block: Int) {
        guard block != loadedBlock else { return }
        let bytes = residentRows * width * MemoryLayout<Element>.stride
        do {
            try file!.seek(toOffset: UInt64(block * bytes))
            let data = try file!.read(upToCount: bytes) ?? Data()
            guard data.count == bytes else {
                fatalError("EchoLab: metric rows file shorter than written (\(data.count) of \(bytes) bytes)")
            }
            if readBuffer.count != residentRows * width {
                // Plain bits, entirely overwritten just below.
                let elements = residentRows * width
                readBuffer = Array(unsafeUninitializedCapacity: elements) { _, initialized in
                    initialized = elements
                }
            }
            readBuffer.withUnsafeMutableBytes { target in data.withUnsafeBytes { target.copyMemory(from: $0) } }
            loadedBlock = block
        } catch {
            fatalError("EchoLab: cannot read spilled metric rows: \(error)")
        }
    }
}

extension SpillingRows {
    fileprivate static func reason(_ error: Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }

    /// An open, already unlinked file in the temporary directory: nothing is left behind.
    fileprivate static func temporaryFile() throws -> FileHandle {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("echolab-rows-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try FileManager.default.removeItem(atPath: path)
        return handle
    }
}
