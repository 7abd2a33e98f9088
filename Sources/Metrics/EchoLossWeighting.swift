import Foundation

/// ITU-T G.122 Annex B's weighting of a loss measured at several frequencies into one figure:
/// the losses are turned into power transmissions, integrated over log frequency by the
/// trapezoidal rule, averaged over the span and turned back into a loss,
///
///     L_w = −10·log10( Σ_{i=1…N} (10^(−L_{i−1}/10) + 10^(−L_i/10)) · ln(f_i / f_{i−1}) / (2·ln(f_N / f_0)) ).
///
/// The same loss at every frequency is that loss; a band that leaks more echo weighs more than
/// one that leaks less (the mean is of powers, not of decibels).
public enum EchoLossWeighting {
    /// `lossesDB[i]` measured at `frequenciesHz[i]` (ascending, at least one). nil when the
    /// counts differ, a frequency is not positive or ascending, or a loss is not finite.
    public static func weightedLossDB(lossesDB: [Double], frequenciesHz: [Double]) -> Double? {
        guard !lossesDB.isEmpty, lossesDB.count == frequenciesHz.count, lossesDB.allSatisfy(\.isFinite),
              frequenciesHz.allSatisfy({ $0 > 0 }), zip(frequenciesHz, frequenciesHz.dropFirst()).allSatisfy({ $0 < $1 })
        else { return nil }
        guard lossesDB.count > 1 else { return lossesDB[0] }
        let transmissions = lossesDB.map { pow(10, -$0 / 10) }
        var integral = 0.0
        for index in 1..<lossesDB.count {
            integral += (transmissions[index - 1] + transmissions[index]) * log(frequenciesHz[index] / frequenciesHz[index - 1])
        }
        let mean = integral / (2 * log(frequenciesHz[frequenciesHz.count - 1] / frequenciesHz[0]))
        return -10 * log10(mean)
    }
}
