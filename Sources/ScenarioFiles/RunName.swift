import AudioInterop
import Foundation

/// The rule for a run's name — a scenario's or a manifest recording's: it is a folder under the
/// output folder, so one path component, nothing hidden, no spaces or shell specials, short.
public enum RunName {
    /// The most bytes a name may have: it names a folder.
    public static let maximumBytes = InputFile.maximumNameBytes

    /// What is wrong with `name` as a run's name, or nil.
    public static func problem(_ name: String) -> String? {
        guard !name.isEmpty, !name.hasPrefix("."), name.count <= 128,
              name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || "-_.+".unicodeScalars.contains($0) }) else {
            return "'\(name)' must be 1 to 128 letters, digits, '-', '_', '.' or '+', not starting with '.'"
        }
        // A folder name is at most 255 bytes: 128 letters of another script can be 512 (a name
        // of 128 CJK letters passed here and failed its run at mkdir, "File name too long").
        guard name.utf8.count <= maximumBytes else {
            return "'\(name)' is \(name.utf8.count) bytes in UTF-8; a name is a folder, at most \(maximumBytes) bytes"
        }
        return nil
    }
}
