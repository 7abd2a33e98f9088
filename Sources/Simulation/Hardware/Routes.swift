import AudioCore
import AudioInterop

/// Where the call's audio goes in and comes out (`AVAudioSession.currentRoute`).
public enum AudioRoute: String, CaseIterable, Hashable, Sendable {
    /// The earpiece at the top of the phone, held to the ear; input: a built-in mic.
    case receiver
    /// The built-in loudspeaker (hands-free); input: a built-in mic.
    case speaker
    /// A wired headset's earphones and its own mic.
    case wiredHeadset = "wired_headset"
    /// A Bluetooth headset on the hands-free profile: 16 kHz both ways, over the SCO link.
    case bluetoothHFP = "bluetooth_hfp"
    /// A Bluetooth speaker on A2DP: output only, long buffering; input falls back to a built-in mic.
    case bluetoothA2DP = "bluetooth_a2dp"
}

/// The built-in microphone the input uses (002: "bottom, front and back" on an iPhone 5 and later).
/// Only built-in inputs have data sources; a headset's mic ignores the choice.
public enum InputDataSource: String, CaseIterable, Hashable, Sendable {
    case bottom, front, back
}

/// What a route is, for the simulation: its input and output ports (formats they grant) and the
/// loudspeaker → mic path in the room.
///
/// The numbers are modelling assumptions of typical phones, not measurements of one (README
/// "Routes" gives the reasoning): acoustic coupling in handset mode is weak (3GPP TS 26.131 asks
/// a handset for ≥ 46 dB weighted terminal coupling loss *with* its canceller; the raw coupling
/// before it is some 30 dB), hands-free coupling is strong (the speaker is centimetres from the
/// mic and loud), a wired headset has next to no acoustic path, Bluetooth adds its link's
/// buffering: HFP's SCO link some 20 ms each way, A2DP's SBC buffer some 150–250 ms.
public struct RouteProfile: Hashable, Sendable {
    public var route: AudioRoute
    public var input: HardwarePort
    public var output: HardwarePort
    /// The room path for the bottom mic (the data-source offsets add to `gainDB`).
    public var echoPath: EchoPathSettings
    /// Whether the input is a built-in mic (data sources apply).
    public var inputIsBuiltIn: Bool

    /// How much more (+) or less (−) echo a built-in data source picks up than the bottom mic on
    /// this route: the front mic sits next to the earpiece (receiver: +8 dB), the loudspeaker
    /// sits at the bottom (speaker: front −4 dB, back −6 dB). A headset's mic ignores it.
    public func couplingOffsetDB(_ source: InputDataSource) -> Double {
        guard inputIsBuiltIn, source != .bottom else { return 0 }
        switch (route, source) {
        case (.receiver, .front): return 8
        case (.receiver, .back): return 3
        case (.speaker, .front): return -4
        case (.speaker, .back): return -6
        default: return 0
        }
    }

    /// The room path for `source`.
    public func echoPath(for source: InputDataSource) -> EchoPathSettings {
        var path = echoPath
        path.gainDB += couplingOffsetDB(source)
        return path
    }
}

extension AcousticEchoPath {
    /// Builds the engine-rate path for `settings`: the scenario's `echo_path` when the call
    /// starts, and each route's when it switches.
    static func make(_ settings: EchoPathSettings, sampleRate rate: Int, blockSize: Int) throws -> AcousticEchoPath {
        try settings.validate()
        var response: [Float]?
        var delayFrames = Int((settings.delayMilliseconds * Double(rate) / 1000).rounded())
        switch settings.impulseResponse {
        case .none: response = nil
        case .file(let file, let channel)?:
            var (taps, leading) = try AudioFileStream.readImpulseResponse(path: file, targetRate: rate, selection: channel)
            if taps.isEmpty { throw CallError.input("\(file): impulse response is empty") }
            // The file's time 0 at the bulk delay, with the resampler's ringing before it; what
            // would ring before the call's own time 0 (a bulk delay shorter than it) is cut.
            let cut = max(0, leading - delayFrames)
            taps.removeFirst(min(cut, taps.count - 1))
            delayFrames -= leading - cut
            response = taps
        case .synthetic(let rt60, let seed)?:
            response = SyntheticRoom.impulseResponse(rt60Milliseconds: rt60, sampleRate: rate, seed: seed)
        }
        return AcousticEchoPath(blockSize: blockSize, delayFrames: delayFrames,
                                gain: Float(Decibels.amplitude(fromDB: settings.gainDB)), impulseResponse: response,
                                clipLevel: settings.clipDBFS.map { Float(Decibels.amplitude(fromDB: $0)) })
    }
}

extension EchoPathSettings {
    /// The ranges a scenario file's `echo_path` is read in, for a path built in code: out of them
    /// (a negative or NaN delay, a day-long one) the path cannot be built — a negative ring, a
    /// ring of more memory than there is — so the call's initialiser throws, naming the field.
    func validate() throws {
        func check(_ name: String, _ value: Double, _ range: ClosedRange<Double>) throws {
            try CallInputRanges.check("echo path: \(name)", value, range)
        }
        try check("delayMilliseconds", delayMilliseconds, 0...2000)
        try check("gainDB", gainDB, -200...40)
        if let clipDBFS { try check("clipDBFS", clipDBFS, -60...0) }
        if case .synthetic(let rt60, _)? = impulseResponse { try check("rt60Milliseconds", rt60, 10...2000) }
    }
}

extension RouteProfile {
    /// The route's modelled devices and echo path.
    public init(route: AudioRoute) {
        self = switch route {
        case .receiver:
            RouteProfile(route: route, input: .builtIn, output: .builtIn,
                         echoPath: EchoPathSettings(delayMilliseconds: 1, gainDB: -30,
                                                    impulseResponse: .synthetic(rt60Milliseconds: 120, seed: 101)),
                         inputIsBuiltIn: true)
        case .speaker:
            RouteProfile(route: route, input: .builtIn, output: .builtIn,
                         echoPath: EchoPathSettings(delayMilliseconds: 2, gainDB: -10,
                                                    impulseResponse: .synthetic(rt60Milliseconds: 300, seed: 102)),
                         inputIsBuiltIn: true)
        case .wiredHeadset:
            RouteProfile(route: route, input: .wired, output: .wired,
                         echoPath: EchoPathSettings(delayMilliseconds: 1, gainDB: -60,
                                                    impulseResponse: .synthetic(rt60Milliseconds: 10, seed: 103)),
                         inputIsBuiltIn: false)
        case .bluetoothHFP:
            RouteProfile(route: route, input: .bluetoothHandsFree, output: .bluetoothHandsFree,
                         echoPath: EchoPathSettings(delayMilliseconds: 40, gainDB: -40,
                                                    impulseResponse: .synthetic(rt60Milliseconds: 50, seed: 104)),
                         inputIsBuiltIn: false)
        case .bluetoothA2DP:
            RouteProfile(route: route, input: .builtIn, output: .bluetoothA2DP,
                         echoPath: EchoPathSettings(delayMilliseconds: 180, gainDB: -12,
                                                    impulseResponse: .synthetic(rt60Milliseconds: 300, seed: 105)),
                         inputIsBuiltIn: true)
        }
    }
}
