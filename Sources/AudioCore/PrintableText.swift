/// Text from outside (file names, scenario values, a scorer's or plugin's words) made safe to
/// show on a terminal or a page.
public enum PrintableText {
    /// `text` as one line that a terminal shows as it is (stderr's lines and the commands' summary
    /// lines on stdout): line breaks (also U+2028, U+2029) and tabs
    /// become spaces, every other control character (NUL, ESC, DEL, the C1 range) a visible `\xNN`,
    /// and the bidirectional controls, which reorder what follows them, a visible `\u{NNNN}`.
    /// Messages quote file names and scenario values, and an ESC there could move the cursor or
    /// clear the screen.
    public static func line(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n", "\r", "\t", "\u{2028}", "\u{2029}": result.append(" ")
            case _ where scalar.value < 0x100 && needsEscape(scalar):
                let hex = String(scalar.value, radix: 16)
                result.append(contentsOf: "\\x\(hex.count < 2 ? "0" + hex : hex)".unicodeScalars)
            case _ where needsEscape(scalar):
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// A scalar a terminal or a page would not show as itself: control characters (C0, DEL,
    /// C1), the line and paragraph separators, and the bidirectional controls, which reorder
    /// what follows them.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true      // bidirectional controls
        default: false
        }
    }
}
