import XCTest
@testable import AudioInterop

/// fftw3f through `RealFFT`: bins, inverse scaling, Parseval, non-power-of-two sizes.
final class RealFFTTests: XCTestCase {
    let sizes = [8, 64, 960, 1_000, 1_024]

    func testCosineAtBinKPutsItsEnergyInBinK() {
        for size in sizes {
            let fft = RealFFT(size: size)
            XCTAssertEqual(fft.binCount, size / 2 + 1)
            for k in [1, size / 8, size / 2 - 1] where k > 0 {
                let x = (0..<size).map { Float(cos(2 * Double.pi * Double(k * $0) / Double(size))) }
                var re = [Float](repeating: 0, count: fft.binCount), im = re, power = re
                fft.forward(x, real: &re, imaginary: &im)
                XCTAssertEqual(re[k], Float(size) / 2, accuracy: Float(size) * 1e-4, "size \(size) bin \(k)")
                XCTAssertEqual(im[k], 0, accuracy: Float(size) * 1e-4)
                fft.powerSpectrum(x, into: &power)
                let elsewhere = power.enumerated().filter { $0.offset != k }.map(\.element).max()!
                XCTAssertEqual(power[k], Float(size * size) / 4, accuracy: Float(size * size) * 1e-4)
                XCTAssertLessThan(elsewhere, power[k] * 1e-8, "size \(size) bin \(k)")
            }
        }
    }

    func testSineAndDCAndNyquist() {
        let size = 1_000
        let fft = RealFFT(size: size)
        var re = [Float](repeating: 0, count: fft.binCount), im = re
        let sine = (0..<size).map { Float(sin(2 * Double.pi * 7 * Double($0) / Double(size))) }
        fft.forward(sine, real: &re, imaginary: &im)
        XCTAssertEqual(im[7], -Float(size) / 2, accuracy: 0.05)   // sin → −j·N/2
        XCTAssertEqual(re[7], 0, accuracy: 0.05)
        fft.forward([Float](repeating: 0.25, count: size), real: &re, imaginary: &im)
        XCTAssertEqual(re[0], 250, accuracy: 1e-3)
        let alternating = (0..<size).map { Float($0 % 2 == 0 ? 1 : -1) }
        fft.forward(alternating, real: &re, imaginary: &im)
        XCTAssertEqual(re[size / 2], Float(size), accuracy: 1e-3)
        XCTAssertEqual(re[0], 0, accuracy: 1e-3)
    }

    func testForwardThenInverseReturnsInputTimesSize() {
        for size in sizes {
            let fft = RealFFT(size: size)
            let x = Signals.noise(seed: UInt64(size), count: size)
            var re = [Float](repeating: 0, count: fft.binCount), im = re
            fft.forward(x, real: &re, imaginary: &im)
            var y = [Float](repeating: 0, count: size + 5)
            fft.inverse(real: re, imaginary: im, output: &y, offset: 5)
            let worst = (0..<size).map { abs(y[5 + $0] / Float(size) - x[$0]) }.max()!
            XCTAssertLessThan(worst, 1e-5, "size \(size)")
            XCTAssertEqual(Array(y.prefix(5)), [0, 0, 0, 0, 0])
        }
    }

    /// Each direction is planned by its first use. A transform planned then gives the same bits
    /// as one planned ahead (by `prepare`), whichever direction comes first; forward-only use
    /// never plans the inverse.
    func testLazilyPlannedTransformsGiveTheBitsOfPreparedOnes() {
        for size in [960, 1_000, 40_960] {
            let prepared = RealFFT(size: size)
            prepared.prepare(.forward)
            prepared.prepare(.inverse)
            XCTAssertTrue(prepared.isPlanned(.forward) && prepared.isPlanned(.inverse))
            let x = Signals.noise(seed: 7 + UInt64(size), count: size)
            var re = [Float](repeating: 0, count: prepared.binCount), im = re
            prepared.forward(x, real: &re, imaginary: &im)
            var expected = [Float](repeating: 0, count: size)
            prepared.inverse(real: re, imaginary: im, output: &expected)

            let forwardFirst = RealFFT(size: size)
            XCTAssertFalse(forwardFirst.isPlanned(.forward) || forwardFirst.isPlanned(.inverse), "planned by init")
            var lazyRe = [Float](repeating: 0, count: size / 2 + 1), lazyIm = lazyRe, power = lazyRe
            forwardFirst.forward(x, real: &lazyRe, imaginary: &lazyIm)
            forwardFirst.powerSpectrum(x, into: &power)
            XCTAssertTrue(forwardFirst.isPlanned(.forward))
            XCTAssertFalse(forwardFirst.isPlanned(.inverse), "forward use planned the inverse")
            XCTAssertEqual(lazyRe.map(\.bitPattern), re.map(\.bitPattern), "size \(size)")
            XCTAssertEqual(lazyIm.map(\.bitPattern), im.map(\.bitPattern), "size \(size)")
            XCTAssertEqual(power.map(\.bitPattern), zip(re, im).map { ($0 * $0 + $1 * $1).bitPattern }, "size \(size)")

            let inverseFirst = RealFFT(size: size)
            var y = [Float](repeating: 0, count: size)
            inverseFirst.inverse(real: re, imaginary: im, output: &y)
            XCTAssertTrue(inverseFirst.isPlanned(.inverse))
            XCTAssertFalse(inverseFirst.isPlanned(.forward), "inverse use planned the forward")
            XCTAssertEqual(y.map(\.bitPattern), expected.map(\.bitPattern), "size \(size)")
        }
    }

    func testParseval() {
        for size in sizes {
            let fft = RealFFT(size: size)
            let x = Signals.noise(seed: 99 + UInt64(size), count: size)
            var power = [Float](repeating: 0, count: fft.binCount)
            fft.powerSpectrum(x, into: &power)
            let timeEnergy = x.reduce(0.0) { $0 + Double($1 * $1) }
            var freqEnergy = Double(power[0]) + Double(power[size / 2])
            for k in 1..<(size / 2) { freqEnergy += 2 * Double(power[k]) }
            XCTAssertEqual(freqEnergy / Double(size), timeEnergy, accuracy: timeEnergy * 1e-4, "size \(size)")
        }
    }

    func testWindowAndOffsetAreAppliedOnTheWayIn() {
        let size = 960
        let fft = RealFFT(size: size)
        let signal = Signals.noise(seed: 3, count: 2_000)
        let window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
        let manual = (0..<size).map { signal[100 + $0] * window[$0] }
        var a = [Float](repeating: 0, count: fft.binCount), ai = a, b = a, bi = a
        fft.forward(signal, offset: 100, window: window, real: &a, imaginary: &ai)
        fft.forward(manual, real: &b, imaginary: &bi)
        XCTAssertEqual(a, b)
        XCTAssertEqual(ai, bi)
    }

    func testPlansAreDeterministicAcrossInstances() {
        let x = Signals.noise(seed: 5, count: 1_000)
        var p1 = [Float](repeating: 0, count: 501), p2 = p1
        RealFFT(size: 1_000).powerSpectrum(x, into: &p1)
        RealFFT(size: 1_000).powerSpectrum(x, into: &p2)
        XCTAssertEqual(p1, p2)
    }
}
