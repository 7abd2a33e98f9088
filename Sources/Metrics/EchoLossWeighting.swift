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
        guard lossesDB.allSatisfy(\.isFinite) else { return nil }
        // One band is its own loss, exactly (not through its transmission and back).
        if lossesDB.count == 1, frequenciesHz.count == 1, frequenciesHz[0] > 0 { return lossesDB[0] }
        return weightedLossDB(transmissions: lossesDB.map { pow(10, -$0 / 10) }, frequenciesHz: frequenciesHz)
    }

    /// The same from each band's power transmission (10^(−loss/10); 0 for a band that passes
    /// nothing, whose loss is unbounded). nil as above, or when nothing is transmitted at all.
    public static func weightedLossDB(transmissions: [Double], frequenciesHz: [Double]) -> Double? {
        guard !transmissions.isEmpty, transmissions.count == frequenciesHz.count,
              transmissions.allSatisfy({ $0.isFinite && $0 >= 0 }),
              frequenciesHz.allSatisfy({ $0 > 0 }), zip(frequenciesHz, frequenciesHz.dropFirst()).allSatisfy({ $0 < $1 })
        else { return nil }
        guard transmissions.count > 1 else { return transmissions[0] > 0 ? -10 * log10(transmissions[0]) : nil }
        var integral = 0.0
        for index in 1..<transmissions.count {
            integral += (transmissions[index - 1] + transmissions[index]) * log(frequenciesHz[index] / frequenciesHz[index - 1])
        }
        let mean = integral / (2 * log(frequenciesHz[frequenciesHz.count - 1] / frequenciesHz[0]))
        return mean > 0 ? -10 * log10(mean) : nil
    }
}
