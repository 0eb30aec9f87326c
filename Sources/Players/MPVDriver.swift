import Foundation
import PlayerReports

/// mpv with null outputs that, for a VOD, do not wait for the clock (it plays as fast as it
/// decodes); a live stream plays at the clock's pace (without the two `untimed` options), so that
/// its `paused-for-cache` spans are rebuffering a viewer would see:
///
///     mpv --no-config --vo=null --ao=null [--ao-null-untimed --untimed] --msg-level=all=v
///         --term-status-msg=hlschaos-position=${=time-pos} --network-timeout=10 URL
///
/// mpv demuxes HLS with ffmpeg's lavf: it picks the highest-bitrate variant and stays there.
public struct MPVDriver: PlayerDriver {
    public let name = "mpv"
    public var summary: String { "mpv (lavf HLS demuxer, highest variant), null outputs, VOD faster than real time, live at the clock's pace" }
    public var lowLatency: LowLatencyPlayback {
        .wholeSegments(reason: "mpv 0.35 reads HLS with ffmpeg's demuxer, which ignores EXT-X-PART: whole segments and plain reloads")
    }
    public var contentSteering: ContentSteeringPlayback {
        .ignores(reason: "mpv 0.35 reads HLS with ffmpeg's demuxer, which ignores EXT-X-CONTENT-STEERING")
    }
    public var executable: String
    /// `--network-timeout` in seconds.
    public var networkTimeout: Double
    public var stallThreshold: Double

    public init(executable: String = "mpv", networkTimeout: Double = 10, stallThreshold: Double = Stalls.defaultThreshold) {
        self.executable = executable; self.networkTimeout = networkTimeout; self.stallThreshold = stallThreshold
    }

    static let install = "apt-get install -y mpv"

    public func availability() async -> PlayerAvailability {
        guard ProcessRunner.which(executable) != nil else {
            return .missing(reason: "\(executable) is not installed", install: Self.install)
        }
        guard let version = await ToolProbe.firstLine(executable, ["--no-config", "--version"]) else {
            return .missing(reason: "\(executable) --version failed", install: Self.install)
        }
        return .ready(version: version)
    }

    /// Untimed for VOD; live at the clock's pace: untimed, mpv would drain its cache as soon as a
    /// segment arrived and wait for the next one, `paused-for-cache` all along.
    func arguments(url: String, live: Bool = false) -> [String] {
        ["--no-config", "--vo=null", "--ao=null"] + (live ? [] : ["--ao-null-untimed", "--untimed"]) + [
            "--msg-level=all=v",
            "--term-status-msg=\(MPVLog.positionTag)${=time-pos}", "--network-timeout=\(OutcomeRules.seconds(networkTimeout))",
            url,
        ]
    }

    public func play(_ request: PlayRequest) async -> PlayerReport {
        await playInstalled {
            try await PlayerProcess.run(
                .init(executable, arguments(url: request.url, live: request.live), timeout: request.timeout),
                in: request.workDirectory, name: name)
        } read: { run, version in
            let facts = MPVLog.parse(run.lines)
            // Untimed (VOD), a cache wait is only the network slower than decoding: progress decides.
            let (stalls, outcome) = run.judge(facts, request: request, stallThreshold: stallThreshold, rebuffering: request.live)
            // One status line per frame is the bulk of the output; keep the last one.
            return run.report(
                player: name, version: version, facts: facts, stalls: stalls, outcome: outcome, log: Self.withoutStatusLines(run.lines))
        }
    }

    static func withoutStatusLines(_ lines: [LogLine]) -> [LogLine] {
        let last = lines.last { $0.text.hasPrefix(MPVLog.positionTag) }
        return lines.filter { !$0.text.hasPrefix(MPVLog.positionTag) } + (last.map { [$0] } ?? [])
    }
}
