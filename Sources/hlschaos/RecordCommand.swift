import ArgumentParser
import Chaos
import Foundation
import BundleFormat
import Recorder
import Upstream

/// `hlschaos record URL --out BUNDLE [--for 10m] [--variants …] [--archive] [--redact] [--max-size …]`:
/// fetches a stream like a player would and keeps every response, as received, in a bundle.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a stream as a player fetches it, into a bundle that hlschaos replay serves again.",
        discussion: """
            Fetches URL (a master playlist, or a media playlist), loads every variant, rendition and \
            I-frame playlist it names and reloads them while they are live (the target duration after \
            a load that changed the playlist, half of it after one that did not), and fetches the \
            segments, keys and init sections of the chosen variants and of their groups' renditions, \
            --parallel at a time. Every response is kept as received — status, headers, body, timings — \
            and so is every failure (error statuses, timeouts, resets). A VOD is recorded once, whole; \
            a live stream until --for is up. Ctrl-C (or SIGTERM) stops and keeps what was recorded; \
            a second Ctrl-C stops without waiting for the requests under way. A progress line goes to \
            stderr every few seconds. See docs/recordings.md for the bundle format.
            """)

    @Argument(help: "The http(s) URL of the master (multivariant) playlist, or of a media playlist.")
    var url: String

    @Option(name: .customLong("for"), help: ArgumentHelp(
        "How long to record: 90s, 10m, 1h (default: a VOD until it is whole, a live stream until Ctrl-C).",
        valueName: "duration"))
    var duration: String?

    @Option(help: ArgumentHelp("The bundle to write: a new directory, or a new .tar file with --archive.", valueName: "path"))
    var out: String

    @Option(help: ArgumentHelp(
        "Whose segments, keys and init sections to fetch: all, top (highest bandwidth), bottom (lowest), or indexes from 0 as `hlschaos inspect` lists them, comma-separated (0,2). Every playlist is recorded either way.",
        valueName: "list"))
    var variants = "all"

    @Flag(help: "Write the bundle as one .tar file (the same files; tar -xf unpacks it).")
    var archive = false

    @Flag(help: "Drop cookies, Authorization and query tokens (except _HLS_ directives) before anything is written.")
    var redact = false

    @Option(name: .customLong("max-size"), help: ArgumentHelp(
        "Stop when the bundle would grow past this size: 500MB, 2GB (K, M, G are powers of 1024).", valueName: "size"))
    var maxSize: String?

    @Option(help: ArgumentHelp("Segments, keys and init sections fetched at once (1–32).", valueName: "count"))
    var parallel = 4

    @Option(help: ArgumentHelp(
        "Time allowed for a response head and for a whole playlist; a segment may take 6 times as long (at least 60s).",
        valueName: "duration"))
    var timeout = "10s"

    @Option(name: .customLong("progress-every"), help: ArgumentHelp("Seconds between progress lines.", valueName: "duration", visibility: .hidden))
    var progressEvery = "5s"

    func run() async throws {
        let settings = try settings()
        let cap = try sizeCap()
        let progressInterval = try positiveDuration(progressEvery, option: "--progress-every")
        let destination = URL(fileURLWithPath: out)
        let writer: BundleWriter
        do {
            writer = try BundleWriter(destination: destination, source: .record, entry: url, redact: redact,
                                      sizeCap: cap, archive: archive)
        } catch {
            throw CLIError("--out \(error.description)")
        }
        let client: UpstreamClient
        do {
            client = try UpstreamClient(configuration: UpstreamConfiguration(
                connectTimeout: min(settings.timeout, .seconds(10)), firstByteTimeout: settings.timeout,
                maxConnectionsPerHost: max(8, settings.parallelism + 4), userAgentFallback: "hlschaos-record"))
        } catch {
            removeBundle(writer)
            throw CLIError("cannot start the HTTP client: \(error)")
        }
        let recorder = StreamRecorder(client: client, writer: writer, settings: settings)
        let what = settings.duration.map { "for \(ValueSyntaxText.duration($0))" } ?? "until the stream ends or Ctrl-C"
        tell("recording \(url) into \(out) \(what)")

        let stopping = Stopping()
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { signal in
            let name = SignalWatcher.name(signal)
            if stopping.begin() {
                tell("received \(name): stopping; requests under way get \(Int(settings.grace.seconds))s to finish (again to stop at once)")
                recorder.stop("interrupted by \(name)")
            } else {
                tell("received \(name) again: stopping now")
                recorder.stop("interrupted by \(name)")
            }
        }
        defer { signals.cancel() }
        let started = ContinuousClock.now
        let progress = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: progressInterval)
                if Task.isCancelled { break }
                tell(Self.progressLine(recorder.tally.counts, elapsed: ContinuousClock.now - started))
            }
        }
        let ending: StreamRecorder.Ending
        do {
            ending = try await recorder.run { plan in tell(Self.describe(plan)) }
        } catch {
            progress.cancel()
            await client.shutdown()
            removeBundle(writer)
            throw CLIError("\(error.description)\nnothing was kept (\(out) was removed)")
        }
        progress.cancel()
        await client.shutdown()
        let manifest: BundleManifest
        do {
            manifest = try writer.finish(stopReason: ending.manifestReason)
        } catch {
            throw CLIError("the bundle could not be finished: \(error.description)")
        }
        let counts = recorder.tally.counts
        let elapsed = ContinuousClock.now - started
        switch ending {
        case .complete: tell("done: \(ending)")
        case .durationReached(let whole): tell("\(whole ? "done" : "stopped"): \(ending) (--for \(duration ?? ""))")
        case .stopped, .sizeCap: tell("stopped: \(ending); the bundle holds everything recorded until then")
        case .writeFailed: break
        }
        tell(Self.progressLine(counts, elapsed: elapsed))
        var closing = "\(out): \(manifest.exchangeCount) exchanges, \(manifest.bodyCount) distinct bodies, \(ByteSize.text(manifest.bodyBytes))"
        if counts.skipped > 0 { closing += "; \(counts.skipped) media left out because the recorder fell behind the live stream" }
        tell(closing)
        tell("see it with: hlschaos inspect \(out)")
        if case .writeFailed(let reason) = ending {
            throw CLIError("the recording stopped because the bundle could not be written: \(reason)")
        }
    }

    // MARK: - Arguments

    private func settings() throws -> StreamRecorder.Settings {
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let parsed = URL(string: url), parsed.host != nil else {
            throw CLIError("\(url) is not an http(s) URL: give the URL of a master or media playlist, e.g. https://cdn.example.com/live/master.m3u8")
        }
        var settings = StreamRecorder.Settings(entry: url)
        if let duration {
            settings.duration = try positiveDuration(duration, option: "--for")
        }
        do {
            settings.variants = try VariantChoice.parse(variants)
        } catch {
            throw CLIError(error.description)
        }
        guard (1...32).contains(parallel) else {
            throw CLIError("--parallel \(parallel): give a number of connections from 1 to 32")
        }
        settings.parallelism = parallel
        settings.timeout = try positiveDuration(timeout, option: "--timeout")
        settings.mediaTimeout = max(.seconds(60), settings.timeout * 6)
        return settings
    }

    private func sizeCap() throws -> Int? {
        guard let maxSize else { return nil }
        guard let bytes = ByteSize.parse(maxSize) else {
            throw CLIError("--max-size \(maxSize): not a size; write it like 500MB or 2GB")
        }
        guard bytes >= 64 * 1024 else {
            throw CLIError("--max-size \(maxSize): too small to hold a playlist and a segment; give at least 64KB")
        }
        return bytes
    }

    private func positiveDuration(_ text: String, option: String) throws -> Duration {
        guard let value = commandLineDuration(text) else {
            throw CLIError("\(option) \(text): not a duration; write it like 90s, 10m or 1h")
        }
        guard value > .zero else { throw CLIError("\(option) \(text): give a duration above zero") }
        return value
    }

    /// Removes what the writer made (the entry could not be recorded: nothing worth keeping).
    private func removeBundle(_ writer: BundleWriter) {
        _ = try? writer.finish()
        let files = FileManager.default
        try? files.removeItem(atPath: out)
        try? files.removeItem(atPath: out + ".partial")
    }

    // MARK: - Output

    static func describe(_ plan: StreamRecorder.Plan) -> String {
        guard plan.isMaster else { return "a media playlist: recording it and all of its media" }
        var text = "master: \(plan.variantCount) variant\(plan.variantCount == 1 ? "" : "s"), \(plan.renditionCount) rendition\(plan.renditionCount == 1 ? "" : "s"), \(plan.iFrameCount) I-frame playlist\(plan.iFrameCount == 1 ? "" : "s"); "
        text += "loading \(plan.playlists) playlist\(plan.playlists == 1 ? "" : "s"); "
        text += "media of variant\(plan.chosenVariants.count == 1 ? "" : "s") \(plan.chosenVariants.map(String.init).joined(separator: ", "))"
        if !plan.chosenRenditions.isEmpty { text += " and of \(plan.chosenRenditions.joined(separator: ", "))" }
        if plan.sessionData > 0 { text += "; \(plan.sessionData) session-data file\(plan.sessionData == 1 ? "" : "s")" }
        if let steering = plan.steeringServer { text += "; the steering manifest \(steering), at every TTL" }
        return text
    }

    static func progressLine(_ counts: RecordTally.Counts, elapsed: Duration) -> String {
        let seconds = Int(elapsed.seconds)
        var line = String(format: "%d:%02d", seconds / 60, seconds % 60)
        line += "  \(counts.requests) requests (\(counts.playlistLoads) playlist loads, \(counts.mediaFetches) media)"
        line += "  \(counts.failures) failed  \(ByteSize.text(counts.bytes))"
        if counts.queued > 0 { line += "  \(counts.queued) queued" }
        if counts.skipped > 0 { line += "  \(counts.skipped) skipped (behind)" }
        return line
    }
}

enum ValueSyntaxText {
    /// "10m", "90s", "1.5s".
    static func duration(_ value: Duration) -> String {
        let ms = Int64(value.seconds * 1000)
        if ms % 3_600_000 == 0 { return "\(ms / 3_600_000)h" }
        if ms % 60_000 == 0 { return "\(ms / 60_000)m" }
        if ms % 1000 == 0 { return "\(ms / 1000)s" }
        return String(format: "%gs", Double(ms) / 1000)
    }
}

/// A line on stderr: `record`'s progress and messages (its stdout stays empty).
private func tell(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
