import ArgumentParser
import AudioCore

/// `--channel N|downmix` of `process` and `metrics`: which channel of multichannel recordings
/// to take (mono files need none and ignore it). Both commands parse it `.unconditional`: `--channel -1`
/// is a bad value to report, not a missing one.
enum ChannelOption {
    static let help = ArgumentHelp("For multichannel recordings: the channel to take, counted from 0, or downmix (mono files ignore it).",
                                   valueName: "N|downmix")

    static func selection(_ text: String?) throws -> ChannelSelection {
        guard let text else { return .monoOnly }
        if text == "downmix" { return .downmix }
        guard let index = Int(text), index >= 0 else { throw ValidationError("--channel takes a channel number from 0 or downmix (got \(text))") }
        return .channel(index)
    }
}
