import Foundation
import XCTest
import AudioCore
@testable import AudioInterop

/// A fresh directory under the system temp dir, removed by `remove()` (call it from tearDown).
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "echolab-interop-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
    func contents() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

enum Signals {
    static func sine(frequency: Double, sampleRate: Int, count: Int, amplitude: Float = 0.5, phase: Double = 0) -> [Float] {
        (0..<count).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(sampleRate) + phase)) }
    }

    static func noise(seed: UInt64, count: Int, amplitude: Float = 0.5) -> [Float] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in amplitude * random.nextSignedFloat() }
    }

    static func meanSquare<C: Collection>(_ x: C) -> Double where C.Element == Float {
        x.isEmpty ? 0 : x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)
    }

    /// The bin with the most power in a Hann-windowed FFT of `x[offset..<offset+size]`.
    static func peakBin(_ x: [Float], offset: Int, size: Int) -> Int {
        let fft = RealFFT(size: size)
        let window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
        var power = [Float](repeating: 0, count: fft.binCount)
        fft.powerSpectrum(x, offset: offset, window: window, into: &power)
        return power.indices.max { power[$0] < power[$1] }!
    }
}

/// Asserts that `body` throws exactly `expected`.
func XCTAssertThrowsAudioError<T>(_ expected: AudioIOError, _ body: @autoclosure () throws -> T,
                                  file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try body(), file: file, line: line) { error in
        XCTAssertEqual(error as? AudioIOError, expected, file: file, line: line)
    }
}
