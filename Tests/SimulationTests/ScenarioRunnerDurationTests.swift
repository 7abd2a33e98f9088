import Simulation
import VirtualTime
import XCTest

/// A call without `duration_s` lasts as long as its longest file, rounded up to a tick: the
/// lengths the scenario's reader found (`inputs`), a header read only where it found none.
final class ScenarioRunnerDurationTests: XCTestCase {
    /// The reader's lengths are taken as they are: the files here do not exist, so a header read
    /// would throw.
    func testTheReadersLengthsAreTheCallsInEitherForm() throws {
        var scenario = Scenario(name: "lengths", farEnd: .file(path: "/nonexistent/far.wav"), nearEnd: .file(path: "/nonexistent/near.wav"))
        scenario.inputs = [ScenarioInput(keyPath: "far_end", path: "/nonexistent/far.wav", frameCount: 3 * 48_000, sampleRate: 48_000),
                           ScenarioInput(keyPath: "near_end.file", path: "/nonexistent/near.wav", frameCount: 16_000 * 4 + 1, sampleRate: 16_000)]
        // 4 s and one 16 kHz sample: up to the next 10 ms tick.
        XCTAssertEqual(try ScenarioRunner(scenario: scenario).duration(), .nanoseconds(4_010_000_000))
    }

    /// A scenario made in code, without the reader's lengths, has its file's header read.
    func testWithoutTheReadersLengthsTheHeaderIsRead() throws {
        let scenario = Scenario(name: "unread", farEnd: .file(path: "/nonexistent/far.wav"))
        XCTAssertThrowsError(try ScenarioRunner(scenario: scenario).duration())
    }
}
