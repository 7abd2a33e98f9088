import Foundation

/// Checks a path before anything opens it: an input must be a regular file. Opening a folder,
/// a device such as /dev/zero or a named pipe through libsndfile or `Data(contentsOf:)` gives a
/// misleading message ("Format not recognised"), reads forever, or blocks.
public enum InputFile {
    /// The most bytes a file or folder name may have (Linux's NAME_MAX).
    public static let maximumNameBytes = 255

    /// Why `path` cannot be read as an input file, or nil when it is a readable regular file.
    /// Symbolic links are followed (a loop is reported as such).
    public static func problem(at path: String) -> String? {
        if path.isEmpty { return "empty path" }
        var info = stat()
        guard stat(path, &info) == 0 else {
            switch errno {
            case ENOENT: return isLinkToNothing(path) ? "a symbolic link to nothing" : "no such file"
            case ENOTDIR: return "no such file (a part of the path is not a folder)"
            case ELOOP: return "symbolic link loop"
            default: return String(cString: strerror(errno))
            }
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return "is a folder, not a file"
        default: return "is not a regular file (a device, pipe or socket)"
        }
        guard access(path, R_OK) == 0 else { return "not readable: \(String(cString: strerror(errno)))" }
        return nil
    }

    /// A link whose target is gone reads as missing to stat(2): said as what it is, since the
    /// name is there (`ls` lists it).
    private static func isLinkToNothing(_ path: String) -> Bool {
        var link = stat()
        return lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK
    }

    /// Why nothing can be found at `path`, an argument that names a file or a folder (eval's
    /// corpus paths, merge's shards): "no such file or folder", as `problem(at:)` details it; nil
    /// where something is there.
    public static func missingProblem(at path: String) -> String? {
        var info = stat()
        guard !path.isEmpty, stat(path, &info) != 0 else { return nil }
        switch errno {
        case ENOENT: return isLinkToNothing(path) ? "a symbolic link to nothing" : "no such file or folder"
        case ENOTDIR: return "no such file or folder (a part of the path is not a folder)"
        default: return problem(at: path)
        }
    }

    /// Why `path` cannot be a canceller plugin's shared library, or nil: missing or unreadable, a
    /// folder, a device or a named pipe (hashing /dev/zero read until memory ran out; opening a
    /// named pipe blocked for ever).
    public static func sharedLibraryProblem(at path: String) -> String? {
        if access(path, R_OK) != 0 { return "no such readable file" }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return "a folder, not a shared library" }
        return problem(at: path).map { "\($0), not a shared library" }
    }

    /// The size in bytes of a regular file (nil when it cannot be read).
    public static func size(at path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// `path` made absolute against the current folder, its `.` components dropped (they name
    /// nothing: `eval .` named its files `/data/./mic.wav` in errors), without resolving `..` or
    /// links (the kernel resolves them: `a/link/../b` is not `a/b` when `link` points elsewhere).
    public static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return droppingDotComponents(path) }
        let cwd = FileManager.default.currentDirectoryPath
        if path.isEmpty || path == "." { return cwd }
        return droppingDotComponents(cwd.hasSuffix("/") ? cwd + path : cwd + "/" + path)
    }

    /// `path` without its `.` components (`/a/./b/.` is `/a/b`); `.hidden` names are kept. A
    /// relative path of nothing else is "." (the current folder), never "": a manifest
    /// `./corpus.json` listing "." read as an empty path.
    package static func droppingDotComponents(_ path: String) -> String {
        guard path.hasPrefix("./") || path.contains("/./") || path.hasSuffix("/.") else { return path }
        let kept = path.split(separator: "/", omittingEmptySubsequences: false).filter { $0 != "." }.joined(separator: "/")
        return kept.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : kept
    }

    /// The components of `path` made absolute, with `.` dropped and `..` taking the previous one
    /// away, as text: where a browser or a person reads the path, not where links lead.
    public static func lexicalComponents(_ path: String) -> [String] {
        var out: [String] = []
        for part in absolute(path).split(separator: "/") where part != "." {
            if part == ".." { if !out.isEmpty { out.removeLast() } } else { out.append(String(part)) }
        }
        return out
    }

    /// The folder part of `path` ("a/b" → "a", "b" → "", "/b" → "/"), as text. Foundation's
    /// `NSString.deletingLastPathComponent` traps on a one-character relative path ("o") in this
    /// toolchain, so paths a user types are never given to it.
    public static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// The last part of `path` ("a/b/" → "b").
    public static func lastComponent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// Whether `path` is `folder` or inside it, compared as canonical paths (links and `..`
    /// resolved), for paths that may not exist yet.
    public static func isSameOrInside(_ path: String, _ folder: String) -> Bool {
        let path = canonical(path), folder = canonical(folder)
        return path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    /// The canonical path (links and `..` resolved by the kernel) of `path`, or of its nearest
    /// existing ancestor followed by the rest, for a path that does not exist yet.
    public static func canonical(_ path: String) -> String {
        var head = absolute(path)
        var tail: [String] = []
        while true {
            if let resolved = realpath(head, nil) {
                defer { free(resolved) }
                // The missing part holds no links, so `.` and `..` there can be resolved by hand.
                var components = String(cString: resolved).split(separator: "/").map(String.init)
                for component in tail.reversed() {
                    if component == ".." { _ = components.popLast() } else if component != "." && !component.isEmpty { components.append(component) }
                }
                return "/" + components.joined(separator: "/")
            }
            let parent = Self.parent(of: head)
            if parent == head || parent.isEmpty { return absolute(path) }
            tail.append(Self.lastComponent(of: head))
            head = parent
        }
    }
}
