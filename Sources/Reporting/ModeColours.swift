import Foundation

/// A mode's colour in eval's plots: one hue per backend, lighter to darker from the gentlest to
/// the strongest intensity, so twenty-one lines read as five families with an order inside each
/// instead of twenty-one near-identical colours. `disabled` is grey; a plugin's modes are a family
/// of their own, in a hue no built-in backend has, chosen by the plugin's name (the same in every
/// eval); a mode this does not know (a scenario as written) gets nil, and the palette by place.
enum ModeColours {
    /// Hue and saturation per backend (blue, orange, green, purple, and a dark red for EchoLab's
    /// own, told apart from orange by lightness: most colour-blind readers tell them apart).
    static let backends: [String: (hue: Double, saturation: Double)] = [
        "speex": (212, 0.70), "webrtc": (28, 0.85), "webrtc-mobile": (140, 0.55), "aec3": (285, 0.50), "echolab": (350, 0.75),
    ]
    /// Hues for plugins, away from the built-in backends': teal, olive, magenta, indigo, lime.
    static let pluginHues: [(hue: Double, saturation: Double)] = [(180, 0.65), (55, 0.70), (320, 0.65), (250, 0.45), (95, 0.60)]
    /// Lightness per intensity; adaptive sits between recommended and max, where it starts.
    static let intensities: [String: Double] = [
        "intensityMin": 0.72, "intensityRecommended": 0.55, "intensityAdaptive": 0.43, "intensityMax": 0.30,
    ]

    /// `modes`: every mode of the eval, so that two plugins never share a family: each takes the
    /// hue its name hashes to, or the next one no plugin before it (in `modes` order) took.
    static func colour(for mode: String, among modes: [String] = []) -> String? {
        if mode == "disabled" { return "#8a8a8a" }
        let parts = mode.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let lightness = intensities[parts[1]] else { return nil }
        let backend = backends[parts[0]] ?? pluginHues[pluginHueIndex(parts[0], among: modes)]
        return hex(hue: backend.hue, saturation: backend.saturation, lightness: lightness)
    }

    static func pluginHueIndex(_ plugin: String, among modes: [String]) -> Int {
        var plugins: [String] = []
        for mode in modes {
            let backend = String(mode.split(separator: ":", maxSplits: 1).first ?? "")
            if backends[backend] == nil, mode.contains(":"), !plugins.contains(backend) { plugins.append(backend) }
        }
        if !plugins.contains(plugin) { plugins.append(plugin) }
        var taken: [Int] = []
        for name in plugins {
            var index = Int(nameHash(name) % UInt64(pluginHues.count))
            for _ in pluginHues.indices where taken.contains(index) { index = (index + 1) % pluginHues.count }
            if name == plugin { return index }
            taken.append(index)
        }
        return 0
    }

    /// FNV-1a of the name's bytes: the same hue for a plugin in every eval and on every machine
    /// (Swift's `hashValue` is seeded per process).
    static func nameHash(_ name: String) -> UInt64 {
        name.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// HSL to `#rrggbb` (CSS's conversion), so every browser and SVG viewer draws the same colour.
    static func hex(hue: Double, saturation: Double, lightness: Double) -> String {
        let a = saturation * min(lightness, 1 - lightness)
        func channel(_ n: Double) -> Int {
            let k = (n + hue / 30).truncatingRemainder(dividingBy: 12)
            return Int(((lightness - a * max(-1, min(k - 3, 9 - k, 1))) * 255).rounded())
        }
        return String(format: "#%02x%02x%02x", channel(0), channel(8), channel(4))
    }
}
