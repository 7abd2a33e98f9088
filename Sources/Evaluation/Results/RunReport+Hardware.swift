import EchoLabJSON
import Foundation
import Simulation

// report.json's `hardware` object and each segment's route (present only when the scenario models hardware).
extension RunReport {
    /// `report.json`'s `hardware` object, or nil without a hardware model.
    func hardwareJSON() -> JSONValue? {
        guard let hardware else { return nil }
        let rate = Double(sampleRate)
        func format(_ f: HardwareFormat) -> JSONValue {
            .object(["sample_rate": .number(Double(f.sampleRate)), "io_buffer_frames": .number(Double(f.ioBufferFrames))])
        }
        func milliseconds(_ frames: Int64?) -> JSONValue { frames.map { .number(Double($0) * 1000 / rate) } ?? .null }
        func causes(_ counts: [SilenceCause: Int64]) -> JSONValue {
            .object(Dictionary(uniqueKeysWithValues: SilenceCause.allCases.map { ($0.rawValue, JSONValue.number(Double(counts[$0] ?? 0))) }))
        }
        return .object([
            "input": format(hardware.input), "output": format(hardware.output),
            "added_latency_ms": milliseconds(hardware.addedLatencyFrames),
            "clock_drift_ppm": .number(hardware.clockDriftPPM),
            "manual_audio": .bool(hardware.usesManualAudio),
            "routes": .array(hardware.segments.map { segment in
                .object(["start_s": .number(Double(segment.startFrame) / rate), "route": .string(segment.route),
                         "input_data_source": .string(segment.inputDataSource.rawValue),
                         "input": format(segment.input), "output": format(segment.output),
                         "added_latency_ms": milliseconds(segment.addedLatencyFrames)])
            }),
            "session": .object(["capture_silenced_samples": causes(hardware.session.captureSilenced),
                                "playout_dropped_samples": causes(hardware.session.playoutDropped),
                                "custom_mic_samples_discarded": .number(Double(hardware.session.customMicFramesDiscarded))]),
            "streams": .object(["input_callbacks": .number(Double(hardware.inputCallbacks)),
                                "output_callbacks": .number(Double(hardware.outputCallbacks)),
                                "underruns": .number(Double(hardware.underruns)),
                                "dropped_samples": .number(Double(hardware.droppedFrames)),
                                "near_end_cuts": .number(Double(captureRestarts.filter(\.cutsTheNearEnd).count)),
                                "near_end_lost_samples": .number(Double(captureRestarts.reduce(0) { $0 + $1.nearEndLostSamples }))]),
            "capture_restarts": .array(captureRestarts.map(\.json)),
        ])
    }

    /// Adds `hardware` and each segment's route to `report.json`'s root object.
    func addHardware(to root: inout [String: JSONValue]) {
        guard let hardware, let object = hardwareJSON() else { return }
        root["hardware"] = object
        if case .array(let segments)? = root["segments"] {
            root["segments"] = .array(segments.map { value in
                guard case .object(var fields) = value, case .number(let start)? = fields["start_s"] else { return value }
                fields["route"] = hardware.segment(at: Int64((start * Double(sampleRate)).rounded())).map { .string($0.route) } ?? .null
                return .object(fields)
            })
        }
    }
}
