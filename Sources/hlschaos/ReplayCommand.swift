import Addressing
import AppConfiguration
import ArgumentParser
import Foundation
import Logging
import Proxy
import BundleFormat
import Chaos
import HAR
import JSON
import Link
import Replay

/// `hlschaos replay BUNDLE`: the bundle served as an origin (`ReplayServer`), the proxy in front of
/// it as with `demo`, so rules, presets, sessions and the control API work on top.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Serve a recorded bundle as an origin, offline, with the proxy in front of it.",
        discussion: """
            BUNDLE is what `hlschaos record`, `--record` or `import-har` wrote (a directory or its .tar; \
            for import-har, its DIR or DIR/bundle: the field device's CMCD, DIR/player.json, is shown beside \
            each session's report). \
            A live recording plays as live again: its playlists advance on the recorded schedule, which \
            starts with the first request. Recorded failures (statuses, cut answers, resets, timeouts) \
            and slow answers recur. Prints the entry's URL through the proxy. Stop with Ctrl-C.
            Example: hlschaos replay rec.tar --from 12m --speed 2 --rules rules/status-503.json
            """)

    @Argument(help: "The bundle: a directory written by `hlschaos record` (or --record), or its .tar; or import-har's DIR (or DIR/bundle).")
    var bundle: String

    @Option(help: ArgumentHelp("Start this far into the recording: seconds, or 90s, 12m, 1h5m30s, 12:30.", valueName: "POSITION"))
    var from: String?

    @Option(help: ArgumentHelp("Run the recorded schedule this many times as fast (2, 0.5); recorded delays shrink alike.", valueName: "FACTOR"))
    var speed: String?

    @Flag(help: "At the end of the recording start over (at --from); a live stream goes on with a discontinuity.")
    var loop = false

    @Option(help: "Port of the replay origin itself (default: any free port on 127.0.0.1).")
    var originPort: Int = 0

    @OptionGroup var options: ProxyOptions

    func run() async throws {
        guard options.upstream == nil else {
            throw CLIError("--upstream is not used by replay: the bundle is the origin (to proxy a live origin use `hlschaos serve`)")
        }
        guard (0...65535).contains(originPort) else { throw CLIError("--origin-port \(originPort) is not a port number (0–65535)") }
        var replayOptions = ReplayOptions(loop: loop)
        do {
            if let from { replayOptions.from = try ReplayOptions.parseOffset(from) }
            if let speed { replayOptions.speed = try ReplayOptions.parseSpeed(speed) }
        } catch {
            throw CLIError(error.description)
        }
        // An import-har directory (or its bundle/) brings the field device's player along.
        let target = HARReplayTarget.resolve(bundle)
        let recording: RecordingBundle
        do {
            recording = try RecordingBundle.open(target.bundle)
        } catch {
            throw CLIError("cannot replay \(error.description)")
        }
        let origin: ReplayOrigin
        do {
            origin = try ReplayOrigin(bundle: recording, options: replayOptions)
        } catch {
            throw CLIError(error.description)
        }
        var proxyOptions = options
        let recordedLink = options.link?.trimmingCharacters(in: .whitespaces) == "recorded"
        if recordedLink { proxyOptions.link = nil }
        var settings = try proxyOptions.settings()
        if recordedLink { settings.proxy.link = try Self.recordedLink(recording, options: replayOptions) }
        settings.proxy.fieldPlayer = target.fieldPlayer
        let logger = makeLogger(settings.logLevel)
        let server: ReplayServer
        do {
            server = try await ReplayServer.start(origin: origin, host: "127.0.0.1", port: originPort, logger: logger)
        } catch {
            throw CLIError("cannot start the replay origin on 127.0.0.1:\(originPort): \(error)")
        }
        settings.proxy.defaultOrigin = UpstreamLocation(absolute: server.baseURL)
        let configuration = settings.proxy
        var runner = ProxyRunner(settings: settings, logger: logger, verbose: options.verbose)
        runner.control = try options.controlSetting(settings.control)
        do {
            try await runner.run { proxy, control in
                let banner = Self.banner(
                    origin: origin, originURL: server.baseURL, proxyPort: proxy.port, listenHost: configuration.host,
                    controlURL: control.map(\.url), controlNeedsToken: control?.configuration.token != nil,
                    httpsPort: proxy.httpsPort, forward: configuration.forward.enabled, fieldPlayer: target.words)
                FileHandle.standardOutput.write(Data((banner + "\n").utf8))
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// `--link recorded`: every session lives on the throughput the recording's device had
    /// (`ObservedThroughput`), from `--from` on, at `--speed`.
    static func recordedLink(_ recording: RecordingBundle, options: ReplayOptions) throws -> LinkChoice {
        guard let text = ObservedThroughput.csv(recording.exchanges, from: options.from, speed: options.speed) else {
            throw CLIError("--link recorded: \(recording.location) has no exchange whose body timings say how fast it arrived; give a link spec or a profile instead")
        }
        let spec: JSONValue = .object([JSONMember(key: "trace", value: .object([
            JSONMember(key: "text", value: .string(text)), JSONMember(key: "format", value: .string("csv")),
        ]))])
        do {
            return LinkChoice(spec: try LinkSpecReader.read(spec), from: "the recording's throughput (--link recorded)")
        } catch {
            throw CLIError("--link recorded: the throughput of \(recording.location) makes no trace: \(error.description)")
        }
    }

    static func banner(
        origin: ReplayOrigin, originURL: String, proxyPort: Int, listenHost: String, controlURL: String? = nil,
        controlNeedsToken: Bool = false, httpsPort: Int? = nil, forward: Bool = false, fieldPlayer: String? = nil
    ) -> String {
        let bundle = origin.bundle
        let manifest = bundle.manifest
        let hosts = ["localhost"] + (listenHost == "127.0.0.1" || listenHost == "localhost" ? [] : reachableAddresses())
        let kind = origin.isLive ? "live" : "VOD"
        let started = ISO8601DateFormatter().string(from: manifest.started)
        var lines = [
            "hlschaos replay: \(bundle.location): \(kind) recording of \(ReplayOptions.describe(seconds: origin.duration)), "
                + "\(bundle.exchanges.count) exchanges, recorded \(started) (\(manifest.source.rawValue))",
            "replay origin \(originURL), proxy on port \(proxyPort)",
            "",
            "  Entry \(origin.entryURL)",
        ]
        for url in entryURLs(hosts: hosts, proxyPort: proxyPort, httpsPort: httpsPort, path: origin.entryPath) { lines.append("    " + url) }
        if !origin.entryAtRoot {
            lines.append("  (recorded through an hlschaos proxy: its paths would read as this proxy's own, so its host is under /_host/)")
        }
        let others = origin.otherHosts
        if !others.isEmpty {
            lines.append("  Other recorded hosts, served at /_host/<host>/…: \(others.joined(separator: ", "))")
        }
        if let fieldPlayer { lines.append("  " + fieldPlayer) }
        lines.append("")
        let options = origin.options
        let speed = options.speed == 1 ? "" : " at \(ReplayOptions.describe(speed: options.speed)) speed"
        let start = options.from > 0 ? " from \(ReplayOptions.describe(seconds: options.from))" : ""
        if origin.isLive {
            let end = options.loop
                ? "at the end it starts over\(start.isEmpty ? "" : " at \(ReplayOptions.describe(seconds: options.from))"), the stream going on with a discontinuity"
                : "after the end the playlists stay at their last version"
            lines.append("The playlists follow the recorded schedule\(start)\(speed), starting with the first request; \(end).")
        } else {
            lines.append("Every resource is served in the order it was recorded (the n-th request gets the n-th answer)\(speed).")
        }
        lines += deviceHelp(
            example: hosts.dropFirst().first ?? "localhost", proxyPort: proxyPort, entryPath: origin.entryPath,
            controlURL: controlURL, controlNeedsToken: controlNeedsToken, httpsPort: httpsPort, forward: forward)
        return lines.joined(separator: "\n")
    }
}
