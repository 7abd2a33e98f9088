import Foundation
import XCTest

/// A fresh temporary folder, removed when `testCase` finishes (kept otherwise: pass the test).
func makeTemporaryDirectory(_ name: String = #function, for testCase: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("echolab-tests-\(name.filter(\.isLetter))-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}
