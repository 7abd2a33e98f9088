import AudioCore
import AudioInterop
import Foundation
import XCTest
@testable import Simulation

/// A fresh temporary folder per test, removed when the test case that made it finishes.
func makeTemporaryDirectory(_ name: String = #function, for testCase: XCTestCase? = nil) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("echolab-tests-\(name.filter(\.isLetter))-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    TemporaryFolders.shared.remember(url)
    return url
}

/// Removes the folders of `makeTemporaryDirectory` after each test (an XCTest observer).
final class TemporaryFolders: NSObject, XCTestObservation, @unchecked Sendable {
    static let shared: TemporaryFolders = {
        let observer = TemporaryFolders()
        XCTestObservationCenter.shared.addTestObserver(observer)
        return observer
    }()
    private var folders: [URL] = []
    private let lock = NSLock()

    func remember(_ url: URL) {
        lock.lock(); defer { lock.unlock() }
        folders.append(url)
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        lock.lock(); defer { lock.unlock() }
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        folders.removeAll()
    }
}

func meanSquare(_ x: ArraySlice<Float>) -> Double {
    guard !x.isEmpty else { return 0 }
    return x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)
}

func decibels(_ ratio: Double) -> Double { 10 * log10(ratio) }
