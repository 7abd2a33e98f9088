import EchoLabTestSupport
import Foundation
import XCTest

/// "Best" is judged on both axes of the trade-off, steady ERLE and near-end attenuation in double
/// talk: the modes no other mode beats on both are named first, bolded per item, counted as wins
/// and ringed on eval.html's plot — checked here against a front computed independently from
/// eval.json's values. And eval.html reads at 1280 px in a real browser: nothing wider than the
/// window outside a scrolling box, the Modes table whole, health cells on one line, event labels
/// apart, one hue per backend.
final class BestOnBothAxesTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws { root = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    /// The front as the issue defines it, computed here without EchoLab's code: a mode (not
    /// `disabled`) is on it when no other has at least its ERLE and at most its attenuation and
    /// is better on one; an axis counts where some mode has a value; a mode lacking one is off.
    /// Values are compared as printed (one decimal, printf's rounding); a mean difference counts
    /// from a tenth of a dB.
    private func printed(_ value: Double?) -> Double { Double(String(format: "%.1f", value ?? 0))! }
    private func counts(_ difference: Double) -> Bool { (abs(difference) * 10_000).rounded() >= 1_000 }

    /// `nothingConverged`: a measured steady ERLE of 6 dB or less, which the run's own report
    /// calls "nothing converged": no canceller there, off the front where ERLE counts.
    private func front(_ points: [(mode: String, erle: Double?, nearEnd: Double?, nothingConverged: Bool)]) -> Set<String>? {
        let candidates = points.filter { $0.mode != "disabled" }
        let useERLE = candidates.contains { $0.erle != nil }, useNearEnd = candidates.contains { $0.nearEnd != nil }
        let comparable = candidates.filter { (!useERLE || ($0.erle != nil && !$0.nothingConverged)) && (!useNearEnd || $0.nearEnd != nil) }
        guard comparable.count >= 2 else { return nil }
        func better(_ a: Double?, _ b: Double?) -> Bool { printed(a) > printed(b) }
        return Set(comparable.filter { p in
            !comparable.contains { o in
                !better(p.erle, o.erle) && !better(o.nearEnd, p.nearEnd) && (better(o.erle, p.erle) || better(p.nearEnd, o.nearEnd))
            }
        }.map(\.mode))
    }

    /// The corpus's front, computed here: for two modes, the mean over the items of each axis's
    /// difference where its sign is certain (a lower bound over a measured value it exceeds; 0
    /// where a bound leaves it unknown), counted from a tenth of a dB; A beats B where it is at
    /// least as good on both and better on one. `erle[item]`: (value, is a bound) per mode.
    private func corpusFront(erle: [[String: (Double, Bool)]], nearEnd: [[String: Double]], modes: [String]) -> Set<String> {
        func certain(_ a: (Double, Bool), _ b: (Double, Bool)) -> Double {
            let (pa, pb) = (printed(a.0), printed(b.0))
            return (!a.1 && !b.1) || (a.1 && !b.1 && pa > pb) || (b.1 && !a.1 && pb > pa) ? pa - pb : 0
        }
        func mean(_ values: [Double]) -> Double {
            let value = values.reduce(0, +) / Double(values.count)
            return counts(value) ? value : 0
        }
        func beats(_ a: String, _ b: String) -> Bool {
            let e = mean(erle.map { certain($0[a]!, $0[b]!) }), n = mean(nearEnd.map { printed($0[a]!) - printed($0[b]!) })
            return e >= 0 && n <= 0 && (e > 0 || n < 0)
        }
        return Set(modes.filter { m in !modes.contains { beats($0, m) } })
    }

    /// The near end's attenuation where the near talker was kept: none where it was lost (then
    /// the value is only a bound, and the mode is the worst case).
    private func keptNearEnd(_ metrics: [String: Any]?) -> Double? {
        let nearEnd = metrics?["near_end"] as? [String: Any]
        return nearEnd?["attenuation_is_lower_bound"] as? Bool == true ? nil : nearEnd?["attenuation_db"] as? Double
    }

    func testTheBestModesAreTheFrontOnBothAxesAndThePageReadsAt1280() throws {
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        // Double talk in a room, with four events in one second (their labels would stack); and a
        // far end alone (no near talker: judged on ERLE only).
        _ = try writeScenario("""
            {"name": "talk", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "near_end": {"generator": "speech", "pitch_hz": 210, "level_dbfs": -26, "seed": 9},
             "echo_path": {"delay_ms": 25, "gain_db": -6, "synthetic_room": {"rt60_ms": 200, "seed": 1}}, "duration_s": 6,
             "timeline": [{"at_ms": 3000, "action": "mute"}, {"at_ms": 3200, "action": "unmute"},
                          {"at_ms": 3400, "action": "mute"}, {"at_ms": 3600, "action": "unmute"}]}
            """, named: "talk.json", in: corpus)
        _ = try writeScenario("""
            {"name": "far", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 5},
             "echo_path": {"delay_ms": 40, "gain_db": -10}, "duration_s": 5}
            """, named: "far.json", in: corpus)
        let inputs = try snapshot(corpus)
        // Two jobs: the 42 runs take half the time on two cores, and give the same bytes.
        let eval = try runEchoLab(["eval", "corpus", "--modes", "all", "--no-taps", "--out", "out", "--jobs", "2"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        XCTAssertEqual(try snapshot(corpus), inputs, "inputs untouched")
        let out = root.appendingPathComponent("out")
        let json = try loadJSON(out.appendingPathComponent("eval.json").path)

        // Per item: the front from eval.json's own values; wins count membership.
        var wins: [String: Int] = [:]
        var fronts: [String: Set<String>] = [:]
        for item in json["items"] as! [[String: Any]] {
            let points = (item["results"] as! [[String: Any]]).map { result -> (String, Double?, Double?, Bool) in
                let metrics = result["metrics"] as? [String: Any]
                let steady = metrics?["erle_steady_db"] as? Double, isBound = metrics?["erle_steady_is_lower_bound"] as? Bool == true
                return (result["mode"] as! String, steady, keptNearEnd(metrics), steady.map { $0 <= 6 && !isBound } ?? false)
            }
            let itemFront = try XCTUnwrap(front(points))
            fronts[item["name"] as! String] = itemFront
            for mode in itemFront { wins[mode, default: 0] += 1 }
        }
        XCTAssertEqual(fronts.count, 2)
        // The far-end-only item is judged on ERLE alone: its front is the highest steady ERLE.
        let farERLE = ((json["items"] as! [[String: Any]]).first { $0["name"] as? String == "far" }!["results"] as! [[String: Any]])
            .compactMap { r -> (String, Double)? in ((r["metrics"] as? [String: Any])?["erle_steady_db"] as? Double).map { (r["mode"] as! String, $0) } }
        let highest = farERLE.map(\.1).max()!
        XCTAssertEqual(fronts["far"], Set(farERLE.filter { $0.1 == highest && $0.0 != "disabled" }.map(\.0)))
        // On the double-talk item the front holds more than the highest ERLE: a trade-off.
        XCTAssertGreaterThan(fronts["talk"]!.count, 1, "\(fronts)")
        let summaries = json["mode_summary"] as! [[String: Any]]
        for summary in summaries {
            XCTAssertEqual(summary["wins"] as? Int, wins[summary["mode"] as! String] ?? 0, "\(summary["mode"]!)")
        }
        XCTAssertEqual(summaries.first { $0["mode"] as? String == "disabled" }?["wins"] as? Int, 0)
        // The corpus's front, each axis over the items where every mode has its value on it:
        // steady ERLE over both items, the near end over the double-talk one (the far-end-only
        // item has no near-end value, and still judges echo removal).
        let results = { (name: String) in (json["items"] as! [[String: Any]]).first { $0["name"] as? String == name }!["results"] as! [[String: Any]] }
        let talk = results("talk"), far = results("far")
        let means = talk.map { r -> (String, Double?, Double?) in
            let metrics = r["metrics"] as? [String: Any]
            return (r["mode"] as! String, metrics?["erle_steady_db"] as? Double, keptNearEnd(metrics))
        }
        // Modes that removed the near talker entirely (its attenuation only a bound) are the
        // worst case, off the front; the others are the plot's points.
        let lost = talk.filter { r in
            let nearEnd = (r["metrics"] as? [String: Any])?["near_end"] as? [String: Any]
            return nearEnd?["attenuation_is_lower_bound"] as? Bool == true
        }.map { $0["mode"] as! String }
        let paired = means.filter { $0.0 != "disabled" && $0.1 != nil && $0.2 != nil }
        XCTAssertEqual(paired.count + lost.count, 20)
        func erle(_ runs: [[String: Any]]) -> [String: (Double, Bool)] {
            Dictionary(uniqueKeysWithValues: runs.compactMap { r in
                let metrics = r["metrics"] as? [String: Any]
                return (metrics?["erle_steady_db"] as? Double).map { (r["mode"] as! String, ($0, metrics?["erle_steady_is_lower_bound"] as? Bool == true)) }
            })
        }
        let corpusFront = corpusFront(erle: [erle(talk), erle(far)],
                                      nearEnd: [Dictionary(uniqueKeysWithValues: paired.map { ($0.0, $0.2!) })], modes: paired.map(\.0))
        let best = try XCTUnwrap(json["best_modes"] as? [String: Any])
        XCTAssertEqual(best["judged_on"] as? String, "both")
        XCTAssertEqual(best["compared_items"] as? Int, 2)
        XCTAssertEqual(best["erle_compared_items"] as? Int, 2)
        XCTAssertEqual(best["near_end_compared_items"] as? Int, 1)
        // Each scenario as written in its own mode: no two modes met on one item, no corpus verdict.
        let asWritten = try runEchoLab(["eval", "corpus", "--no-taps", "--out", "written"], in: root)
        XCTAssertEqual(asWritten.status, 0, asWritten.standardError)
        XCTAssertTrue(try loadJSON(root.appendingPathComponent("written/eval.json").path)["best_modes"] is NSNull)
        XCTAssertEqual(best["items"] as? Int, 2)
        let bestModes = best["modes"] as! [String]
        XCTAssertEqual(Set(bestModes), corpusFront)
        XCTAssertTrue(Set(lost).isDisjoint(with: bestModes), "\(lost) lost the near end")

        // eval.md names them first, and bolds each item's front.
        let markdown = try String(contentsOf: out.appendingPathComponent("eval.md"), encoding: .utf8)
        let modes = (json["modes"] as! [String])
        let firstParagraph = markdown.components(separatedBy: "\n\n")[1]
        XCTAssertEqual(firstParagraph, "**Best on both axes:** " + bestModes.map { "`\($0)`" }.joined(separator: ", ")
                       + " — no other mode removes at least as much echo (steady ERLE) and keeps at least as much of the near talker in double talk, "
                       + "and does better at one (mode against mode, mean differences: steady ERLE over the 2 of 2 items where every mode has one, "
                       + "the near end over the 1 item where every mode has a figure for it); ★ below.")
        for mode in modes {
            XCTAssertEqual(markdown.contains("| `\(mode)` ★ |"), bestModes.contains(mode), mode)
        }
        for row in markdown.split(separator: "\n") where row.hasPrefix("| talk |") || row.hasPrefix("| far |") {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let name = String(cells.first!)
            // The item, its echo path, then a cell per mode.
            let bold = Set(zip(modes, cells.dropFirst(2)).filter { $0.1.hasPrefix("[**") }.map(\.0))
            XCTAssertEqual(bold, fronts[name], "\(name): \(row)")
        }
        XCTAssertTrue(markdown.contains("Each cell: steady ERLE / near-end attenuation in double talk, in dB"), markdown)

        // eval.html at 1280 px, in Chromium.
        let browser = try Chromium.find()
        let layout = try browser.evaluate(out.appendingPathComponent("eval.html"), width: 1280, script: """
            var wide = [];
            doc.querySelectorAll("table, svg.chart, p, pre, h1, h2, h3").forEach(function (e) {
              var box = e.closest("table"), inside = box && box !== e;
              if (!inside && e.getBoundingClientRect().right > view.innerWidth + 0.5) wide.push(e.tagName + "." + (e.getAttribute("class") || ""));
            });
            var modes = doc.querySelector("#modes").nextElementSibling;
            while (modes.tagName !== "TABLE") modes = modes.nextElementSibling;
            var rows = Array.prototype.slice.call(doc.querySelectorAll("table.sortable tbody tr"));
            var oneLine = Math.min.apply(null, rows.map(function (r) { return r.cells[0].getBoundingClientRect().height; }));
            var health = rows.map(function (r) { return r.cells[r.cells.length - 1].getBoundingClientRect().height; });
            var overlaps = [];
            doc.querySelectorAll("svg.time-chart").forEach(function (svg) {
              var boxes = Array.prototype.slice.call(svg.querySelectorAll("text.event-label")).map(function (t) { return t.getBBox(); });
              for (var i = 0; i < boxes.length; i++) for (var j = i + 1; j < boxes.length; j++) {
                var a = boxes[i], b = boxes[j];
                if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) overlaps.push([i, j]);
              }
            });
            var labels = doc.querySelectorAll("svg.time-chart text.event-label").length;
            var strokes = {};
            doc.querySelectorAll("svg.time-chart path.series[data-series]").forEach(function (p) { strokes[p.dataset.series] = p.getAttribute("stroke"); });
            return {pageWidth: doc.documentElement.scrollWidth, window: view.innerWidth, wide: wide,
                    modesTable: [modes.scrollWidth, modes.clientWidth], oneLine: oneLine, tallestHealth: Math.max.apply(null, health),
                    overlaps: overlaps, labels: labels, dots: doc.querySelectorAll("svg.scatter-chart circle.dot").length,
                    rings: doc.querySelectorAll("svg.scatter-chart circle.ring").length, strokes: strokes};
            """)
        let page = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(layout.utf8)) as? [String: Any], layout)
        XCTAssertEqual(page["window"] as? Int, 1280, layout)
        XCTAssertLessThanOrEqual(page["pageWidth"] as! Int, 1280, "the page scrolls sideways: \(layout)")
        XCTAssertEqual(page["wide"] as? [String], [], "wider than the window outside a scrolling box: \(layout)")
        let table = page["modesTable"] as! [Int]
        XCTAssertLessThanOrEqual(table[0], table[1], "the Modes table is clipped: \(layout)")
        XCTAssertLessThan(page["tallestHealth"] as! Double, 1.5 * (page["oneLine"] as! Double), "a health cell wraps: \(layout)")
        XCTAssertEqual(page["labels"] as? Int, 4, "each event labelled: \(layout)")
        XCTAssertEqual((page["overlaps"] as? [Any])?.count, 0, "event labels overlap: \(layout)")
        // Every mode with both means is a point; the best are ringed (and the legend's ring).
        XCTAssertEqual(page["dots"] as? Int, paired.count, layout)
        XCTAssertEqual(page["rings"] as? Int, bestModes.count + 1, layout)
        // One hue per backend, darker as the intensity grows.
        let strokes = page["strokes"] as! [String: String]
        for backend in ["speex", "webrtc", "webrtc-mobile", "aec3"] {
            let hsl = try ["intensityMin", "intensityRecommended", "intensityAdaptive", "intensityMax"].map { intensity in
                try XCTUnwrap(strokes["\(backend):\(intensity)"].map(Self.hueAndLightness), "\(backend):\(intensity) in \(strokes)")
            }
            XCTAssertLessThan(hsl.map(\.hue).max()! - hsl.map(\.hue).min()!, 3, "\(backend): \(hsl)")
            XCTAssertEqual(hsl.map(\.lightness), hsl.map(\.lightness).sorted(by: >), "\(backend): \(hsl)")
        }
        let hues = ["speex", "webrtc", "webrtc-mobile", "aec3"].map { Self.hueAndLightness(strokes["\($0):intensityMin"]!).hue }
        XCTAssertGreaterThan(zip(hues, hues.dropFirst() + hues.prefix(1)).map { min(abs($0 - $1), 360 - abs($0 - $1)) }.min()!, 60, "\(hues)")
    }

    /// `#rrggbb` → hue (degrees) and lightness (0…1).
    static func hueAndLightness(_ hex: String) -> (hue: Double, lightness: Double) {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        let r = Double((value >> 16) & 255) / 255, g = Double((value >> 8) & 255) / 255, b = Double(value & 255) / 255
        let high = max(r, g, b), low = min(r, g, b), chroma = high - low
        var hue = 0.0
        if chroma > 0 {
            if high == r { hue = 60 * ((g - b) / chroma).truncatingRemainder(dividingBy: 6) }
            else if high == g { hue = 60 * ((b - r) / chroma + 2) }
            else { hue = 60 * ((r - g) / chroma + 4) }
        }
        return (hue < 0 ? hue + 360 : hue, (high + low) / 2)
    }
}
