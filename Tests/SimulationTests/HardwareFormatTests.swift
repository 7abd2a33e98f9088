import XCTest
@testable import Simulation

final class HardwareFormatTests: XCTestCase {
    /// (preferred rate, preferred duration) → (granted rate, frames) on the built-in port.
    func testGrantedFormatTable() {
        let table: [(Int?, Double?, Int, Int)] = [
            (48_000, 0.005, 48_000, 256),    // 240 frames → 256
            (44_100, 0.005, 44_100, 256),    // 220.5 → 256 (5.8 ms)
            (16_000, 0.02, 16_000, 256),     // 320 → 256 (nearer than 512)
            (48_000, 0.01, 48_000, 512),     // 480 → 512
            (44_100, 0.0232, 44_100, 1024),  // 1023 → 1024
            (48_000, 0.004, 48_000, 256),    // 192: a tie between 128 and 256 → 256
            (48_000, 0.0001, 48_000, 32),    // 4.8 → 4, clamped up to 32
            (48_000, 0.5, 48_000, 4096),     // 24 000 → 16 384, clamped down to 4096
            (96_000, 0.005, 48_000, 256),    // above the top rate → 48 kHz
            (46_050, 0.005, 48_000, 256),    // tie between 44.1 and 48 kHz → the higher
            (nil, nil, 48_000, 512),         // defaults: 48 kHz, 10 ms
        ]
        for (rate, duration, grantedRate, frames) in table {
            let granted = HardwarePort.builtIn.grant(AudioPreferences(sampleRate: rate, ioBufferDurationSeconds: duration))
            XCTAssertEqual(granted, HardwareFormat(sampleRate: grantedRate, ioBufferFrames: frames),
                           "preferred \(String(describing: rate)) Hz, \(String(describing: duration)) s")
        }
        // 11.025 kHz → 8 kHz; 0.01 s at 8 kHz is 80 frames → 64.
        XCTAssertEqual(HardwarePort.builtIn.grant(AudioPreferences(sampleRate: 11_025, ioBufferDurationSeconds: 0.01)),
                       HardwareFormat(sampleRate: 8000, ioBufferFrames: 64))
    }

    func testNarrowbandPortGrantsOnlySixteenKilohertz() {
        let granted = HardwarePort.bluetoothHandsFree.grant(AudioPreferences(sampleRate: 48_000, ioBufferDurationSeconds: 0.005))
        XCTAssertEqual(granted, HardwareFormat(sampleRate: 16_000, ioBufferFrames: 64))   // 80 → 64
        XCTAssertEqual(HardwarePort.bluetoothHandsFree.grant(AudioPreferences(ioBufferDurationSeconds: 0.001)).ioBufferFrames, 64)
    }

    func testNearestPowerOfTwo() {
        XCTAssertEqual(HardwarePort.nearestPowerOfTwo(240), 256)
        XCTAssertEqual(HardwarePort.nearestPowerOfTwo(383), 256)
        XCTAssertEqual(HardwarePort.nearestPowerOfTwo(384), 512)
        XCTAssertEqual(HardwarePort.nearestPowerOfTwo(0.2), 1)
    }
}
