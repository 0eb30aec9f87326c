import Foundation
import Players
import Records
import Proxy
import Testing
import TestSupport

/// Shared pieces of the preset playback suite: where the presets are, how a player is run
/// through a preset's device URL (with the `Players` drivers `hlschaos run` uses), and what it
/// logged.
enum PresetPlayback {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let presetDirectory = repositoryRoot.appendingPathComponent("rules").path

    /// Preset names: every rules/*.json except the schema.
    static func presetNames() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: presetDirectory)) ?? []
        return files.filter { $0.hasSuffix(".json") && $0 != "schema.json" }
            .map { String($0.dropLast(".json".count)) }.sorted()
    }

    /// The presets `player` plays: its cells of `PresetPlaybackCatalog.ciCells` (one per fault
    /// family), every preset with `PRESET_PLAYBACK=all`, or the comma-separated
    /// `PRESET_PLAYBACK_ONLY` list (to rerun a few).
    static func selectedPresetNames(for player: PresetPlaybackCatalog.Player) -> [String] {
        let all = presetNames()
        let environment = ProcessInfo.processInfo.environment
        if let only = environment["PRESET_PLAYBACK_ONLY"], !only.isEmpty {
            let wanted = Set(only.split(separator: ",").map { String($0) })
            return all.filter(wanted.contains)
        }
        if environment["PRESET_PLAYBACK"] == "all" { return all }
        let ci = Set(PresetPlaybackCatalog.ciCells.filter { $0.player == player }.map(\.preset))
        return all.filter(ci.contains)
    }

    static let ffmpegInstalled = ProcessRunner.which("ffmpeg") != nil
    /// Chromium, chromedriver and python3 are there. Whether selenium imports and the hls.js
    /// engine is cached (or can be fetched) is `BrowserDriver.availability()`'s to say: a test
    /// records it as an issue (`requireReady`).
    static let browserToolsPresent = ["chromium", "chromium-browser", "google-chrome"].contains { ProcessRunner.which($0) != nil }
        && ProcessRunner.which("chromedriver") != nil && ProcessRunner.which("python3") != nil

    static let hlsjs = BrowserDriver.hlsjs
    /// Asked once for the whole suite (it probes the tools and may fetch the engine).
    static let ffmpegAvailability = Task { await FFmpegDriver().availability() }
    static let hlsjsAvailability = Task { await hlsjs.availability() }

    /// Records an issue and throws when the player cannot run here.
    static func requireReady(_ availability: Task<PlayerAvailability, Never>, _ player: String) async throws {
        if case let .missing(reason, install) = await availability.value {
            Issue.record("\(player) is not available: \(reason) (install: \(install))")
            throw PlayerUnavailable()
        }
    }

    struct PlayerUnavailable: Error {}

    /// Players run at most two at a time: the machine has two cores and Chromium is heavy.
    static let slots = PlayerSlots(count: 2)

    /// Runs `body` with the proxy in front of a fresh demo origin, and stops both afterwards, also
    /// when `body` throws.
    static func withProxy<Result>(_ body: (ProxyHarness) async throws -> Result) async throws -> Result {
        try await ProxyHarness.withDemo { proxy, _ in try await body(proxy) }
    }

    /// `/s/<session>+<preset><stream>` on the proxy.
    static func deviceURL(_ proxy: ProxyHarness, session: String, preset: String?, stream: String) -> String {
        let id = preset.map { "\(session)+\($0)" } ?? session
        return "http://127.0.0.1:\(proxy.port)/s/\(id)\(stream)"
    }

    /// Faults the proxy applied for one session.
    /// The session's faults, and the reaction report over all its records with what its playlists said.
    static func faultsAndReport(_ proxy: ProxyHarness, session: String) -> Faults {
        Faults(events: faults(proxy, session: session), report: proxy.server.control.report(session: session))
    }

    /// The session's records that a rule or its link touched.
    static func faults(_ proxy: ProxyHarness, session: String) -> [RequestRecord] {
        proxy.server.control.records(session: nil).filter {
            ($0.isFaulted || $0.link != nil) && ($0.session == session || $0.session.hasPrefix(session + "+"))
        }
    }

    /// A work directory of the run's own (the driver keeps the player's logs there), removed after.
    static func inWorkDirectory<T>(_ player: String, _ body: (URL) async -> T) async throws -> T {
        try await withTemporaryFolder("preset-\(player)") { folder in await body(folder.url) }
    }

    /// Plays `url` with the ffmpeg driver as `plan` says, stopped by the watchdog after `plan.limit`.
    static func playFFmpeg(_ url: String, plan: FFmpegPlan, live: Bool) async throws -> FFmpegRun {
        let driver = FFmpegDriver(program: plan.program, readTimeout: Double(plan.rwTimeout), duration: plan.seconds.map(Double.init))
        let playback = try await inWorkDirectory("ffmpeg") { directory in
            await driver.playback(PlayRequest(url: url, timeout: plan.limit, live: live, workDirectory: directory))
        }
        if playback.report.exitStatus == nil {
            Issue.record("ffmpeg did not run: \(playback.report.outcomeText)")
        }
        return FFmpegRun(playback)
    }

    /// Plays `url` with the hls.js driver for at most `plan.seconds`; the page's log, or nil (with
    /// an issue recorded) when the harness could not drive the browser.
    static func playHlsjs(_ url: String, plan: HlsjsPlan, live: Bool) async throws -> BrowserLog? {
        let playback = try await inWorkDirectory("hlsjs") { directory in
            await hlsjs.playback(PlayRequest(url: url, timeout: plan.seconds, live: live, workDirectory: directory))
        }
        guard let log = playback.log, log.harnessError == nil else {
            Issue.record("the hls.js harness failed: \(playback.report.outcomeText)\n\(playback.report.log)")
            return nil
        }
        return log
    }
}

/// An async counting semaphore (tests suspend, they do not block a thread while waiting).
actor PlayerSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        do {
            let value = try await body()
            release()
            return value
        } catch {
            release()
            throw error
        }
    }
}

/// What ffmpeg did with one stream, as the ffmpeg driver read it: its stderr (at
/// `-v repeat+level+info`) and the frames it decoded.
struct FFmpegRun: Sendable {
    var playback: FFmpegDriver.Playback
    /// The raw stderr, for `mentions` and failure messages.
    var stderr: String
    /// Each stderr line without its `[context @ …]` and `[level]` tags (and the indentation after
    /// them: `[info]   Program 0` → "Program 0").
    var lines: [String]

    init(_ playback: FFmpegDriver.Playback) {
        self.playback = playback
        stderr = playback.stderr.map(\.text).joined(separator: "\n")
        lines = playback.stderr.map { FFmpegLog.split($0.text).message }
    }

    /// The exit status (128 + the signal when the watchdog stopped it; -1 when it did not run).
    var status: Int32 { playback.report.exitStatus ?? -1 }
    /// Video frames decoded, -1 when ffmpeg printed no progress.
    var frames: Int { playback.frames ?? -1 }

    func mentions(_ text: String) -> Bool { stderr.contains(text) }

    /// Numbers N from "Failed to open segment N of playlist P" lines.
    func failedSegments(playlist: Int? = nil) -> [Int] {
        lines.compactMap { line -> Int? in
            guard let range = line.range(of: "Failed to open segment ") else { return nil }
            let words = line[range.upperBound...].split(separator: " ")
            guard let segment = words.first.flatMap({ Int($0) }) else { return nil }
            if let playlist, !(words.count >= 3 && words[1] == "of" && words.last.flatMap({ Int($0) }) == playlist) {
                return nil
            }
            return segment
        }
    }

    /// Segment URIs of `variant` ffmpeg opened more than once (the proxy's `~seg.v<N>.n<MSN>` paths).
    func openedSegmentsTwice(variant: Int) -> [String] {
        var counts: [String: Int] = [:]
        for line in lines where line.contains("Opening '") && line.contains("~seg.v\(variant).n") {
            guard let start = line.range(of: "~seg.") else { continue }
            let path = line[start.lowerBound...].prefix { $0 != "'" }
            counts[String(path), default: 0] += 1
        }
        return counts.filter { $0.value > 1 }.map(\.key).sorted()
    }
}

/// What the preset checks read off the hls.js page's log (`BrowserLog`, times in seconds since
/// the page's script started).
extension BrowserLog {
    var errors: [Event] { events.filter { $0.event == "error" } }
    var fatalError: Event? { errors.first { $0.fatal == true } }
    var fragments: [Event] { events.filter { $0.event == "fragLoaded" } }
    var videoFragments: [Event] { fragments.filter { $0.fragType == "main" } }
    var switches: [Int] { events.filter { $0.event == "levelSwitched" }.compactMap(\.level) }

    func errors(_ details: String) -> [Event] { errors.filter { $0.details == details } }

    /// One line per event, for failure messages.
    var summary: String {
        events.map { event in
            var parts = [event.t.map { String(format: "%.3f", $0) } ?? "-", event.event]
            if let details = event.details { parts.append(details) }
            if let type = event.fragType { parts.append(type) }
            if let code = event.code { parts.append("code=\(code)") }
            if let sn = event.sn { parts.append("sn=\(sn)") }
            if let level = event.level { parts.append("level=\(level)") }
            if let fatal = event.fatal, fatal { parts.append("FATAL") }
            if let endSN = event.endSN { parts.append("endSN=\(endSN)") }
            return parts.joined(separator: " ")
        }.joined(separator: "\n")
    }
}
