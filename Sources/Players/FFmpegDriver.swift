import Foundation
import PlayerReports

/// ffmpeg's own HLS demuxer (lavf), decoding to the null muxer as fast as it goes:
///
///     ffmpeg -hide_banner -nostdin -nostats -v repeat+level+info [-extension_picky 0]
///            -rw_timeout <µs> [-t S] -i URL [-map 0:p:N:v:0? -map 0:p:N:a:0?] -f null - -progress pipe:1
///
/// lavf does not adapt: with no `-map` ffmpeg picks what it would by default, the video stream of
/// the highest resolution (the variant most faults target) and the best audio; `program` picks
/// another variant (`-map 0:p:N:v:0`). Failed segments are skipped; a playlist or
/// key that cannot be opened ends the run with a failure. A live run is stopped at the time limit,
/// or ends by itself after `duration` seconds of media.
///
/// Through a forward proxy (`PlayRequest.proxy`): `-http_proxy URL -ca_file ROOT -tls_verify 1`.
/// The hls demuxer hands `http_proxy` on to every playlist, key and segment it opens, but not
/// the TLS options (lavf's `save_avio_options` copies headers, http_proxy, user_agent, cookies,
/// referer, rw_timeout only): the master playlist's certificate is verified against the root, the
/// nested opens go through the proxy unverified (tls_verify is off by default).
public struct FFmpegDriver: PlayerDriver {
    public let name = "ffmpeg"
    public var playsThroughProxy: Bool { true }
    public var lowLatency: LowLatencyPlayback {
        .wholeSegments(reason: "ffmpeg 5.1's HLS demuxer ignores EXT-X-PART: whole segments and plain reloads")
    }
    public var contentSteering: ContentSteeringPlayback {
        .ignores(reason: "ffmpeg 5.1's HLS demuxer ignores EXT-X-CONTENT-STEERING: it never loads the steering manifest")
    }
    public var summary: String { "ffmpeg (lavf HLS demuxer, decodes to null as fast as it can; no ABR)" }
    public var executable: String
    /// A variant index (0-based, master order) instead of the first video stream.
    public var program: Int?
    /// `-rw_timeout`: a read that stays silent this long fails (seconds).
    public var readTimeout: Double
    /// `-t` (on the input): ffmpeg reads this many seconds of the stream and stops by itself (a
    /// live run then ends as `played` before the time limit). Nil reads until the end or the
    /// time limit.
    public var duration: Double?
    public var stallThreshold: Double

    public init(
        executable: String = "ffmpeg", program: Int? = nil, readTimeout: Double = 10, duration: Double? = nil,
        stallThreshold: Double = Stalls.defaultThreshold
    ) {
        self.executable = executable; self.program = program; self.readTimeout = readTimeout; self.duration = duration
        self.stallThreshold = stallThreshold
    }

    static let install = "apt-get install -y ffmpeg"

    public func availability() async -> PlayerAvailability {
        guard ProcessRunner.which(executable) != nil else {
            return .missing(reason: "\(executable) is not installed", install: Self.install)
        }
        guard let version = await ToolProbe.firstLine(executable, ["-version"]) else {
            return .missing(reason: "\(executable) -version failed", install: Self.install)
        }
        guard await hasHLSDemuxer() else {
            return .missing(reason: "this ffmpeg has no hls demuxer", install: Self.install)
        }
        return .ready(version: version)
    }

    /// The command line, without the executable.
    func arguments(url: String, pickyOption: Bool, proxy: PlayerProxy? = nil) -> [String] {
        var arguments = ["-hide_banner", "-nostdin", "-nostats", "-v", "repeat+level+info"]
        if pickyOption { arguments += ["-extension_picky", "0"] }
        arguments += ["-rw_timeout", String(Int(readTimeout * 1_000_000))]
        // An input option: it limits what is read, so every stream gets the whole span (as an
        // output option, video would lose the frames before the audio's earlier first timestamp).
        if let duration { arguments += ["-t", OutcomeRules.seconds(duration)] }
        if let proxy {
            if let url = proxy.url { arguments += ["-http_proxy", url] }
            arguments += ["-ca_file", proxy.caFile, "-tls_verify", "1"]
        }
        arguments += ["-i", url]
        if let program {
            arguments += ["-map", "0:p:\(program):v:0?", "-map", "0:p:\(program):a:0?"]
        }
        return arguments + ["-f", "null", "-", "-progress", "pipe:1"]
    }

    public func play(_ request: PlayRequest) async -> PlayerReport {
        await playback(request).report
    }

    /// A run's report and what ffmpeg printed, for callers that check more than the report says
    /// (the preset playback tests look for particular messages and count frames).
    public struct Playback: Sendable {
        public var report: PlayerReport
        /// ffmpeg's stderr as it was read (`-v repeat+level+info`: `[hls @ 0x…] [warning] …`;
        /// `FFmpegLog.split` takes a line apart). Empty when ffmpeg did not run.
        public var stderr: [LogLine]
        /// Video frames decoded (the last `frame=` of `-progress`), when ffmpeg printed one.
        public var frames: Int?

        public init(report: PlayerReport, stderr: [LogLine] = [], frames: Int? = nil) {
            self.report = report; self.stderr = stderr; self.frames = frames
        }
    }

    /// Plays like `play` and also hands back ffmpeg's own output.
    public func playback(_ request: PlayRequest) async -> Playback {
        var output: (stderr: [LogLine], frames: Int?) = ([], nil)
        let report = await playInstalled {
            let arguments = arguments(url: request.url, pickyOption: await supportsExtensionPicky(), proxy: request.proxy)
            return try await PlayerProcess.run(.init(executable, arguments, timeout: request.timeout), in: request.workDirectory, name: name)
        } read: { run, version in
            let parsed = FFmpegLog.parse(stderr: run.stderr, progress: run.stdout)
            output = (run.stderr, parsed.frames)
            var facts = parsed.facts
            if !run.timedOut, run.result.status == 0, parsed.videoOutput, (parsed.frames ?? 0) == 0 {
                facts.fatal = "no video frame decoded" + OutcomeRules.detail(facts.lastError)
            }
            let (stalls, outcome) = run.judge(facts, request: request, stallThreshold: stallThreshold)
            return run.report(player: name, version: version, facts: facts, stalls: stalls, outcome: outcome, log: run.stderr)
        }
        return Playback(report: report, stderr: output.stderr, frames: output.frames)
    }

    private static let pickyCache = ProbeCache<Bool>()
    private static let hlsCache = ProbeCache<Bool>()

    /// `-extension_picky` appeared in ffmpeg 5.1.5 / 6.1 (lavf refuses segments with other extensions).
    func supportsExtensionPicky() async -> Bool {
        await Self.pickyCache.value(executable) {
            let help = await ToolProbe.run(executable, ["-hide_banner", "-h", "demuxer=hls"])
            return (help?.stdout ?? "").contains("extension_picky")
        }
    }

    func hasHLSDemuxer() async -> Bool {
        await Self.hlsCache.value(executable) {
            let help = await ToolProbe.run(executable, ["-hide_banner", "-h", "demuxer=hls"])
            return (help?.stdout ?? "").contains("Demuxer hls")
        }
    }
}
