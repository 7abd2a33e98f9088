import Foundation

/// The rule for a run's name — a scenario's or a manifest recording's: it is a folder under the
/// output folder, so one path component, nothing hidden, no spaces or shell specials, short.
public enum RunName {
    /// What is wrong with `name` as a run's name, or nil.
    public static func problem(_ name: String) -> String? {
        guard !name.isEmpty, !name.hasPrefix("."), name.count <= 128,
              name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || "-_.+".unicodeScalars.contains($0) }) else {
            return "'\(name)' must be 1 to 128 letters, digits, '-', '_', '.' or '+', not starting with '.'"
        }
        return nil
    }
}
