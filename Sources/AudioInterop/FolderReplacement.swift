import AudioCore
import Foundation

/// Folders put into `root` as one change, the way `AtomicFile` puts one file in place: each is
/// copied into a hidden staging folder in `root` first (`stage`); only once all are there are
/// they moved to their names (`place`), a folder already at a name moved aside into the staging
/// folder rather than deleted. Until `finish` everything can be put back (`undo`), so a failure
/// anywhere — a full disk while copying, a report that cannot be written after the moves —
/// leaves `root` as it was. `merge` puts its shards' runs into OUT so.
///
/// The folders moved aside are the only copy of what was there: a replacement never deletes
/// them, and one that finds some left by another that could not put them back refuses to start
/// (`AsideNotEmpty`).
package struct FolderReplacement {
    package let root: String
    /// The hidden folder in `root` the folders are copied into.
    package let staging: String
    /// Where the folders being replaced wait, inside `staging`.
    package let aside: String
    /// Moves a folder; a test makes it fail where no file system would on demand.
    private let moveItem: (_ source: String, _ destination: String) throws -> Void
    /// The folders moved into place, in order, and whether each moved an earlier one aside.
    private var placed: [(relative: String, replacedEarlier: Bool)] = []
    /// The folders made in `root` to hold the placed ones (an item's folder for its runs).
    private var createdFolders: [String] = []

    /// The staging folder `aside` holds folders an earlier replacement moved aside and could not
    /// put back: they are the only copy of them.
    package struct AsideNotEmpty: Error {
        package let folder: String
    }

    /// Starts a replacement in `root` (which exists) staged in `root/stagingName`: removes what a
    /// replacement killed before its moves left there, and makes the staging folder. Throws
    /// `AsideNotEmpty` without touching anything when folders wait aside.
    package init(root: String, stagingName: String,
                 moveItem: @escaping (_ source: String, _ destination: String) throws -> Void = FolderReplacement.rename) throws {
        self.root = root
        staging = (root as NSString).appendingPathComponent(stagingName)
        aside = (staging as NSString).appendingPathComponent(".replaced")
        self.moveItem = moveItem
        // Empty folders there (a replacement that failed making room for one) hold nothing.
        if Self.holdsFiles(aside) { throw AsideNotEmpty(folder: aside) }
        try? FileManager.default.removeItem(atPath: staging)
        try AtomicFile.prepareDirectory(staging)
    }

    /// `relative` inside `folder`.
    private func path(_ relative: String, in folder: String) -> String { (folder as NSString).appendingPathComponent(relative) }

    /// Copies the folder `source` into the staging folder as `relative` (a path under `root`, such
    /// as ITEM/MODE) and returns where the copy is, to be changed before it is placed. A failure
    /// names `relative`'s final place in `root` and the system's reason.
    @discardableResult
    package func stage(_ source: String, as relative: String) throws -> String {
        let copy = path(relative, in: staging)
        try AtomicFile.prepareDirectory(InputFile.parent(of: copy))
        try Self.fileOperation("copy \(source) here", path(relative, in: root)) { try Self.copyFolder(source, to: copy) }
        return copy
    }

    /// Moves the staged `relative` to its place in `root`, the folder there first moved aside.
    /// After a failure `undo` puts back what was placed before, this one included.
    package mutating func place(_ relative: String) throws {
        let destination = path(relative, in: root)
        let replacesEarlier = FileManager.default.fileExists(atPath: destination)
        if replacesEarlier {
            try AtomicFile.prepareDirectory(InputFile.parent(of: path(relative, in: aside)))
            try Self.fileOperation("move it aside", destination) { try moveItem(destination, path(relative, in: aside)) }
        }
        placed.append((relative, replacesEarlier))
        createdFolders += try AtomicFile.prepareDirectory(InputFile.parent(of: destination))
        try Self.fileOperation("move it into place", destination) { try moveItem(path(relative, in: staging), destination) }
    }

    /// Ends the replacement: the staging folder goes, and with it the folders moved aside — first
    /// renamed out of `aside` at once, so that a process killed while deleting them (a second
    /// signal) leaves no folders aside for the next replacement to call the only copy of what is
    /// now replaced.
    package func finish() {
        Glibc.rename(aside, (staging as NSString).appendingPathComponent(".discarded"))
        try? FileManager.default.removeItem(atPath: staging)
    }

    /// Puts `root` back as it was before the first `place`: each placed folder removed, the folder
    /// it replaced moved back, then the staging folder and the folders made for the placed ones
    /// removed. Returns the replaced folders that could not be moved back (`relative` paths); they
    /// stay in `aside`, and the staging folder with them.
    package mutating func undo() -> [String] {
        var stranded: [String] = []
        for (relative, replacedEarlier) in placed.reversed() {
            try? FileManager.default.removeItem(atPath: path(relative, in: root))
            guard replacedEarlier else { continue }
            do { try moveItem(path(relative, in: aside), path(relative, in: root)) } catch { stranded.append(relative) }
        }
        placed = []
        guard stranded.isEmpty else { return stranded }
        try? FileManager.default.removeItem(atPath: staging)
        AtomicFile.removeEmptyFolders(createdFolders)
        createdFolders = []
        return []
    }

    /// Whether `folder` holds a file anywhere below it (not only folders).
    static func holdsFiles(_ folder: String) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return false }
        return names.contains { name in
            let path = (folder as NSString).appendingPathComponent(name)
            var status = stat()
            guard lstat(path, &status) == 0 else { return false }
            return status.st_mode & S_IFMT != S_IFDIR || holdsFiles(path)
        }
    }

    /// Moves a folder with rename(2), failing with the system's reason.
    package static func rename(_ source: String, _ destination: String) throws {
        guard Glibc.rename(source, destination) != 0 else { return }
        throw SystemFailure(reason: String(cString: strerror(errno)))
    }

    /// A system call's failure, by its `strerror`.
    struct SystemFailure: Error {
        let reason: String
    }

    /// Copies a folder of folders and regular files (what a run folder holds: checked before),
    /// the files' bytes and modes only. Not their owner: Foundation's copy gives each file its
    /// source's, which a user who may read another's files cannot (shards unpacked by root in a
    /// CI container failed with "You don't have permission").
    static func copyFolder(_ source: String, to destination: String) throws {
        guard mkdir(destination, 0o777) == 0 else { throw SystemFailure(reason: String(cString: strerror(errno))) }
        for name in try FileManager.default.contentsOfDirectory(atPath: source).sorted() {
            let from = (source as NSString).appendingPathComponent(name), to = (destination as NSString).appendingPathComponent(name)
            var status = stat()
            guard lstat(from, &status) == 0 else { throw SystemFailure(reason: "\(from): \(String(cString: strerror(errno)))") }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: try copyFolder(from, to: to)
            case S_IFREG: try copyFile(from, to: to, mode: status.st_mode & 0o777)
            default: throw SystemFailure(reason: "\(from): not a folder or a regular file")
            }
        }
    }

    private static func copyFile(_ source: String, to destination: String, mode: mode_t) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard input >= 0 else { throw SystemFailure(reason: "\(source): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard output >= 0 else { throw SystemFailure(reason: String(cString: strerror(errno))) }
        var failure: String?
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while failure == nil {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno != EINTR { failure = "\(source): \(String(cString: strerror(errno)))" }
                continue
            }
            failure = buffer.withUnsafeBytes { SystemCalls.writeAll(UnsafeRawBufferPointer(rebasing: $0[..<count]), to: output) }
        }
        if close(output) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if let failure { throw SystemFailure(reason: failure) }
    }

    /// Runs a copy or a move of `path`; a failure is one line naming it and the system's reason
    /// ("No space left on device"), not Foundation's error dump.
    static func fileOperation(_ what: String, _ path: String, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as SystemFailure {
            throw AtomicFile.WriteError(path: path, reason: "cannot \(what): \(failure.reason)")
        } catch let error as NSError {
            let posix = error.userInfo[NSUnderlyingErrorKey] as? NSError
            let reason = if let posix, posix.domain == NSPOSIXErrorDomain {
                String(cString: strerror(Int32(posix.code)))
            } else if error.domain == NSCocoaErrorDomain && error.code == NSFileWriteOutOfSpaceError {
                String(cString: strerror(ENOSPC))
            } else {
                error.localizedDescription.replacingOccurrences(of: "The operation could not be completed. ", with: "")
            }
            throw AtomicFile.WriteError(path: path, reason: "cannot \(what): \(reason)")
        }
    }
}
