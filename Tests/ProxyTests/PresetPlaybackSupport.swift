import Foundation
import Records
import Proxy
import Testing

/// Shared pieces of the preset playback suite: where the presets are, how a player is run
/// through a preset's device URL, and what it logged.
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

    /// The presets to play: all, or the comma-separated `PRESET_PLAYBACK_ONLY` list (to rerun a few).
    static func selectedPresetNames() -> [String] {
        let all = presetNames()
        guard let only = ProcessInfo.processInfo.environment["PRESET_PLAYBACK_ONLY"], !only.isEmpty else { return all }
        let wanted = Set(only.split(separator: ",").map { String($0) })
        return all.filter(wanted.contains)
    }

    static let ffmpeg = which("ffmpeg")
    static let hlsjsScript: String? = PlayerTests.hlsjsHarness

    /// Players run at most two at a time: the machine has two cores and Chromium is heavy.
    static let slots = PlayerSlots(count: 2)

    /// The proxy in front of a fresh demo origin, with the repository's presets.
    static func startProxy() async throws -> ProxyHarness {
        try await ProxyHarness.startWithDemo()
    }

    /// `/s/<session>+<preset><stream>` on the proxy.
    static func deviceURL(_ proxy: ProxyHarness, session: String, preset: String?, stream: String) -> String {
        let id = preset.map { "\(session)+\($0)" } ?? session
        return "http://127.0.0.1:\(proxy.port)/s/\(id)\(stream)"
    }

    /// Faults the proxy applied for one session.
    /// The session's faults, and the reaction report over all its records with what its playlists said.
    static func faultsAndReport(_ proxy: ProxyHarness, session: String) -> Faults {
        let facts = proxy.server.sessions.existing(session)?.playlistFacts
        let report = ReactionReport.analyze(
            proxy.server.records.records(session: session), now: Date(), targetDuration: facts?.targetDuration,
            bandwidths: facts?.bandwidths ?? [:], lastMSN: facts?.lastMSN ?? [:])
        return Faults(events: faults(proxy, session: session), report: report)
    }

    static func faults(_ proxy: ProxyHarness, session: String) -> [RequestRecord] {
        proxy.server.records.faults.filter { $0.session == session || $0.session.hasPrefix(session + "+") }
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

/// What ffmpeg did with one stream: its stderr (warnings and errors) and the frames it decoded.
struct FFmpegRun: Sendable {
    var status: Int32
    var stderr: String
    var frames: Int
    var seconds: Double

    var lines: [Substring] { stderr.split(separator: "\n") }

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
}

extension FFmpegRun {
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

enum FFmpegPlayer {
    /// Decodes the first video stream of `program` (a variant index) to null, with its info log on stderr.
    /// `rwTimeout` bounds every read so a hanging resource fails instead of blocking the test.
    static func play(_ url: String, program: Int? = 2, seconds: Int? = nil, rwTimeout: Int = 5) async throws -> FFmpegRun {
        var arguments = ["-hide_banner", "-nostdin", "-v", "info", "-rw_timeout", String(rwTimeout * 1_000_000), "-i", url]
        arguments += ["-map", program.map { "0:p:\($0):v:0" } ?? "0:v:0"]
        if let seconds { arguments += ["-t", String(seconds)] }
        arguments += ["-f", "null", "-", "-progress", "pipe:1"]
        let started = Date()
        let result = try await runCommand(try #require(PresetPlayback.ffmpeg), arguments, timeout: 150)
        let frames = result.stdout.split(separator: "\n").compactMap { line -> Int? in
            line.hasPrefix("frame=") ? Int(line.dropFirst(6)) : nil
        }.last ?? -1
        return FFmpegRun(status: result.status, stderr: result.stderr, frames: frames, seconds: Date().timeIntervalSince(started))
    }
}

/// What hls.js logged (Tests/Players/hlsjs.py output), with the fields the preset checks need.
struct HlsjsLog: Decodable, Sendable {
    struct Event: Decodable, Sendable {
        var t: Double?
        var event: String
        var type: String?
        var details: String?
        var fatal: Bool?
        var code: Int?
        var sn: Int?
        var level: Int?
        var url: String?
        var reason: String?
        var levels: Int?
        var live: Bool?
        var startSN: Int?
        var endSN: Int?
        var id: Int?
    }

    var ended: Bool
    var currentTime: Double
    var events: [Event]
    var timedOut: Bool

    var errors: [Event] { events.filter { $0.event == "error" } }
    var fatalError: Event? { errors.first { $0.fatal == true } }
    var fragments: [Event] { events.filter { $0.event == "fragLoaded" } }
    var videoFragments: [Event] { fragments.filter { $0.type == "main" } }
    var switches: [Int] { events.filter { $0.event == "levelSwitched" }.compactMap(\.level) }

    func errors(_ details: String) -> [Event] { errors.filter { $0.details == details } }

    /// One line per event, for failure messages.
    var summary: String {
        events.map { event in
            var parts = [event.event]
            if let details = event.details { parts.append(details) }
            if let code = event.code { parts.append("code=\(code)") }
            if let sn = event.sn { parts.append("sn=\(sn)") }
            if let level = event.level { parts.append("level=\(level)") }
            if let fatal = event.fatal, fatal { parts.append("FATAL") }
            if let endSN = event.endSN { parts.append("endSN=\(endSN)") }
            return parts.joined(separator: " ")
        }.joined(separator: "\n")
    }
}

enum HlsjsPlayer {
    static func play(_ url: String, until: String = "ended", timeout: Int = 60) async throws -> HlsjsLog {
        let result = try await runCommand(
            "/usr/bin/env",
            ["python3", try #require(PresetPlayback.hlsjsScript), url, "--until", until, "--timeout", String(timeout)],
            timeout: TimeInterval(timeout + 60))
        guard result.status == 0, let data = result.stdout.data(using: .utf8) else {
            Issue.record("hls.js harness failed (\(result.status)): \(result.stderr)")
            throw CancellationError()
        }
        return try JSONDecoder().decode(HlsjsLog.self, from: data)
    }
}
