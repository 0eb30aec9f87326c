import Foundation
import PlayerReports

/// GStreamer's playbin with fake sinks that, for a VOD, do not wait for the clock (it plays as
/// fast as it downloads; a live stream plays at the clock's pace):
///
///     GST_DEBUG=1,souphttpsrc:2,adaptivedemux:2,adaptivedemux2:2,hlsdemux:4,hlsdemux2:4,hls:4,hlsng:4
///     GST_PLUGIN_FEATURE_RANK=hlsdemux:NONE       (gstreamer: playbin3 → hlsdemux2)
///     GST_PLUGIN_FEATURE_RANK=hlsdemux2:NONE      (gstreamer-legacy: playbin → hlsdemux)
///     stdbuf -oL gst-launch-1.0 -v playbin3|playbin uri=URL
///         video-sink="fakesink name=hlschaos_video sync=false silent=false" audio-sink="fakesink sync=false"
///         (sync=true for live)
///
/// Each variant forces its demuxer by ranking the other one out, so the report's version names the
/// demuxer that actually ran (read from the log). hlsdemux2 retries a failing segment in a tight
/// loop without posting an error: such a run ends at the time limit as `stalled`.
public struct GStreamerDriver: PlayerDriver {
    public enum Pipeline: String, Sendable {
        /// playbin3 → uridecodebin3 → hlsdemux2 (adaptivedemux2).
        case playbin3
        /// playbin → uridecodebin → decodebin → legacy hlsdemux.
        case legacy

        var element: String { self == .playbin3 ? "playbin3" : "playbin" }
        var demuxer: String { self == .playbin3 ? "hlsdemux2" : "hlsdemux" }
        /// The other HLS demuxer, ranked out.
        var rankedOut: String { self == .playbin3 ? "hlsdemux" : "hlsdemux2" }
    }

    public var pipeline: Pipeline
    public var executable: String
    public var inspector: String
    public var stallThreshold: Double

    public init(
        _ pipeline: Pipeline = .playbin3, executable: String = "gst-launch-1.0", inspector: String = "gst-inspect-1.0",
        stallThreshold: Double = Stalls.defaultThreshold
    ) {
        self.pipeline = pipeline; self.executable = executable; self.inspector = inspector; self.stallThreshold = stallThreshold
    }

    public var name: String { pipeline == .playbin3 ? "gstreamer" : "gstreamer-legacy" }
    public var lowLatency: LowLatencyPlayback {
        switch pipeline {
        case .playbin3:
            return .wholeSegments(reason: "hlsdemux2 of GStreamer 1.22 ignores EXT-X-PART: whole segments and plain reloads")
        case .legacy:
            return .wholeSegments(reason: "legacy hlsdemux of GStreamer 1.22 ignores EXT-X-PART, and plays no fMP4 live stream here")
        }
    }

    public var contentSteering: ContentSteeringPlayback {
        .ignores(reason: "GStreamer 1.22's HLS demuxers ignore EXT-X-CONTENT-STEERING: they never load the steering manifest")
    }

    public var summary: String {
        pipeline == .playbin3
            ? "GStreamer playbin3 with hlsdemux2 (adaptivedemux2), fake sinks, faster than real time"
            : "GStreamer playbin with the legacy hlsdemux, fake sinks, faster than real time"
    }

    static let install =
        "apt-get install -y gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav"

    static let debugLevels = "1,souphttpsrc:2,adaptivedemux:2,adaptivedemux2:2,hlsdemux:4,hlsdemux2:4,hls:4,hlsng:4"

    public func availability() async -> PlayerAvailability {
        for tool in [executable, inspector] where ProcessRunner.which(tool) == nil {
            return .missing(reason: "\(tool) is not installed", install: Self.install)
        }
        guard let version = await ToolProbe.firstLine(executable, ["--version"]) else {
            return .missing(reason: "\(executable) --version failed", install: Self.install)
        }
        for element in [pipeline.element, pipeline.demuxer] {
            guard let inspected = await ToolProbe.run(inspector, [element]), inspected.status == 0 else {
                return .missing(reason: "the GStreamer element \(element) is not installed (gst-inspect-1.0 \(element))", install: Self.install)
            }
        }
        return .ready(version: version)
    }

    var environment: [String: String] {
        [
            "GST_DEBUG": Self.debugLevels, "GST_DEBUG_NO_COLOR": "1",
            "GST_PLUGIN_FEATURE_RANK": "\(pipeline.rankedOut):NONE",
        ]
    }

    /// VOD: sinks that do not wait for the clock. Live: sinks that do (without a clock the sinks
    /// drain the queues as soon as they fill, and gst-launch pauses the pipeline to rebuffer again
    /// and again: legacy hlsdemux then shows stalls that a real player would not have).
    func arguments(url: String, live: Bool = false) -> [String] {
        let sync = live ? "true" : "false"
        return [
            "-v", pipeline.element, "uri=\(url)",
            "video-sink=fakesink name=\(GStreamerLog.videoSink) sync=\(sync) silent=false",
            "audio-sink=fakesink sync=\(sync)",
        ]
    }

    /// gst-launch prints with stdio, fully buffered into a file: `stdbuf -oL` makes it line-buffered
    /// so that lines arrive (and are timed) when printed, and none is lost when it is stopped.
    func command(url: String, live: Bool) -> (executable: String, arguments: [String]) {
        let arguments = arguments(url: url, live: live)
        guard ProcessRunner.which("stdbuf") != nil else { return (executable, arguments) }
        return ("stdbuf", ["-oL", executable] + arguments)
    }

    public func play(_ request: PlayRequest) async -> PlayerReport {
        await playInstalled {
            let command = command(url: request.url, live: request.live)
            return try await PlayerProcess.run(
                .init(command.executable, command.arguments, environment: environment, timeout: request.timeout),
                in: request.workDirectory, name: name)
        } read: { run, version in
            read(run, version: version, request: request)
        }
    }

    private func read(_ run: PlayerProcess.Run, version: String, request: PlayRequest) -> PlayerReport {
        let parsed = GStreamerLog.parse(stdout: run.stdout, stderr: run.stderr)
        let facts = parsed.facts
        // Reasons quote errors with a status or fatal ones, not warnings such as a missing
        // subtitle plug-in.
        var judged = facts
        judged.errors = facts.errors.filter { $0.fatal || $0.code != nil }
        // Unsynced (VOD), a rebuffer is only the network slower than decoding: progress decides.
        let (stalls, judgement) = run.judge(judged, request: request, stallThreshold: stallThreshold, rebuffering: request.live)
        var outcome = judgement
        if outcome.outcome == .stalled || outcome.outcome == .timedOut {
            var state: [String] = []
            if !parsed.playing { state.append("the pipeline never reached PLAYING") }
            if let buffering = parsed.buffering, buffering < 100 { state.append("buffering at \(buffering)%") }
            if !state.isEmpty { outcome.reason = (outcome.reason ?? "") + "; " + state.joined(separator: ", ") }
        }
        let engine = facts.engine.map { "\(pipeline.element) + \($0)" } ?? "\(pipeline.element) (no HLS demuxer seen in the log)"
        // Per-buffer lines are the bulk of the output; the work directory keeps them.
        return run.report(
            player: name, version: version, engine: engine, facts: facts, stalls: stalls, outcome: outcome,
            log: run.lines.filter { !$0.text.contains("last-message = ") })
    }
}
