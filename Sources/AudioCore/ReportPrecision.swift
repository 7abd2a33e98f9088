/// The precision EchoLab reports a number at: four decimals, fewer from 10¹¹ up. report.json and
/// eval.json print numbers so (`JSONValue`'s canonical text), the pages print what the JSON
/// holds, and a requirement judged "as the pages print it" (TCLw against 46 dB) rounds here too:
/// a measurement and its report agree without the measurement knowing about JSON.
public enum ReportPrecision {
    private static let decimalScales: [Double] = [1, 10, 100, 1_000, 10_000]

    /// Four decimals at most, no trailing zeros, no exponent; "null" for a value that is not
    /// finite. From 10¹¹ up, fewer decimals (`fractionDigits`): a number printed is then the text
    /// a double holds exactly, and printing it again after reading it back gives the same text.
    public static func text(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        let digits = fractionDigits(value)
        let scale = decimalScales[digits]
        var rounded = abs(value) >= 1e15 ? value : (value * scale).rounded() / scale
        // Above 1.8·10³⁰⁴ the scaled value overflows; a value that large is whole: print it as it is.
        if !rounded.isFinite { rounded = value }
        // A number just under 10¹⁵ rounds to it whole at no decimals.
        if rounded == rounded.rounded(), abs(rounded) <= 1e15 {
            return String(Int64(rounded))
        }
        var text = FixedDecimal.text(rounded, fractionDigits: digits)
        while digits > 0, text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// The decimals `text` prints: four, and from 10¹¹ up no more than make 15 significant
    /// digits, the most a double keeps through text and back (with four at 3.6·10¹¹, the value
    /// scaled by 10⁴ is past what a double holds to the unit, and a printed number printed again
    /// moved in its last decimal). From 10¹⁵ a double's fraction is at most three binary places,
    /// which four decimals print exactly, so it is printed as it is.
    static func fractionDigits(_ value: Double) -> Int {
        switch abs(value) {
        case ..<1e11: 4
        case ..<1e12: 3
        case ..<1e13: 2
        case ..<1e14: 1
        case ..<1e15: 0
        default: 4
        }
    }

    /// The number a reader of `text` gets, computed without printing and parsing it (−0 as 0);
    /// nil for a value that is not finite (printed as null). The pages print a figure from this,
    /// so a run's page, eval.md and the JSON agree: a raw 9.04996 dB is 9.0500 in the JSON, and
    /// would read "9.0 dB" on one page beside "9.1 dB" on another printing the JSON's value.
    public static func printed(_ value: Double) -> Double? {
        guard value.isFinite else { return nil }
        let rounded = (value * 10_000).rounded() / 10_000
        // Below 10⁹ the double nearest k/10⁴ prints as k/10⁴ exactly (its error, half an ulp,
        // is far under the fifth decimal), and that text reads back as the same double.
        if abs(rounded) < 1e9 { return rounded == 0 ? 0 : rounded }
        return Double(text(value))
    }
}
