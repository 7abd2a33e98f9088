import Evaluation
import Foundation
import Metrics
import Simulation

/// `report.md` and `report.html` of one run, built once as a `ReportDocument`, in the order an
/// audio engineer asks: did the echo go away (ERLE over time, with the events, the segments and
/// who was talking under it), at what levels, in which bands, what it sounds like, what broke in
/// the pipeline, which rule the app breaks.
public enum RunReportDocument {
    public static func make(_ report: RunReport) -> ReportDocument {
        typealias F = ReportFormatting
        let m = report.metrics
        var blocks: [ReportDocument.Block] = []
        // A plugin's library line already names it, its file's digest and its options: not said twice.
        let saidByLibrary: Set<String> = report.aecSettings["library"] == nil ? [] : ["plugin_name", "plugin_sha256", "plugin_options"]
        let settings = report.aecSettings.keys.sorted().filter { !saidByLibrary.contains($0) }.map { key -> String in
            switch report.aecSettings[key]! {
            case .number(let value): "\(key) \(F.setting(value))"
            case .text(let value): "\(key) \(value)"
            case .flag(let value): "\(key) \(value ? "on" : "off")"
            }
        }
        // A call app code drove by hand (`CallMeter`) has no scenario file: it is named instead.
        let source: [ReportDocument.Span] = report.scenarioFile.isEmpty ? [.text("Call "), .code(report.scenarioName)]
            : [.text("Scenario "), .code(report.scenarioFile)]
        blocks.append(.paragraph(source + [.text(" · \(F.number(report.durationSeconds, digits: 2)) s at \(report.sampleRate) Hz")]
                                 + Self.echoPathSpans(report) + [.text(" · AEC "),
                                  .code(report.aecMode), .text(" (\(([report.aecBackend] + settings).joined(separator: ", "))) · NS "),
                                  .code(report.noiseSuppressor), .text(" · AGC "), .code(report.autoGainControl)]))

        blocks.append(.heading("Echo", level: 2, id: "echo"))
        // The delay is estimated over the call's first seconds of far-end speech, and again after
        // each route change (Bluetooth adds 100 ms and more) and each switch between the device
        // mic and a pass-through of it (its buffering, two timer periods and a tick, puts the
        // canceller's input later), each segment's then its own.
        let changesRoute = report.hardware.map { Set($0.segments.map(\.route)).count > 1 } ?? false
        let delayPerSegment = report.segments.contains { $0.metrics.hasOwnDelay }
        let delayCaveat = delayPerSegment ? " (the first that has one; searched again after each change of route, input or formats and each switch to or from a pass-through mic: each segment's below)"
            : changesRoute ? " (estimated once: the first route's)" : ""
        blocks.append(.table(.init(header: ["metric", "value"], rows: [
            [.init(Self.erlLabel(routes: m.erlDB == nil ? [] : report.hardware?.segments.map(\.route) ?? [])), .init(F.counted(m.erlDB, isLowerBound: m.erlIsLowerBound, frames: m.erlFrames))],
            [.init("ERLE (whole call)"), .init(F.counted(m.erleDB, isLowerBound: m.erleIsLowerBound, frames: m.gate.singleTalkFrames))],
            [.init("ERLE steady state"), .init(F.counted(m.erleSteadyDB, isLowerBound: m.erleSteadyIsLowerBound, frames: m.erleSteadyFrames))],
            // A switch of device, route or mode restarts a canceller's convergence: the call's, counted
            // from its start as sent, can read 8.5 s where its segments settle in 1 and 2 s.
            [.init(report.segments.count > 1 ? "convergence (the whole call's, from its start; each segment's under Segments)" : "convergence"),
             .init(F.seconds(m.convergenceSeconds, isLowerBound: m.convergenceIsLowerBound)
                   + (report.convergenceUnmeasuredReason.map { " (\($0))" } ?? "")
                   + (m.convergenceSeconds != nil && m.convergenceIsLowerBound ? Self.convergenceAtFloorNote : ""))],
            [.init("bulk delay reference→mic" + delayCaveat),
             .init(F.number(m.delayMilliseconds, digits: 2, unit: " ms"))],
            [.init("activity gate"), .init("\(m.gate.method.rawValue): \(m.gate.singleTalkFrames) single-talk of \(m.gate.frames) analysis frames, \(m.gate.doubleTalkFrames) double-talk")],
        ] + RunReportDocument.nearEndRows(m.nearEnd))))
        if let reason = report.echoUnmeasuredReason {
            blocks.append(.note([.text("\(m.erlDB == nil ? "No ERL or ERLE" : "No ERLE"): \(reason).")]))
        } else if let reason = report.delayUnmeasuredReason {
            blocks.append(.note([.text(Self.noDelayNote(reason))]))
        }
        if let note = Self.silentReferenceNote(report) { blocks.append(.note([.text(note)])) }
        if let note = boundNote(m) { blocks.append(.paragraph([.text(note)])) }
        blocks.append(.timeChart(erleChart(report)))
        if !report.levels.isEmpty {
            // A call past an hour widens its windows (`LevelMeter.maximumWindows`).
            let levels = report.levels, step = levels.count >= 2 ? levels[1].timeSeconds - levels[0].timeSeconds : 0.5
            blocks.append(.paragraph([.text("Levels per \(ReportFormatting.number(step, digits: step < 1 ? 1 : 0)) s window. The gap between the far end and the echo at the mic is the ERL; what is sent while only the far end talks is the residual echo.")]))
            blocks.append(.timeChart(levelChart(report)))
        }
        blocks.append(.bandChart(.init(title: "ERLE per octave band", yLabel: "ERLE (dB)",
                                       bands: m.erleBands.map { ($0.lowHz, $0.highHz) },
                                       series: [.init(name: "ERLE", values: m.erleBands.map(\.erleDB), lowerBounds: m.erleBands.map(\.isLowerBound))],
                                       emptyNote: RunReportDocument.noERLENote(singleTalkFrames: m.gate.singleTalkFrames, what: "band"))))
        if let note = Self.unmeasuredBandsNote(m.erleBands) { blocks.append(.paragraph([.text(note)])) }
        blocks += TelephonyBlocks.make(m.telephony)
        blocks += ScoreBlocks.run(report.scores)

        blocks.append(.heading("Listen", level: 2, id: "listen"))
        let clips = audioClips(report.taps)
        if clips.isEmpty {
            blocks.append(.note([.text("No audio taps were written (--no-taps): run without it to get mic.wav, sent.wav and the others beside this report.")]))
        } else {
            blocks.append(.audio(clips))
        }

        if !report.segments.isEmpty {
            blocks.append(.heading("Segments", level: 2, id: "segments"))
            // A segment's ERL and ERLE come from its far-end single-talk frames alone: the count
            // says how much to trust them (a 30 ms segment may rest on one frame).
            blocks.append(.table(.init(header: ["from", "to", "opened by", "single-talk analysis frames", "ERL", "ERLE", "steady", "(re)convergence", "clicks at start"]
                                                + (delayPerSegment ? ["bulk delay"] : []),
                                       rows: report.segments.map { s in
                [.init(F.seconds(s.startSeconds)), .init(F.seconds(s.endSeconds)), .init(s.events.isEmpty ? "start" : s.events.joined(separator: ", ")),
                 .init("\(s.metrics.singleTalkFrames)"),
                 .init(F.figure(s.metrics.erlDB, isLowerBound: s.metrics.erlIsLowerBound, frames: s.metrics.erlFrames)),
                 .init(F.figure(s.metrics.erleDB, isLowerBound: s.metrics.erleIsLowerBound, frames: s.metrics.singleTalkFrames)),
                 .init(F.figure(s.metrics.erleSteadyDB, isLowerBound: s.metrics.erleSteadyIsLowerBound, frames: s.metrics.erleSteadyFrames)),
                 .init(F.seconds(s.reconvergenceSeconds, isLowerBound: s.reconvergenceIsLowerBound)
                       + (s.reconvergenceIsLowerBound ? " (a bound at the mic's floor from then on: it may have settled later)" : "")
                       + (s.reconvergenceUnmeasuredReason.map { " (\($0))" } ?? "")), .init("\(s.clicksAtStart)")]
                    + (delayPerSegment ? [.init(F.number(s.metrics.delayMilliseconds, digits: 2, unit: " ms"))] : [])
            })))
            // The call's own reason, said above, is not repeated for each of its segments.
            let unmeasured = report.segments.compactMap { s in
                s.echoUnmeasuredReason.flatMap { $0 == report.echoUnmeasuredReason ? nil : $0 }.map { [ReportDocument.Span.text("\(F.seconds(s.startSeconds))–\(F.seconds(s.endSeconds)), no ERL or ERLE: \($0).")] }
            } + report.segments.compactMap { s in
                s.echoLeakUnjudgedReason.map { [ReportDocument.Span.text("\(F.seconds(s.startSeconds)), the echo leak is not judged: \($0).")] }
            }
            if !unmeasured.isEmpty { blocks.append(.list(unmeasured)) }
        }

        blocks += hardwareBlocks(report)

        blocks.append(.heading("Findings", level: 2, id: "findings"))
        if !report.findings.contains(where: { $0.kind == .lint }) {
            // Said first, it read as "all clear" above a telephony requirement the call missed.
            blocks.append(.paragraph([.text("The AEC rules of the custom audio device guide hold"
                + (report.findings.isEmpty ? "." : "; what follows is not an AEC rule's finding.")) ]))
        }
        if !report.findings.isEmpty {
            blocks.append(.list(report.findings.map { f in
                [.strong(f.rule), .text((f.kind == .requirement ? " (a telephony requirement, not an AEC rule)"
                                         : f.kind == .canceller ? " (the canceller's, not the app's setup)" : "")
                    + " \(F.seconds(f.atSeconds))–\(F.seconds(f.untilSeconds)): \(f.message). Measured: \(f.consequence).")]
            }))
        }

        let p = report.pipeline, c = p.clippedSamples
        blocks.append(.heading("Pipeline", level: 2, id: "pipeline"))
        blocks.append(.paragraph([.text("\(count(p.ticks, "tick")) of 10 ms · \(count(p.underruns, "underrun")) · \(count(p.overruns, "overrun")) · "
            + "\(count(report.sentClicks, "click")) and \(count(report.sentGaps, "gap")) in the sent audio · "
            + "\(count(p.ignoredFrames, "frame")) pushed to unselected devices · "
            + "clipped at full scale: playout \(c.playout), loudspeaker \(c.loudspeaker), mic \(c.mic), capture \(c.capture), reference \(c.reference) samples · "
            + count(p.cancellerResets, "canceller reset"))]))
        if let glitches = glitchTimes(report) { blocks.append(.paragraph([.text(glitches)])) }
        blocks.append(.table(.init(header: ["buffer", "written", "read", "dropped", "buffered", "underruns", "overruns", "priming", "rejected", "conserved"],
                                   rows: [("uplink (custom mic)", p.uplink), ("playout (custom speaker)", p.playout),
                                          ("user AEC reference", p.userReference), ("app loudspeaker", p.loudspeaker)].map { name, c in
            [.init(name)] + [c.written, c.read, c.dropped, c.buffered, c.underruns, c.overruns, c.primingSamples, c.rejectedFrames].map { .init("\($0)") }
                + [c.isConserved ? .init("yes") : .init([.strong("no")])]
        })))
        blocks += adaptiveBlocks(report.adaptiveDecisions, sampleRate: report.sampleRate)
        if !report.events.isEmpty {
            blocks.append(.heading("Events", level: 2, id: "events"))
            blocks.append(.list(report.events.map { e in
                [.text("\(F.seconds(Double(e.frame) / Double(report.sampleRate))) \(e.kind): \(e.detail)")]
            }))
        }
        blocks.append(.paragraph([.text("Performance: \(F.number(report.wallSeconds, digits: 3)) s wall, \(F.number(report.realtimeFactor, digits: 0))× real time.")]))
        return ReportDocument(title: "EchoLab run: \(report.scenarioName)", blocks: blocks)
    }

    /// The ERL row's label: a call that changed route pools its routes' echo into one ratio, which
    /// is neither route's (a receiver's 30.6 dB and a speaker's 9.7 read "ERL 13.7 dB"), and says so
    /// (`routes`: the call's, empty where there is no ERL to say it of).
    static func erlLabel(routes: [String]) -> String {
        var distinct: [String] = []
        for route in routes where !distinct.contains(route) { distinct.append(route) }
        guard distinct.count > 1 else { return "ERL" }
        return "ERL (pooled over the routes \(distinct.joined(separator: ", ")): each segment's under Segments)"
    }

    /// Beside a convergence that is a lower bound: why it is one.
    static let convergenceAtFloorNote = " (a lower bound: its steady ERLE, or a window from then on, is a bound at the mic's floor, "
        + "so it may have settled later)"

    /// An octave band as the pages name it: "8000–16000 Hz".
    static func bandName(_ band: BandERLE) -> String {
        "\(ReportFormatting.number(band.lowHz, digits: 0))–\(ReportFormatting.number(band.highHz, digits: 0)) Hz"
    }

    /// Why a band of the chart has no ERLE ("8000–16000 Hz: no far-end content …"), where others
    /// have one (with none, the chart's empty note says it): a "—" alone reads as a failure to
    /// measure, not as a band the far end never reaches.
    static func unmeasuredBandsNote(_ bands: [BandERLE]) -> String? {
        guard bands.contains(where: { $0.erleDB != nil }) else { return nil }
        let unmeasured = bands.compactMap { band in
            band.unmeasuredReason.map { "\(bandName(band)): \($0)" }
        }
        return unmeasured.isEmpty ? nil : "No ERLE in " + unmeasured.joined(separator: "; ") + "."
    }

    /// Why an ERLE chart is empty: no far-end single talk, or an echo under the mic's floor in it.
    /// `what`: what has nothing to measure ("ERLE", "band"); `place`: where (" in this item").
    static func noERLENote(singleTalkFrames: Int, what: String = "ERLE", place: String = "") -> String {
        singleTalkFrames > 0 ? "The echo at the mic stays under its floor\(place): no \(what) to measure"
            : "No far-end single talk\(place): no \(what) to measure"
    }

    static func erleChart(_ report: RunReport) -> ReportDocument.TimeChart {
        var chart = erleChart(report.metrics, durationSeconds: report.durationSeconds, activity: report.activity, namesWindows: true)
        chart.markers = timelineMarkers(report)
        chart.shading = report.segments.map { .init(start: $0.startSeconds, end: $0.endSeconds,
                                                   label: $0.events.isEmpty ? "start" : $0.events.joined(separator: ", ")) }
        return chart
    }

    /// The ERLE series as a call's or a recording's page plots it: each window at its centre,
    /// bounds and thin windows marked (a bound is no value), the steady state dashed to read the
    /// windows against, the talk the gate heard in lanes under it. `namesWindows`: the title
    /// gives the windows' length (a call's, whose long runs widen them).
    static func erleChart(_ metrics: EchoMetrics, durationSeconds: Double, activity: [ActivityWindow],
                          namesWindows: Bool) -> ReportDocument.TimeChart {
        let series = metrics.erleSeries
        let step = series.count >= 2 ? series[1].timeSeconds - series[0].timeSeconds : 0.5
        let windows = namesWindows ? "\(ReportFormatting.number(step, digits: step < 1 ? 1 : 0)) s windows, " : ""
        var chart = ReportDocument.TimeChart(
            title: "ERLE over time (\(windows)far-end single talk only)",
            yLabel: "ERLE (dB)", durationSeconds: max(durationSeconds, 0.5),
            lines: [.init(name: "ERLE", points: series.map { ($0.timeSeconds + step / 2, $0.erleDB) },
                          lowerBounds: series.map(\.isLowerBound), frames: series.map(\.frames))],
            emptyNote: RunReportDocument.noERLENote(singleTalkFrames: metrics.gate.singleTalkFrames), yFloor: 0, yCeiling: 30)
        if let steady = metrics.erleSteadyDB {
            chart.lines.append(.init(name: "steady state", points: [(0, steady), (durationSeconds, steady)], isDashed: true))
        }
        chart.lanes = activityLanes(activity)
        return chart
    }

    static func levelChart(_ report: RunReport) -> ReportDocument.TimeChart {
        let levels = report.levels
        let step = levels.count >= 2 ? levels[1].timeSeconds - levels[0].timeSeconds : 0.5
        func line(_ name: String, _ value: (LevelPoint) -> Double?) -> ReportDocument.TimeChart.Line {
            .init(name: name, points: levels.map { ($0.timeSeconds + step / 2, value($0).map { max($0, -100) }) })
        }
        var chart = ReportDocument.TimeChart(
            title: "Levels: far end, echo at the mic, near end, sent", yLabel: "level (dBFS)",
            durationSeconds: max(report.durationSeconds, 0.5),
            lines: [line("far end (reference)", \.farEndDBFS), line("echo at mic", \.echoDBFS),
                    line("near end", \.nearEndDBFS), line("sent", \.sentDBFS)],
            emptyNote: "Digital silence throughout", yFloor: -80, yCeiling: 0, sparkRange: -80...0)
        chart.markers = timelineMarkers(report)
        return chart
    }

    static func timelineMarkers(_ report: RunReport) -> [ReportDocument.TimeChart.Marker] {
        report.events.filter { $0.kind == "timeline" }
            .map { .init(t: Double($0.frame) / Double(report.sampleRate), label: $0.detail) }
    }

    /// Far end, near end and both (double talk), window by window as the activity gate judged
    /// them: each window filled by the share of its analysis frames in which that talker talked
    /// (its count on hover), neighbours where it talked throughout drawn as one stretch. Speech
    /// interleaves within half a second: a window of a third double talk is drawn so, not as none.
    static func activityLanes(_ windows: [ActivityWindow]) -> [ReportDocument.TimeChart.Lane] {
        guard !windows.isEmpty else { return [] }
        func stretches(_ what: String, _ count: (ActivityWindow) -> Int) -> [ReportDocument.TimeChart.Band] {
            var out: [ReportDocument.TimeChart.Band] = []
            var whole: (frames: Int, index: Int)?   // the stretch of whole windows being extended
            for window in windows where window.frames > 0 && count(window) > 0 {
                let talked = count(window), isWhole = talked == window.frames
                if isWhole, let run = whole, out[run.index].end == window.startSeconds {
                    let frames = run.frames + talked
                    out[run.index].end = window.endSeconds
                    out[run.index].label = "\(what) in all \(frames) analysis frames"
                    whole = (frames, run.index)
                    continue
                }
                out.append(.init(start: window.startSeconds, end: window.endSeconds,
                                 label: isWhole ? "\(what) in all \(talked) analysis frames" : "\(what) in \(talked) of \(window.frames) analysis frames",
                                 share: Double(talked) / Double(window.frames)))
                whole = isWhole ? (talked, out.count - 1) : nil
            }
            return out
        }
        return [.init(name: "far end talks", stretches: stretches("far end talks", \.farEndFrames)),
                .init(name: "near end talks", stretches: stretches("near end talks", \.nearEndFrames)),
                .init(name: "double talk", stretches: stretches("double talk", \.doubleTalkFrames))]
    }

    /// The taps in listening order (what the mic heard, what was sent, then the rest), as clips.
    static func audioClips(_ taps: [String: String]) -> [ReportDocument.AudioClip] {
        let order = ["mic": "mic (canceller input)", "sent": "sent (to the peer)", "reference": "reference (far end)",
                     "echo": "echo at the mic", "near": "near end + noise", "played": "loudspeaker"]
        let known = ["mic", "sent", "reference", "echo", "near", "played"].compactMap { name in
            taps[name].map { ReportDocument.AudioClip(label: order[name]!, path: $0) }
        }
        let others = taps.keys.filter { order[$0] == nil }.sorted().map { ReportDocument.AudioClip(label: $0, path: taps[$0]!) }
        return known + others.filter { $0.path.hasSuffix(".wav") }
    }

    static func count<N: BinaryInteger>(_ n: N, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// The near-end preservation rows of a metrics table: the other axis beside ERLE.
    /// Where the sent audio clicked or went silent, the first few of each, so a reader can go
    /// and listen; nil when it did neither.
    static func glitchTimes(_ report: RunReport) -> String? {
        let shown = 20, rate = Double(report.sampleRate)
        func list(_ times: [String], total: Int) -> String {
            times.prefix(shown).joined(separator: ", ") + (total > shown ? " and \(total - shown) more" : "")
        }
        var parts: [String] = []
        if !report.sentClickEvents.isEmpty {
            parts.append("Clicks in the sent audio at " + list(report.sentClickEvents.map { ReportFormatting.seconds(Double($0.sampleIndex) / rate) },
                                                              total: report.sentClicks))
        }
        if !report.sentGapRanges.isEmpty {
            parts.append("gaps at " + list(report.sentGapRanges.map {
                "\(ReportFormatting.seconds(Double($0.lowerBound) / rate))–\(ReportFormatting.seconds(Double($0.upperBound) / rate))"
            }, total: report.sentGaps))
        }
        guard !parts.isEmpty else { return nil }
        let text = parts.joined(separator: "; ") + "."
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// Where ERL and ERLE are measured but the delay is not: why, and what that means for them
    /// (the frames are scored with the reference as it is; where there is no far end at the mic,
    /// the "No ERL or ERLE" note already says so).
    static func noDelayNote(_ reason: String) -> String {
        "No bulk delay: \(reason). ERL and ERLE are scored with the reference as it is, not shifted by the echo's delay."
    }

    /// What a "≥" in the echo table means, where one is shown.
    public static func boundNote(_ m: EchoMetrics) -> String? {
        let erle = m.erleIsLowerBound || m.erleSteadyIsLowerBound
        guard erle || m.erlIsLowerBound else { return nil }
        return "≥: " + [erle ? "the output fell under the input's noise floor (or digital silence), where its residual echo cannot be measured; ERLE is at least the mic's level over that floor" : nil,
                        m.erlIsLowerBound ? "\(erle ? "ERL: " : "")the echo stayed under the mic's noise, where what stands for it (the mic, or an echo track's own noise) holds at least as much; ERL is at least the far end's level over that" : nil]
            .compactMap { $0 }.joined(separator: ". ") + "."
    }

    /// The room the ERL is read against, after the call's length: " · echo path 60.0 ms,
    /// -10.0 dB, synthetic room RT60 300 ms"; nothing where a route brought its own (the hardware
    /// section names it).
    static func echoPathSpans(_ report: RunReport) -> [ReportDocument.Span] {
        typealias F = ReportFormatting
        guard let path = report.echoPath else { return [] }
        var parts = ["\(F.number(path.delayMilliseconds, digits: 1)) ms", "\(F.number(path.gainDB, digits: 1)) dB"]
        switch path.impulseResponse {
        case .synthetic(let rt60, _)?: parts.append("synthetic room RT60 \(F.number(rt60, digits: 0)) ms")
        case .file(let file, _)?: parts.append("room response \(report.echoPathResponseFile ?? file)")
        case nil: break
        }
        if let clip = path.clipDBFS { parts.append("loudspeaker clipped at \(F.number(clip, digits: 1)) dBFS") }
        return [.text(" · echo path " + parts.joined(separator: ", "))]
    }

    /// `farEndPlayed`: whether the gate heard the far end at all; without it there is no double
    /// talk, and its row says so rather than that the gate heard no talker there.
    public static func nearEndRows(_ nearEnd: NearEndPreservation?, estimate: NearEndEstimate? = nil,
                                   farEndPlayed: Bool = true) -> [[ReportDocument.Cell]] {
        typealias F = ReportFormatting
        if nearEnd == nil, let e = estimate {
            // A recording: the near talker as the tap-free gate hears it, in double talk and alone,
            // as a near-end track's rows are.
            func drop(_ value: Double?, isLowerBound: Bool, frames: Int, lost: Int, isLost: Bool, none: String) -> String {
                // A negative drop is the output over the talker: "−1.2 dB under" read as a cut.
                let over = (value ?? 0) < 0 && !isLowerBound && F.number(value, digits: 1) != "0.0"
                return frames == 0 ? none
                    : "output \(F.figure(over ? value.map { -$0 } : value, isLowerBound: isLowerBound, frames: frames)) "
                      + "\(over ? "over" : "under") the talker the gate hears "
                      + "(\(F.analysisFrames(frames)); \(lost) of them \(F.number(NearEndEstimate.lostDropDB, digits: 0)) dB or more under)"
                      + (isLost ? ": near end lost" : "")
            }
            return [[.init("near end, from mic and loopback, double talk"),
                     .init(drop(e.outputDropDB, isLowerBound: e.outputDropIsLowerBound, frames: e.frames, lost: e.lostFrames, isLost: e.isLost,
                                none: farEndPlayed ? "the gate hears no near talker in double talk" : "no double talk: the far end never played"),
                           value: e.outputDropDB)],
                    [.init("near end, from mic and loopback, near-end single talk"),
                     .init(drop(e.singleTalkOutputDropDB, isLowerBound: e.singleTalkOutputDropIsLowerBound, frames: e.singleTalkFrames,
                                lost: e.singleTalkLostFrames, isLost: e.singleTalkIsLost, none: "the gate hears no near talker alone"),
                           value: e.singleTalkOutputDropDB)]]
        }
        guard let n = nearEnd else { return [[.init("near-end preservation"), .init("no near-end track: not measured")]] }
        return [
            [.init("near-end attenuation, double talk"),
             .init(F.countedAttenuation(n.attenuationDB, isLost: n.attenuationIsLowerBound, frames: n.doubleTalkFrames), value: n.attenuationDB)],
            // The distortion stands on the attenuation's frames: marked as it is where they are
            // few, and, where there is none, saying why.
            [.init("near-end distortion, double talk (includes residual echo)"),
             .init(F.distortion(n.distortionDB, isLost: n.attenuationIsLowerBound, frames: n.doubleTalkFrames), value: n.distortionDB)],
            // Pooled over every near-end single-talk frame (the near talker's overall gain in what
            // was sent); the telephony table's "near-end attenuation alone" is the median frame's
            // instead, and may differ: the labels say which is which.
            [.init("near-end attenuation, near-end single talk (all its frames pooled: the talker's overall level in what was sent)"),
             .init(F.countedAttenuation(n.singleTalkAttenuationDB, isLost: n.singleTalkAttenuationIsLowerBound, frames: n.singleTalkFrames),
                   value: n.singleTalkAttenuationDB)],
            [.init("near-end distortion, near-end single talk"),
             .init(F.distortion(n.singleTalkDistortionDB, isLost: n.singleTalkAttenuationIsLowerBound, frames: n.singleTalkFrames),
                   value: n.singleTalkDistortionDB)],
        ] + (n.polarityIsInverted ? [[.init("near-end polarity"),
                                       .init("inverted: the near end was sent upside down (inaudible on its own); the figures above are of it turned back")]] : [])
          + (n.talkNotSentFrames > 0 ? [[.init("near end talking where nothing of the room was sent"),
                                         .init("\(F.analysisFrames(n.talkNotSentFrames)) (muted, the audio unit stopped, or a file or generator as the "
                                               + "mic): none of it reached the peer; left out of the figures above, which are the send path's")]] : [])
    }

    /// Where the app left the canceller's reference silent, ERL and ERLE stand on the rest of the
    /// call alone (`RunReport.silentReferenceFindings`): said beside them, so that they do not
    /// read as the whole call's. nil where the reference played throughout.
    public static func silentReferenceNote(_ report: RunReport) -> String? {
        let silent = report.silentReferenceFindings
        guard !silent.isEmpty else { return nil }
        let stretches = silent.map { "\(ReportFormatting.seconds($0.atSeconds))–\(ReportFormatting.seconds($0.untilSeconds)) (\($0.rule))" }
        let opening = "The canceller's reference was silent for \(ReportFormatting.seconds(report.silentReferenceSeconds)) of the call: \(stretches.joined(separator: ", ")). "
        // Silent all call (to the hundredth of a second the page gives): there is no rest of the call.
        guard report.durationSeconds - report.silentReferenceSeconds >= 0.005 else {
            return opening + "ERL and ERLE are measured against that reference, so they have nothing to stand on; the echo went to the peer uncancelled and unmeasured."
        }
        return opening + "ERL and ERLE are measured against that reference, so they stand on the rest of the call alone; the echo there went to the peer uncancelled and unmeasured."
    }

    /// `intensityAdaptive`'s decisions as a table (nothing in other modes); `sampleRate`: the
    /// rate their `frame` counts.
    static func adaptiveBlocks(_ decisions: [AdaptiveDecision], sampleRate: Int) -> [ReportDocument.Block] {
        typealias F = ReportFormatting
        guard !decisions.isEmpty else { return [] }
        return [.heading("Adaptive AEC decisions", level: 2, id: "adaptive"),
                .paragraph([.text("intensityAdaptive decides every half second; a row is each change of its decision, with what it measured: "
                                  + "its own ERL estimate (the reference over the capture, or over the echo the backend's filter models), "
                                  + "the share of the far end's frames it took for double talk, the echo its filter removed against the "
                                  + "talker in them, and the suppression it chose (far-end single talk / double talk, dB). "
                                  + "docs/library.md says how it decides.")]),
                .table(.init(header: ["at", "ERL estimate", "double talk", "echo to near in double talk", "suppression"], rows: decisions.map { d in
                    [.init(F.seconds(Double(d.frame) / Double(sampleRate))), .init(F.db(d.erlEstimateDB)),
                     .init("\(Int(d.doubleTalkShare * 100)) %"), .init(d.echoToNearDB.map { F.db($0) } ?? "—"),
                     .init("\(d.suppressionDB)/\(d.doubleTalkSuppressionDB) dB")]
                }))]
    }

}
