import Foundation

/// A rendered report's audio players link files by relative paths: a recording run's report.md
/// and report.html reach the corpus's mic and loopback outside the output folder
/// (`../../../corpus/mic.wav`). Copied to a folder at another depth (`merge`), those links would
/// point elsewhere; `relinkingAudio` rewrites each player's link, read back exactly as
/// `MarkdownWriter` and `HTMLWriter` wrote it, with `retarget` (given and returning plain
/// paths, as an `AudioClip` holds them). The rest of the text is left as it is.
public enum ReportRelinking {
    /// `markdown` (a `MarkdownWriter` report) with the links of its "Listen:" lines retargeted.
    public static func relinkingAudio(markdown: String, _ retarget: (String) -> String) -> String {
        var lines = markdown.components(separatedBy: "\n")
        for index in lines.indices where lines[index].hasPrefix(listenPrefix) {
            let clips = lines[index].dropFirst(listenPrefix.count).components(separatedBy: clipSeparator)
            lines[index] = listenPrefix + clips.map { clip in
                // `[label](target)`: the label is escaped, so its last "](" starts the target, and
                // the target runs to the line's closing ")".
                guard clip.hasSuffix(")"), let open = clip.range(of: "](", options: .backwards),
                      let path = String(clip[open.upperBound..<clip.index(before: clip.endIndex)]).removingPercentEncoding
                else { return clip }
                return String(clip[..<open.upperBound]) + MarkdownWriter.linkTarget(retarget(path)) + ")"
            }.joined(separator: clipSeparator)
        }
        return lines.joined(separator: "\n")
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
