@testable import Metrics
import XCTest

/// Rows spilled to disk read back exactly, and an analysis whose ledger spills every few rows
/// equals one that keeps every row in memory, bit for bit.
final class SpillingTests: XCTestCase {
    func testSpilledRowsReadBackInOrder() {
        let table = SpillingRows<Double>(width: 2, residentRows: 3)
        let values = (0..<11).map { (Double($0) * 0.1, Double($0) + 0.5) }
        for (a, b) in values { table.append(a, b) }
        XCTAssertEqual(table.count, 11)
        for (first, end) in [(0, 11), (2, 7), (4, 5), (9, 11), (5, 5)] {
            var read: [Double] = []
            table.forEachRow(in: first..<end) { row, at in read.append(row[at]); read.append(row[at + 1]) }
            XCTAssertEqual(read, values[first..<end].flatMap { [$0.0, $0.1] }, "rows \(first)..<\(end)")
        }
        // Random access across spilled blocks and the resident tail, in any order.
        for row in [10, 0, 7, 3, 3, 8] {
            XCTAssertEqual(table.element(row: row, column: 1), values[row].1)
        }
    }

    func testAnalysisWithSpilledLedgerIsBitIdentical() throws {
        let (reference, echo) = TestSignals.farEndScene(seconds: 8)
        let mic = TestSignals.sum(echo, TestSignals.noise(count: echo.count, dbfs: -60, seed: 9))
        let processed = mic.indices.map { mic[$0] * (($0 / 48_000) % 2 == 0 ? 0.3 : 0.05) }
        let segments = [0..<48_000, 48_000..<384_000, 200_001..<250_000]
        func analysis(residentRows: Int?) -> EchoAnalysis {
            let stream = residentRows.map {
                EchoAnalysisStream(sampleRate: 48_000, includesEcho: true, includesNearEnd: false, ledgerResidentRows: $0)
            } ?? EchoAnalysisStream(sampleRate: 48_000, includesEcho: true, includesNearEnd: false)
            var offset = 0
            while offset < mic.count {
                let count = min(480, mic.count - offset)
                stream.append(reference: reference, mic: mic, processed: processed, echo: echo, nearEnd: nil,
                              from: offset, count: count)
                offset += count
            }
            return stream.finish(segments: segments)
        }
        let inMemory = analysis(residentRows: nil), spilled = analysis(residentRows: 7)
        XCTAssertGreaterThan(inMemory.whole.gate.singleTalkFrames, 300)   // ~50 spilled blocks
        XCTAssertEqual(spilled.whole, inMemory.whole)
        XCTAssertEqual(spilled.segments, inMemory.segments)
        XCTAssertEqual(spilled.metrics(in: 12_345..<300_000), inMemory.metrics(in: 12_345..<300_000))
        XCTAssertEqual(try XCTUnwrap(inMemory.segments[0].erleDB), 10.5, accuracy: 0.1)   // 20·log10(1/0.3)
    }

    func testLongSeriesWindowIsWidenedToStayBounded() {
        let configuration = EchoMetricsConfiguration(maximumSeriesPoints: 4)
        let (reference, echo) = TestSignals.farEndScene(seconds: 4.2)
        let processed = echo.map { $0 * 0.1 }
        let analysis = EchoAnalyzer(configuration: configuration)
            .analyze(EchoSignals(sampleRate: 48_000, reference: reference, mic: echo, processed: processed, echo: echo))
        // 4.2 s would be 9 windows of 0.5 s; the smallest whole widening that fits 4 is 3 (1.5 s).
        XCTAssertEqual(analysis.whole.erleSeries.map(\.timeSeconds), [0, 1.5, 3])
        for point in analysis.whole.erleSeries {
            XCTAssertEqual(try XCTUnwrap(point.erleDB), 20, accuracy: 0.01)
        }
    }
}
