import Foundation
import PlayerReports

/// Reads what the browser harness printed into a `PlayerReport`. Pure: no I/O, no clock.
///
/// - `failed`: a fatal error (hls.js `fatal: true`; video.js sets `player.error()`), a page
///   that threw, or a harness that could not run the browser.
/// - `played`: a VOD that fired `ended`; a live stream whose position still advanced over the
///   last `stallWindow` seconds when the time limit came (or that ended: its playlist closed).
/// - `stalled`: at the limit, the position had not moved for the last `stallWindow` seconds.
/// - `timedOut`: a VOD still advancing at the limit, or a harness stopped by the watchdog.
public enum BrowserReport {
    /// What `ProcessRunner` returned for the harness.
    public struct Run: Sendable {
        public var stdout: String
        public var stderr: String
        public var status: Int32
        public var timedOut: Bool
        public var seconds: Double

        public init(stdout: String, stderr: String = "", status: Int32 = 0, timedOut: Bool = false, seconds: Double = 0) {
            self.stdout = stdout; self.stderr = stderr; self.status = status; self.timedOut = timedOut; self.seconds = seconds
        }
    }

    /// `PlayerReport.log` is cut at this many bytes.
    public static let logLimit = 256 << 10

    /// Seconds without the position moving, at the limit, that make a run `stalled`: 6, or half
    /// the limit for limits under 12 s.
    public static func stallWindow(limit: Double) -> Double { min(6, max(1, limit / 2)) }

    /// Stalls shorter than this (the element's own `waiting`/`playing` blips at a high playback
    /// rate, often 0 ms) are left out: `Stalls.shortest`, as for every driver.
    public static let shortestStall = Stalls.shortest

    public static func report(player: String, engine: BrowserEngine, live: Bool, limit: Double, run: Run) -> PlayerReport {
        report(player: player, engine: engine, live: live, limit: limit, run: run, parsed: BrowserLog.parse(run.stdout))
    }

    /// The same, given `BrowserLog.parse(run.stdout)` already read.
    static func report(player: String, engine: BrowserEngine, live: Bool, limit: Double, run: Run, parsed: BrowserLog?) -> PlayerReport {
        guard let log = parsed else {
            let reason = run.timedOut
                ? "the browser harness did not finish (watchdog after \(format(run.seconds)) s)"
                : "the browser harness exited with status \(run.status) without a report" + tail(run.stderr)
            return PlayerReport(
                player: player, version: engine.label, outcome: run.timedOut ? .timedOut : .failed, reason: reason,
                seconds: run.seconds, exitStatus: run.status, log: cap(run.stdout + run.stderr))
        }
        var report = report(player: player, engine: engine, live: live, limit: limit, log: log)
        report.seconds = run.seconds
        report.exitStatus = run.status
        if !run.stderr.isEmpty { report.log = cap(report.log + "--- harness stderr ---\n" + run.stderr) }
        return report
    }

    public static func report(player: String, engine: BrowserEngine, live: Bool, limit: Double, log: BrowserLog) -> PlayerReport {
        var version = engine.label
        if let browser = log.browserVersion { version += ", Chromium \(browser)" }
        let events = inOrder(log.events)
        var report = PlayerReport(
            player: player, version: version, outcome: .timedOut,
            errors: events.compactMap { error(from: $0, engine: log.engine) },
            stalls: stalls(in: log),
            switches: events.filter { $0.event == "levelSwitched" }.compactMap { event in
                event.level.map { PlayerReport.LevelSwitch(time: event.t, level: $0) }
            },
            position: log.currentTime, seconds: log.elapsed ?? 0, log: cap(text(events.filter { $0.event != "latency" })),
            liveLatency: liveLatency(events))
        if !log.buffer.isEmpty {
            report.buffer = log.buffer.map { PlayerReport.BufferSample(at: $0[0], position: $0[1], ahead: $0[2]) }
        }

        if let harnessError = log.harnessError {
            report.outcome = .failed
            report.reason = "browser harness: \(harnessError)"
            return report
        }
        if let fatal = log.fatal ?? events.first(where: { $0.fatal == true }) {
            report.outcome = .failed
            report.reason = fatalReason(fatal, engine: log.engine, before: events)
            return report
        }
        if log.ended {
            report.outcome = .played
            if live { report.reason = "the live stream ended at \(format(log.currentTime ?? 0)) s (its playlist was closed)" }
            return report
        }
        let window = stallWindow(limit: limit)
        let stuck = stuckSeconds(log.samples)
        let position = format(log.currentTime ?? log.samples.last?[1] ?? 0)
        let errorNote = errorSummary(report.errors)
        if log.samples.isEmpty {
            report.outcome = .timedOut
            report.reason = "no position was read from the page" + errorNote
        } else if stuck >= window {
            report.outcome = .stalled
            report.reason = "position stuck at \(position) s for the last \(format(stuck)) s" + errorNote
        } else if live {
            report.outcome = .played
        } else {
            report.outcome = .timedOut
            let of = log.duration.map { " of \(format($0)) s" } ?? ""
            report.reason = "did not reach the end within \(format(limit)) s (position \(position) s\(of))" + errorNote
        }
        return report
    }

    // MARK: pieces

    /// hls.js's `latency` samples from the first `playing` on (before it the position is where
    /// playback will start, not where it is), leaving out 0: hls.js's value before it computed one.
    static func liveLatency(_ events: [BrowserLog.Event]) -> PlayerReport.LiveLatency? {
        guard let started = events.first(where: { $0.event == "playing" })?.t else { return nil }
        let samples = events.filter { $0.event == "latency" && ($0.t ?? 0) >= started && ($0.latency ?? 0) > 0 }
        let values = samples.compactMap(\.latency)
        guard let last = values.last else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        return .init(median: round3(median), min: sorted[0], max: sorted[sorted.count - 1], last: last,
                     samples: values.count, target: samples.last?.targetLatency)
    }

    /// Seconds between the first sample at the final position and the last sample.
    static func stuckSeconds(_ samples: [[Double]]) -> Double {
        guard let last = samples.last else { return 0 }
        var since = last[0]
        for sample in samples.reversed() {
            guard abs(sample[1] - last[1]) < 0.01 else { break }
            since = sample[0]
        }
        return last[0] - since
    }

    /// The page's events by time (ties in the order logged).
    static func inOrder(_ events: [BrowserLog.Event]) -> [BrowserLog.Event] {
        events.enumerated().sorted { ($0.element.t ?? 0, $0.offset) < ($1.element.t ?? 0, $1.offset) }.map(\.element)
    }

    /// The report's stalls of a page's log (page time), one still open lasting until the last
    /// position sample.
    public static func stalls(in log: BrowserLog) -> [PlayerReport.Stall] {
        let events = inOrder(log.events)
        return stalls(events, end: log.samples.last?[0] ?? events.last?.t)
    }

    /// A `waiting` after the first `playing` opens a stall; the next `playing` or `ended` closes
    /// it; one still open lasts until `end`.
    static func stalls(_ events: [BrowserLog.Event], end: Double?) -> [PlayerReport.Stall] {
        var result: [PlayerReport.Stall] = []
        var started = false
        var open: Double?
        for event in events {
            switch event.event {
            case "playing", "ended":
                if let at = open, let t = event.t { result.append(.init(at: at, duration: t - at)) }
                open = nil
                started = started || event.event == "playing"
            case "waiting" where started && open == nil:
                open = event.t
            default:
                break
            }
        }
        if let at = open, let end, end > at { result.append(.init(at: at, duration: end - at)) }
        return result.filter { $0.duration >= shortestStall }.map { .init(at: round3($0.at), duration: round3($0.duration)) }
    }

    static func error(from event: BrowserLog.Event, engine: String) -> PlayerReport.PlayerError? {
        switch event.event {
        case "error" where engine == "hlsjs":
            let kind = event.details ?? event.type ?? "error"
            let parts: [String?] = [
                event.type, event.details, event.code.map { "HTTP \($0)" }, event.sn.map { "sn \($0)" }, event.fragType,
                event.level.map { "level \($0)" }, event.url, event.reason,
            ]
            return .init(time: event.t, kind: kind, code: event.code, fatal: event.fatal ?? false,
                         message: parts.compactMap { $0 }.joined(separator: " "))
        case "error", "videoError":
            let http = event.status.map { " (HTTP \($0))" } ?? ""
            return .init(time: event.t, kind: mediaErrorName(event.code), code: event.code,
                         fatal: event.event == "error" ? (event.fatal ?? true) : false,
                         message: (event.message ?? "") + http)
        case "segmentError", "playlistError":
            let level = event.level.map { " (variant \($0))" } ?? ""
            return .init(time: event.t, kind: event.event, code: event.status, fatal: false,
                         message: (event.message ?? event.url ?? "") + level)
        case "playRejected":
            return .init(time: event.t, kind: "playRejected", fatal: false, message: event.reason ?? "")
        case "pageError":
            return .init(time: event.t, kind: "pageError", fatal: true, message: event.reason ?? event.message ?? "")
        default:
            return nil
        }
    }

    /// `hls.js fatal networkError fragLoadError (HTTP 404) sn 8`,
    /// `video.js fatal MEDIA_ERR_NETWORK (code 2): HLS playlist request error at URL: … (HTTP 404)`.
    /// video.js does not always pass VHS's error on: when the master playlist fails after the
    /// MediaSource opened, VHS ends the stream and the element's own error (code 4, "source not
    /// supported") is what `player.error()` says. Such an error without an HTTP status gets the
    /// last request error before it appended: `…; after playlistError (HTTP 404) <url>`.
    static func fatalReason(_ event: BrowserLog.Event, engine: String, before events: [BrowserLog.Event] = []) -> String {
        if event.event == "pageError" || event.details == "pageError" {
            return "the player page failed: \(event.reason ?? event.message ?? "unknown error")"
        }
        if engine == "hlsjs" {
            var words = ["hls.js fatal", event.type, event.details].compactMap { $0 }
            if let code = event.code { words.append("(HTTP \(code))") }
            if let sn = event.sn { words.append("sn \(sn)") }
            if let type = event.fragType, type != "main" { words.append("(\(type))") }
            return words.joined(separator: " ")
        }
        var text = "video.js fatal \(mediaErrorName(event.code))"
        if let code = event.code { text += " (code \(code))" }
        if let message = event.message, !message.isEmpty { text += ": \(message)" }
        if let status = event.status {
            text += " (HTTP \(status))"
        } else if let cause = events.last(where: {
            ($0.event == "playlistError" || $0.event == "segmentError") && ($0.t ?? 0) <= (event.t ?? .infinity)
        }) {
            text += "; after \(cause.event)" + (cause.status.map { " (HTTP \($0))" } ?? "") + (cause.url.map { " \($0)" } ?? "")
        }
        return text
    }

    /// The names of `MediaError` codes (5 is video.js's own, for encrypted media).
    static func mediaErrorName(_ code: Int?) -> String {
        switch code {
        case 1: return "MEDIA_ERR_ABORTED"
        case 2: return "MEDIA_ERR_NETWORK"
        case 3: return "MEDIA_ERR_DECODE"
        case 4: return "MEDIA_ERR_SRC_NOT_SUPPORTED"
        case 5: return "MEDIA_ERR_ENCRYPTED"
        case let code?: return "MEDIA_ERR_\(code)"
        case nil: return "MEDIA_ERR_CUSTOM"
        }
    }

    /// "; 24 errors, the last: segmentError (HTTP 404)", or nothing.
    static func errorSummary(_ errors: [PlayerReport.PlayerError]) -> String {
        guard let last = errors.last else { return "" }
        let code = last.code.map { last.kind.hasPrefix("MEDIA_ERR") ? " (code \($0))" : " (HTTP \($0))" } ?? ""
        return "; \(errors.count) error\(errors.count == 1 ? "" : "s"), the last: \(last.kind)\(code)"
    }

    /// One line per event: `12.345 error networkError fragLoadError code=404 sn=8 level=2 FATAL url`.
    /// The report's log leaves the `latency` samples out: two a second would push the events out
    /// of a log's tail, and `liveLatency` sums them up (the harness's JSON keeps each).
    static func text(_ events: [BrowserLog.Event]) -> String {
        events.map { e in
            var parts = [e.t.map { String(format: "%.3f", $0) } ?? "-", e.event]
            parts += [e.type, e.details, e.fragType].compactMap { $0 }
            if let v = e.code { parts.append("code=\(v)") }
            if let v = e.status { parts.append("status=\(v)") }
            if let v = e.sn { parts.append("sn=\(v)") }
            if let v = e.level { parts.append("level=\(v)") }
            if let v = e.bandwidth { parts.append("bandwidth=\(v)") }
            if let v = e.position { parts.append("position=\(format(v))") }
            if let v = e.part { parts.append("part=\(v)") }
            if let v = e.parts { parts.append("parts=\(v)") }
            if e.canBlockReload == true { parts.append("blockingReload") }
            if let v = e.latency { parts.append("latency=\(v)") }
            if let v = e.targetLatency { parts.append("target=\(v)") }
            if let v = e.drift { parts.append("drift=\(v)") }
            if let v = e.wallLatency { parts.append("wallLatency=\(v)") }
            if e.fatal == true { parts.append("FATAL") }
            parts += [e.message, e.reason, e.url].compactMap { $0 }
            return parts.joined(separator: " ") + "\n"
        }.joined()
    }

    static func format(_ seconds: Double) -> String { String(format: "%.1f", seconds) }

    private static func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    private static func tail(_ text: String) -> String {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.isEmpty ? "" : ": " + lines.suffix(3).joined(separator: " / ")
    }

    private static func cap(_ text: String) -> String {
        guard text.utf8.count > logLimit else { return text }
        return String(decoding: Array(text.utf8.prefix(logLimit)), as: UTF8.self) + "\n[hlschaos: log cut at \(logLimit) bytes]\n"
    }
}
