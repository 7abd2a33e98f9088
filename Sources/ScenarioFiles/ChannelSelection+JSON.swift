import AudioCore
import EchoLabJSON

extension ChannelSelection {
    /// The `channel` key as corpus manifests, scenario files and recording reports write it: null
    /// (mono files only), a channel number counted from 0, or "downmix".
    public var json: JSONValue {
        switch self {
        case .monoOnly: .null
        case .downmix: .string("downmix")
        case .channel(let index): .number(Double(index))
        }
    }

    /// The highest channel number a `channel` key may name.
    public static let highestChannel = 1023

    /// A `channel` key's value (nil or null: mono files only); nil when it names no channel.
    public init?(json: JSONValue?) {
        switch json {
        case nil, .null?: self = .monoOnly
        case .string("downmix")?: self = .downmix
        case .number(let index)? where index >= 0 && index <= Double(Self.highestChannel) && index == index.rounded(.towardZero):
            self = .channel(Int(index))
        default: return nil
        }
    }
}
