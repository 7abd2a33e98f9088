import Foundation

/// A rendered report's audio players link files by relative paths: a recording run's report.md
/// and report.html reach the corpus's mic and loopback outside the output folder
/// (`../../../corpus/mic.wav`). Copied to a folder at another depth (`merge`), those links would
/// point elsewhere; `relinkingAudio` rewrites each player's link, read back exactly as
/// `MarkdownWriter` and `HTMLWriter` wrote it, with `retarget` (called once per player, in the
/// page's order, given and returning plain paths, as an `AudioClip` holds them). The rest of the
/// text is left as it is.
public enum ReportRelinking {
    /// `markdown` (a `MarkdownWriter` report) with the links of its "Listen:" lines retargeted.
    public static func relinkingAudio(markdown: String, _ retarget: (String) -> String) -> String {
        var lines = markdown.components(separatedBy: "\n")
        for index in lines.indices where lines[index].hasPrefix(listenPrefix) {
            lines[index] = relinkingListenLine(lines[index], retarget) ?? lines[index]
        }
        return lines.joined(separator: "\n")
    }

    /// One "Listen: [label](target) · [label](target)" line, read clip by clip: the label up to
    /// its first unescaped "]" (`MarkdownWriter.escape` puts a backslash before each "[", "]"
    /// and backslash in it), the target up to the next ")" (`linkTarget` encodes those). The
    /// whole line is read before `retarget` is called; nil for a line of another shape, which is
    /// left as it is (and whose links are not given to `retarget`).
    private static func relinkingListenLine(_ line: String, _ retarget: (String) -> String) -> String? {
        var rest = Substring(line.dropFirst(listenPrefix.count))
        var clips: [(head: Substring, path: String)] = []
        while true {
            guard rest.first == "[" else { return nil }
            var label = rest.index(after: rest.startIndex)
            while label < rest.endIndex, rest[label] != "]" {
                label = rest.index(after: rest[label] == "\\" && rest.index(after: label) < rest.endIndex ? rest.index(after: label) : label)
            }
            guard label < rest.endIndex, rest[label...].hasPrefix("](") else { return nil }
            let targetStart = rest.index(label, offsetBy: 2)
            guard let targetEnd = rest[targetStart...].firstIndex(of: ")"),
                  let path = String(rest[targetStart..<targetEnd]).removingPercentEncoding else { return nil }
            clips.append((rest[..<targetStart], path))
            rest = rest[rest.index(after: targetEnd)...]
            if rest.isEmpty { break }
            guard rest.hasPrefix(clipSeparator) else { return nil }
            rest = rest.dropFirst(clipSeparator.count)
        }
        return listenPrefix + clips.map { clip in String(clip.head) + MarkdownWriter.linkTarget(retarget(clip.path)) + ")" }
            .joined(separator: clipSeparator)
    }

    /// `html` (an `HTMLWriter` report) with the `src` of its audio players retargeted.
    public static func relinkingAudio(html: String, _ retarget: (String) -> String) -> String {
        var out = "", rest = Substring(html)
        while let start = rest.range(of: audioSourcePrefix) {
            out += rest[..<start.upperBound]
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { break }
            let attribute = String(rest[..<end])
            if let path = unescape(attribute).removingPercentEncoding {
                out += HTMLWriter.escape(HTMLWriter.linkTarget(retarget(path)))
            } else {
                out += attribute
            }
            rest = rest[end...]
        }
        return out + rest
    }

    static let listenPrefix = "Listen: "
    static let clipSeparator = " · "
    static let audioSourcePrefix = "<audio controls preload=\"none\" src=\""

    /// The inverse of `HTMLWriter.escape`.
    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
