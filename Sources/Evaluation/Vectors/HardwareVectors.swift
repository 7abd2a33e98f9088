import AudioCore
import Simulation
import VirtualTime

/// The hardware model's vectors (README "Audio hardware, session and routes"): a granted
/// format other than the engine's, a route change, the narrowband and the output-only Bluetooth
/// routes, clock drift against its drift-free twin, the session lifecycle, and the session
/// mistakes the lint finds.
extension VectorCorpus {
    static func hardware(_ change: (inout HardwareConfiguration) -> Void = { _ in }) -> HardwareConfiguration {
        var configuration = HardwareConfiguration()
        change(&configuration)
        return configuration
    }

    static func at(_ milliseconds: Int64, _ action: HardwareAction) -> TimelineEvent {
        TimelineEvent(at: .milliseconds(milliseconds), action: .hardware(action))
    }

    /// A speech call on a named route (the route brings its echo path).
    static func routeCall(_ name: String, route: AudioRoute, seconds: Int64 = 6, change: (inout Scenario) -> Void = { _ in }) -> Scenario {
        var scenario = Scenario(name: name, farEnd: farEndSpeech, nearEnd: nearEndSpeech, noise: micNoise,
                                voiceProcessing: aec(.intensityRecommended), duration: .seconds(seconds))
        scenario.hardware = hardware { $0.route = route }
        change(&scenario)
        return scenario
    }

    static func driftCall(_ ppm: Double) -> Scenario {
        var scenario = Scenario(name: "hw-drift-\(Int(ppm))ppm", farEnd: whiteNoise, noise: NoiseSettings(levelDBFS: -65, seed: 4),
                                echoPath: EchoPathSettings(delayMilliseconds: 20, gainDB: -10, impulseResponse: .synthetic(rt60Milliseconds: 100, seed: 2)),
                                voiceProcessing: aec(.intensityRecommended), duration: .seconds(20))
        scenario.hardware = hardware { $0.clockDriftPPM = ppm }
        return scenario
    }

    static var hardwareScenarios: [Scenario] {
        [
            speechCall("hw-44k-5ms", aecMode: .intensityRecommended) {
                $0.duration = .seconds(6)
                $0.hardware = hardware { $0.preferences = AudioPreferences(sampleRate: 44_100, ioBufferDurationSeconds: 0.005) }
            },
            routeCall("hw-route-receiver-to-speaker", route: .receiver, seconds: 10) {
                $0.timeline = [at(4000, .routeChange(.speaker))]
            },
            routeCall("hw-route-bluetooth-hfp", route: .bluetoothHFP),
            routeCall("hw-route-bluetooth-a2dp", route: .bluetoothA2DP),
            driftCall(0),
            driftCall(100),
            // The issue's own timeline: CallKit activation, manual audio, an interruption, new
            // preferences (taking effect at the next activation), deactivation.
            routeCall("hw-session-lifecycle", route: .speaker, seconds: 10) {
                $0.hardware = hardware {
                    $0.route = .speaker
                    $0.preferences = AudioPreferences(sampleRate: 44_100, ioBufferDurationSeconds: 0.005)
                    $0.usesManualAudio = true
                    $0.activeAtStart = false
                }
                $0.timeline = [
                    at(0, .activateSession), at(1000, .setAudioEnabled(true)),
                    at(3000, .interruptionBegin), at(4000, .interruptionEnd),
                    at(5000, .setPreferred(AudioPreferences(sampleRate: 16_000, ioBufferDurationSeconds: 0.02))),
                    at(6000, .routeChange(.receiver)), at(9000, .deactivateSession),
                ]
            },
            // Every session mistake at once: audio before activation, the speaker reset at the
            // connection, preferences while active, deactivation under a custom mic.
            routeCall("hw-session-mistakes", route: .receiver, seconds: 6) {
                $0.hardware = hardware { $0.route = .receiver; $0.activeAtStart = false }
                $0.mic = .generator(.speechLike(levelDBFS: -24, pitchHz: 190), seed: 12, options: AppDeviceOptions())
                $0.voiceProcessing = aec(.disabled)
                $0.timeline = [
                    at(500, .routeChange(.speaker)), at(1000, .activateSession),
                    at(2000, .setPreferred(AudioPreferences(sampleRate: 16_000))),
                    at(3000, .deactivateSession), at(4000, .activateSession),
                ]
            },
        ]
    }
}
