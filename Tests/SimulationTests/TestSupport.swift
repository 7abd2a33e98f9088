import AudioCore
import AudioInterop
import Foundation
import XCTest
@testable import Simulation

/// A fresh temporary folder per test, removed afterwards.
func makeTemporaryDirectory(_ name: String = #function) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("echolab-tests-\(name.filter(\.isLetter))-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func meanSquare(_ x: ArraySlice<Float>) -> Double {
    guard !x.isEmpty else { return 0 }
    return x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)
}

func decibels(_ ratio: Double) -> Double { 10 * log10(ratio) }
