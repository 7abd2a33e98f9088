import AudioCore
import VirtualTime
import XCTest
@testable import Simulation

/// A capture stream over an hour of virtual time: long (`make test-long`).
final class HardwareStreamLongTests: XCTestCase {
    /// The same device's capture stream alone for an hour of virtual time (360 000 ticks):
    /// nothing lost, nothing made up, one callback per full buffer, no underrun, no drop.
    func testFortyFourKilohertzStreamConservesSamplesOverAnHour() throws {
        let stream = try HardwareStream(format: HardwareFormat(sampleRate: 44_100, ioBufferFrames: 256))
        let input = (0..<480).map { Float(sin(Double($0) * 0.05)) * 0.1 }
        var output = [Float](repeating: 0, count: 480)
        let ticks: Int64 = 360_000
        for _ in 0..<ticks { try stream.process(input, into: &output, count: 480) }
        let hour = ticks * 480
        XCTAssertEqual(stream.framesIn, hour)
        XCTAssertEqual(Double(stream.deviceFrames), Double(hour) * 44_100 / 48_000, accuracy: 64)
        XCTAssertEqual(stream.callbacks, stream.deviceFrames / 256)
        XCTAssertEqual(stream.callbacks * 256 + Int64(stream.bufferedDeviceFrames), stream.deviceFrames)
        XCTAssertEqual(stream.framesOut + stream.silentFrames, hour)
        XCTAssertEqual(stream.silentFrames, 480)
        XCTAssertEqual(stream.latencyFrames, 480)
        XCTAssertEqual(stream.underruns, 0)
        XCTAssertEqual(stream.droppedFrames, 0)
        let inFlight = Double(stream.bufferedEngineFrames) + Double(stream.bufferedDeviceFrames) * 48_000 / 44_100
        XCTAssertEqual(Double(stream.framesOut) + inFlight, Double(hour), accuracy: 128)
    }
}
