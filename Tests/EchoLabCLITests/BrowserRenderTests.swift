import EchoLabTestSupport
import Foundation
import XCTest

/// The HTML reports as a person sees them: `eval.html` and a run's `report.html` rendered by a
/// real browser (headless Chromium), checked on the screenshot (not blank, the plots' colours
/// drawn) and on the DOM after the page's scripts ran (plots, legends, axes, sortable table,
/// players whose files exist). Without Chromium the test fails in CI (CI=true) and is skipped
/// elsewhere: `make test-deps` (part of `make test`) installs it.
final class BrowserRenderTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = try temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    func testEvalAndRunReportsRenderWithPlotsLegendsAxesAndPlayers() throws {
        let browser = try Chromium.find()
        let corpus = root.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        _ = try writeScenario("""
            {"name": "talk", "far_end": {"generator": "speech", "level_dbfs": -20, "seed": 4},
             "near_end": {"generator": "speech", "pitch_hz": 210, "level_dbfs": -26, "seed": 9},
             "echo_path": {"delay_ms": 25, "gain_db": -6, "synthetic_room": {"rt60_ms": 200, "seed": 1}},
             "aec": {"mode": "intensityRecommended"}, "duration_s": 4,
             "timeline": [{"at_ms": 2000, "action": "set_aec", "mode": "intensityMax"}]}
            """, named: "talk.json", in: corpus)
        _ = try writeScenario("""
            {"name": "quiet", "far_end": {"generator": "silence"},
             "near_end": {"generator": "speech", "level_dbfs": -24, "seed": 2}, "duration_s": 2}
            """, named: "quiet.json", in: corpus)
        let eval = try runEchoLab(["eval", "corpus", "--modes", "disabled,speex:intensityRecommended", "--out", "out"], in: root)
        XCTAssertEqual(eval.status, 0, eval.standardError)
        let out = root.appendingPathComponent("out")

        // eval.html: a screenshot with both modes' colours, and a DOM with everything a reader uses.
        let evalPage = out.appendingPathComponent("eval.html")
        let evalShot = try browser.screenshot(evalPage, height: 3600, into: root.appendingPathComponent("eval.png"))
        // The modes' own colours: speex's recommended intensity mid blue; disabled grey, which
        // anti-aliased text also makes, so its line is checked in the DOM below.
        let evalPixels = try browser.pixelStatistics(of: evalShot, colours: ["#3c87dd"])
        XCTAssertGreaterThan(evalPixels.inkShare, 0.03, "eval.html renders blank: \(evalPixels)")
        XCTAssertGreaterThan(evalPixels.colourPixels[0], 200, "no line/bar of speex:intensityRecommended drawn: \(evalPixels)")
        let evalDOM = try browser.dom(evalPage)
        XCTAssertEqual(evalDOM.count(of: "class=\"chart time-chart\""), 2, "one ERLE-over-time plot per item")
        XCTAssertEqual(evalDOM.count(of: "class=\"chart band-chart\""), 2, "one band plot per item")
        XCTAssertGreaterThanOrEqual(evalDOM.count(of: "class=\"legend\""), 4)
        XCTAssertGreaterThanOrEqual(evalDOM.count(of: "class=\"axis x-axis\""), 4)
        XCTAssertGreaterThanOrEqual(evalDOM.count(of: "class=\"axis y-axis\""), 4)
        XCTAssertTrue(evalDOM.contains(">time (s)</text>") && evalDOM.contains(">ERLE (dB)</text>"))
        XCTAssertTrue(evalDOM.contains("data-series=\"disabled\"") && evalDOM.contains("data-series=\"speex:intensityRecommended\""))
        XCTAssertTrue(evalDOM.contains("data-series=\"disabled\" stroke=\"#8a8a8a\" d=\"M"), "disabled's ERLE line drawn, grey")
        XCTAssertTrue(evalDOM.contains("data-sort-ready=\"true\""), "the sort script did not run")
        XCTAssertTrue(evalDOM.contains("class=\"event-label\""), "the item's timeline event is labelled on its plot")
        XCTAssertTrue(evalDOM.contains("No ERLE in this item: the far end is silent throughout"),
                      "the silent far end says there is nothing to measure, in its runs' own words")
        // Clicking "steady ERLE" sorts the runs by it, ascending then (second click) descending: the
        // page lists `disabled` first, so only a working sort puts it last.
        XCTAssertEqual(try browser.modesAfterSorting(evalPage, column: 2, clicks: 1), ["disabled", "speex:intensityRecommended"])
        XCTAssertEqual(try browser.modesAfterSorting(evalPage, column: 2, clicks: 2), ["speex:intensityRecommended", "disabled"])
        let evalAudio = evalDOM.attributes("src", of: "audio")
        XCTAssertEqual(Set(evalAudio), ["talk/disabled/mic.wav", "talk/disabled/sent.wav", "talk/speex-intensityRecommended/sent.wav",
                                        "quiet/disabled/mic.wav", "quiet/disabled/sent.wav", "quiet/speex-intensityRecommended/sent.wav"])
        for source in evalAudio {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent(source).path), "player links \(source)")
        }

        // A run's report.html: ERLE with its event, segments, activity lanes, levels and bands.
        let runFolder = out.appendingPathComponent("talk/speex-intensityRecommended")
        let runPage = runFolder.appendingPathComponent("report.html")
        let runShot = try browser.screenshot(runPage, height: 2000, into: root.appendingPathComponent("run.png"))
        let runPixels = try browser.pixelStatistics(of: runShot, colours: ["#1f77b4", "#d62728", "#2ca02c"])
        XCTAssertGreaterThan(runPixels.inkShare, 0.03, "report.html renders blank: \(runPixels)")
        XCTAssertGreaterThan(runPixels.colourPixels[0], 300, "ERLE curve / levels not drawn: \(runPixels)")
        XCTAssertGreaterThan(runPixels.colourPixels[2], 100, "third level line not drawn: \(runPixels)")
        let runDOM = try browser.dom(runPage)
        XCTAssertEqual(runDOM.count(of: "class=\"chart time-chart\""), 2, "ERLE over time and levels")
        XCTAssertEqual(runDOM.count(of: "class=\"chart band-chart\""), 2, "ERLE per octave, and the coupling loss per third octave")
        XCTAssertEqual(runDOM.count(of: "class=\"legend\""), 4)
        XCTAssertTrue(runDOM.contains("Terminal coupling loss per third octave") && runDOM.contains("TCLw (TS 26.132"), "the telephony section")
        XCTAssertTrue(runDOM.contains("class=\"event-label\"") && /* the mode replaces the timeline's intensity */ runDOM.contains(">set_aec intensityRecommended</text>"), "event labelled on the plot")
        XCTAssertTrue(runDOM.contains("class=\"segment\""), "the segment after the event is shaded")
        XCTAssertTrue(runDOM.contains(">far end talks</text>") && runDOM.contains(">near end talks</text>"), "activity lanes")
        XCTAssertTrue(runDOM.contains(">level (dBFS)</text>") && runDOM.contains(">octave band (Hz)</text>"))
        for source in runDOM.attributes("src", of: "audio") {
            XCTAssertTrue(FileManager.default.fileExists(atPath: runFolder.appendingPathComponent(source).path), "player links \(source)")
        }
        XCTAssertEqual(Set(runDOM.attributes("src", of: "audio")), ["mic.wav", "sent.wav", "reference.wav", "echo.wav"])

        // Nothing to measure is said, not drawn as 0.
        let quietDOM = try browser.dom(out.appendingPathComponent("quiet/disabled/report.html"))
        XCTAssertTrue(quietDOM.contains("class=\"empty-note\""))
        XCTAssertTrue(quietDOM.contains("No ERL or ERLE: the far end is silent throughout: nothing was played into the room"))
    }
}

/// Headless Chromium, driven through its command line.
struct Chromium {
    let executable: String

    /// `ECHOLAB_CHROMIUM`, else `chromium` / `chromium-browser` / `google-chrome` on the PATH.
    static func find() throws -> Chromium {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let chosen = environment["ECHOLAB_CHROMIUM"], !chosen.isEmpty { candidates.append(chosen) }
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            for name in ["chromium", "chromium-browser", "google-chrome"] { candidates.append("\(folder)/\(name)") }
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            return Chromium(executable: found)
        }
        let message = "headless Chromium not found (looked for ECHOLAB_CHROMIUM, chromium, chromium-browser, google-chrome on PATH): "
            + "install it with `make test-deps` or `scripts/install-deps.sh chromium`"
        // `make test` installs it (test-deps): a missing browser is a failure, never a skip.
        throw ChromiumMissing(description: message)
    }

    struct ChromiumMissing: Error, CustomStringConvertible { let description: String }
    struct Failed: Error, CustomStringConvertible { let description: String }

    /// Flags for a root user in a container with no display and no GPU; a private profile so
    /// parallel runs do not share one.
    private func run(_ arguments: [String], profile: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                             "--disable-dev-shm-usage", "--user-data-dir=\(profile.path)"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        defer { watchdog.cancel() }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failed(description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    private func profile() throws -> URL { try temporaryDirectory("chromium-profile") }

    func screenshot(_ page: URL, height: Int, into file: URL) throws -> URL {
        let profile = try profile()
        defer { try? FileManager.default.removeItem(at: profile) }
        _ = try run(["--window-size=1000,\(height)", "--screenshot=\(file.path)", page.absoluteString], profile: profile)
        guard FileManager.default.fileExists(atPath: file.path) else { throw Failed(description: "no screenshot of \(page.path)") }
        return file
    }

    /// The document after its scripts ran.
    func dom(_ page: URL) throws -> String {
        let profile = try profile()
        defer { try? FileManager.default.removeItem(at: profile) }
        return try run(["--virtual-time-budget=5000", "--dump-dom", page.absoluteString], profile: profile)
    }

    /// Loads `page` in a frame, clicks the last sortable table's header `column` `clicks` times and
    /// returns the second column's texts (the modes) of the runs with a value in that column, in
    /// the order the page then shows them.
    func modesAfterSorting(_ page: URL, column: Int, clicks: Int) throws -> [String] {
        let probe = page.deletingLastPathComponent().appendingPathComponent("sort-probe-\(column)-\(clicks).html")
        try Data("""
            <!doctype html><html><body><pre id="order">pending</pre>
            <iframe id="page" src="\(page.lastPathComponent)" width="1000" height="800"></iframe>
            <script>
            document.getElementById("page").addEventListener("load", function () {
              var tables = this.contentDocument.querySelectorAll("table.sortable[data-sort-ready]"), table = tables[tables.length - 1];
              var header = table.querySelector("th[data-column='\(column)']");
              for (var i = 0; i < \(clicks); i++) header.click();
              var order = Array.prototype.slice.call(table.tBodies[0].rows)
                .filter(function (row) { return row.cells[\(column)].dataset.value !== undefined; })
                .map(function (row) { return row.cells[1].textContent; });
              document.getElementById("order").textContent = JSON.stringify(order);
            });
            </script></body></html>
            """.utf8).write(to: probe)
        defer { try? FileManager.default.removeItem(at: probe) }
        let profile = try profile()
        defer { try? FileManager.default.removeItem(at: profile) }
        let dom = try run(["--allow-file-access-from-files", "--virtual-time-budget=5000", "--dump-dom", probe.absoluteString], profile: profile)
        guard let start = dom.range(of: "<pre id=\"order\">"), let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex),
              let order = try? JSONSerialization.jsonObject(with: Data(dom[start.upperBound..<end.lowerBound].utf8)) as? [String] else {
            throw Failed(description: "the sort probe of \(page.path) did not run: \(dom.prefix(300))")
        }
        return order
    }

    /// Loads `page` in a frame `width` px wide and runs `script` on it once loaded: a function body
    /// given `doc` (the page's document) and `view` (its window) that returns a JSON-able value,
    /// returned here as JSON text.
    func evaluate(_ page: URL, width: Int, height: Int = 900, script: String) throws -> String {
        let probe = page.deletingLastPathComponent().appendingPathComponent("probe-\(UUID().uuidString).html")
        try Data("""
            <!doctype html><html><body style="margin:0"><pre id="result">pending</pre>
            <iframe id="page" src="\(page.lastPathComponent)" width="\(width)" height="\(height)" style="border:0"></iframe>
            <script>
            document.getElementById("page").addEventListener("load", function () {
              var doc = this.contentDocument, view = this.contentWindow, out;
              try { out = JSON.stringify((function (doc, view) { \(script) })(doc, view)); } catch (e) { out = "error: " + e; }
              document.getElementById("result").textContent = out;
            });
            </script></body></html>
            """.utf8).write(to: probe)
        defer { try? FileManager.default.removeItem(at: probe) }
        let profile = try profile()
        defer { try? FileManager.default.removeItem(at: profile) }
        let dom = try run(["--allow-file-access-from-files", "--virtual-time-budget=5000", "--window-size=\(width + 40),\(height + 100)",
                           "--dump-dom", probe.absoluteString], profile: profile)
        guard let start = dom.range(of: "<pre id=\"result\">"), let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex) else {
            throw Failed(description: "the probe of \(page.path) did not run: \(dom.prefix(300))")
        }
        return String(dom[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    struct PixelStatistics: CustomStringConvertible {
        var pixels: Int
        /// Share of pixels that are not (near) white.
        var inkShare: Double
        /// Pixels within ±24 per channel of each colour asked for.
        var colourPixels: [Int]
        var description: String { "\(pixels) pixels, ink \(String(format: "%.3f", inkShare)), colours \(colourPixels)" }
    }

    /// Counts pixels of a PNG in the browser itself: the image goes into a page as a data URL
    /// (so the canvas may read it), a script counts, and the DOM carries the counts out.
    func pixelStatistics(of png: URL, colours: [String]) throws -> PixelStatistics {
        let base64 = try Data(contentsOf: png).base64EncodedString()
        let targets = colours.map { hex -> String in
            let value = Int(hex.dropFirst(), radix: 16)!
            return "[\(value >> 16),\((value >> 8) & 255),\(value & 255)]"
        }.joined(separator: ",")
        let page = png.deletingPathExtension().appendingPathExtension("stats.html")
        try Data("""
            <!doctype html><html><body><img id="shot" src="data:image/png;base64,\(base64)"><pre id="stats">pending</pre>
            <script>
            window.addEventListener("load", function () {
              var img = document.getElementById("shot"), canvas = document.createElement("canvas");
              canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
              var context = canvas.getContext("2d"); context.drawImage(img, 0, 0);
              var data = context.getImageData(0, 0, canvas.width, canvas.height).data, targets = [\(targets)];
              var ink = 0, counts = targets.map(function () { return 0; });
              for (var i = 0; i < data.length; i += 4) {
                var r = data[i], g = data[i + 1], b = data[i + 2];
                if (r < 235 || g < 235 || b < 235) ink++;
                for (var t = 0; t < targets.length; t++) {
                  if (Math.abs(r - targets[t][0]) <= 24 && Math.abs(g - targets[t][1]) <= 24 && Math.abs(b - targets[t][2]) <= 24) counts[t]++;
                }
              }
              document.getElementById("stats").textContent = JSON.stringify({pixels: data.length / 4, ink: ink, counts: counts});
            });
            </script></body></html>
            """.utf8).write(to: page)
        let dom = try dom(page)
        guard let start = dom.range(of: "<pre id=\"stats\">"), let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex),
              let json = try JSONSerialization.jsonObject(with: Data(dom[start.upperBound..<end.lowerBound].utf8)) as? [String: Any],
              let pixels = json["pixels"] as? Int, let ink = json["ink"] as? Int, let counts = json["counts"] as? [Int], pixels > 0 else {
            throw Failed(description: "could not measure \(png.path): \(dom.prefix(300))")
        }
        return PixelStatistics(pixels: pixels, inkShare: Double(ink) / Double(pixels), colourPixels: counts)
    }
}

extension String {
    func count(of needle: String) -> Int { components(separatedBy: needle).count - 1 }

    /// The values of `attribute` on every `<element …>` tag (enough for the pages EchoLab writes).
    func attributes(_ attribute: String, of element: String) -> [String] {
        components(separatedBy: "<\(element) ").dropFirst().compactMap { tag in
            let head = tag.prefix { $0 != ">" }
            guard let start = head.range(of: "\(attribute)=\"") else { return nil }
            return String(head[start.upperBound...].prefix { $0 != "\"" })
        }
    }
}
