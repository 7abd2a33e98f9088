import AudioCore
import EchoLabJSON
import Foundation
import Metrics

/// Number formatting shared by the human-readable reports: one decimal for dB, "—" for none.
public enum ReportFormatting {
    public static func db(_ value: Double?) -> String { number(value, digits: 1, unit: " dB") }
    public static func number(_ value: Double?, digits: Int = 2, unit: String = "") -> String {
        guard let value else { return "—" }
        // The value report.json holds, then its digits: rounded once from the raw value, a page
        // could differ by one in the last digit from eval.md, which prints the JSON's.
        let text = FixedDecimal.text(ReportPrecision.printed(value) ?? value, fractionDigits: digits)
        // A value that rounds to zero is printed without a sign ("-0.0 dB" reads as a measurement).
        if text.hasPrefix("-"), text.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { return String(text.dropFirst()) + unit }
        return text + unit
    }
    public static func seconds(_ value: Double?) -> String { number(value, digits: 2, unit: " s") }
    /// A time that may be only a lower bound: "≥ 7.50 s" (a convergence whose steady state or later
    /// windows are bounds at the mic's floor: it may have settled later).
    public static func seconds(_ value: Double?, isLowerBound: Bool) -> String {
        (value != nil && isLowerBound ? "≥ " : "") + seconds(value)
    }
    /// A canceller's setting as report.json holds it (`ReportPrecision.text`): whole numbers bare
    /// (72), fractions with the digits they have (0.125) — AEC3's thresholds printed at a dB
    /// figure's 0 digits read "0" at every intensity.
    public static func setting(_ value: Double) -> String { ReportPrecision.text(value) }

    /// A dB figure as the pages show it: "≥ 28.9 dB" where the signals only bound it, and
    /// "12.3 dB (low confidence: 6 analysis frames)" where it stands on fewer frames than a figure
    /// needs (`FigureConfidence`; such figures count in no mean, win or gate).
    public static func figure(_ value: Double?, isLowerBound: Bool = false, frames: Int? = nil) -> String {
        guard value != nil else { return db(nil) }
        let text = (isLowerBound ? "≥ " : "") + db(value)
        guard let frames, FigureConfidence.isLow(frames: frames) else { return text }
        return text + " (\(FigureConfidence.mark(frames: frames)))"
    }

    /// `figure` with its frame count always said, as the near-end rows say theirs: "27.5 dB (186
    /// analysis frames)"; under 20 frames, "(low confidence: …)" as `figure` has it; a dash with
    /// its count too, "— (0 analysis frames)", as the near-end rows beside it have it.
    public static func counted(_ value: Double?, isLowerBound: Bool = false, frames: Int) -> String {
        guard value != nil else { return db(nil) + " (\(analysisFrames(frames)))" }
        let text = figure(value, isLowerBound: isLowerBound, frames: frames)
        return FigureConfidence.isLow(frames: frames) ? text : text + " (\(analysisFrames(frames)))"
    }

    /// A near-end distortion on the frames of its attenuation: marked as `figure` marks a value
    /// on few frames. Where there is none, the dash says why: the near end was lost (nothing of
    /// it left to compare the output with: the attenuation beside it is the bound), or its frame
    /// count, as the attenuation's row says it ("— (0 analysis frames)").
    public static func distortion(_ value: Double?, isLost: Bool, frames: Int) -> String {
        guard value == nil else { return figure(value, frames: frames) }
        return db(nil) + (isLost ? " (the near end was lost: none of it to measure against)" : " (\(analysisFrames(frames)))")
    }

    /// "1 analysis frame", "6 analysis frames".
    public static func analysisFrames(_ count: Int) -> String { "\(count) analysis frame\(count == 1 ? "" : "s")" }

    /// Near-end attenuation: "≥ 42.1 dB: near end lost" where nothing of the near talker was sent.
    public static func attenuation(_ value: Double?, isLost: Bool, frames: Int) -> String {
        guard isLost, value != nil else { return figure(value, frames: frames) }
        return figure(value, isLowerBound: true, frames: frames) + ": near end lost"
    }

    /// `attenuation` with its frame count said, as the near-end rows say it: "0.8 dB (186
    /// analysis frames)", "— (0 analysis frames)"; a low-confidence figure's mark already says it.
    public static func countedAttenuation(_ value: Double?, isLost: Bool, frames: Int) -> String {
        let text = attenuation(value, isLost: isLost, frames: frames)
        return value != nil && FigureConfidence.isLow(frames: frames) ? text : text + " (\(analysisFrames(frames)))"
    }
}
