import Foundation
import PlayerReports

/// The browser players: `hlsjs` (hls.js 1.6.15, default configuration) and `vhs` (video.js 7.5.5
/// and its VHS 1.9.3 engine), each in headless Chromium driven by selenium from the embedded
/// `BrowserHarness`. The engine is fetched into `BrowserEngineCache` at first use.
///
/// A VOD plays muted at `rate` (8 by default: the 24 s demo takes about 3.5 s with either
/// engine) until it ends, fails or the time limit; a live stream plays at 1× until the limit.
public struct BrowserDriver: PlayerDriver {
    public var engine: BrowserEngine
    public var cache: BrowserEngineCache
    /// `playbackRate` for VOD; live streams play at 1 (faster would only wait at the live edge).
    public var rate: Double
    /// Seconds the watchdog gives beyond the run's limit: Chromium's start, the page, teardown.
    public var startupAllowance: Double

    /// Where hls.js sends CMCD (docs/cmcd.md): every request says the player's buffer, throughput
    /// and state, so the proxy's player timeline has them. nil: none (VHS 1.9.3 has no CMCD).
    public var cmcd: CMCDCarriage?

    public enum CMCDCarriage: String, Sendable {
        /// A `CMCD=` query argument (hls.js's default when CMCD is on).
        case query
        /// The `CMCD-Object`, `-Request`, `-Session` and `-Status` headers.
        case headers
    }

    public init(engine: BrowserEngine, cache: BrowserEngineCache = .standard, rate: Double = 8, startupAllowance: Double = 60,
                cmcd: CMCDCarriage? = nil) {
        self.engine = engine; self.cache = cache; self.rate = rate; self.startupAllowance = startupAllowance
        self.cmcd = engine.id == BrowserEngine.hlsjs.id ? cmcd : nil
    }

    /// hls.js with CMCD on in query mode.
    public static var hlsjs: BrowserDriver { BrowserDriver(engine: .hlsjs, cmcd: .query) }
    public static var vhs: BrowserDriver { BrowserDriver(engine: .vhs) }
    public static var all: [BrowserDriver] { [hlsjs, vhs] }

    public var name: String { engine.id }
    /// Chromium's `--proxy-server`, with the proxy's root in the NSS database of a HOME of its own.
    public var playsThroughProxy: Bool { true }

    public var lowLatency: LowLatencyPlayback {
        engine.id == BrowserEngine.hlsjs.id
            ? .parts
            : .wholeSegments(reason: "VHS 1.9.3 ignores EXT-X-PART: whole segments and plain reloads")
    }

    public var contentSteering: ContentSteeringPlayback {
        engine.id == BrowserEngine.hlsjs.id
            ? .follows
            : .ignores(reason: "VHS 1.9.3 predates content steering: it never loads the steering manifest")
    }

    public var summary: String {
        switch engine.id {
        case BrowserEngine.hlsjs.id:
            return "hls.js 1.6.15 (default config; CMCD \(cmcd.map { "on, in \($0.rawValue) mode" } ?? "off")) in headless Chromium via selenium; fetched from the gradio 6.31.0 wheel on first use"
        case BrowserEngine.vhs.id:
            return "video.js 7.5.5 + VHS 1.9.3 (overrideNative) in headless Chromium via selenium; fetched from the js-videojs 7.5.5 sdist on first use"
        default:
            return "\(engine.label) in headless Chromium via selenium"
        }
    }

    /// Ready when Chromium, chromedriver and python3 with selenium are there and the engine is
    /// cached or could be fetched now (this may download it).
    public func availability() async -> PlayerAvailability {
        let tools: BrowserTools
        switch await BrowserTools.find() {
        case let .success(found): tools = found
        case let .failure(.missing(reason, install)): return .missing(reason: reason, install: install)
        }
        do {
            _ = try await BrowserEngineCache(directory: cache.directory, python: tools.python).ensure(engine)
        } catch let error as BrowserEngineCache.FetchError {
            return .missing(reason: error.description, install: error.install)
        } catch {
            return .missing(reason: "\(engine.label): \(error)", install: engine.pipCommand(into: cache.downloads.path))
        }
        return .ready(version: version(chromium: tools.chromiumVersion))
    }

    func version(chromium: String?) -> String {
        engine.label + (chromium.map { ", Chromium \($0)" } ?? "")
    }

    public func play(_ request: PlayRequest) async -> PlayerReport {
        await playback(request).report
    }

    /// A run's report and the page's own log it was read from.
    public struct Playback: Sendable {
        public var report: PlayerReport
        /// What the harness printed: every event the page logged (with the fields the report does
        /// not keep: fragments, playlist loads, sequence numbers), position samples, `ended`,
        /// `currentTime`. Nil when the harness printed no report (it could not start, or the
        /// watchdog stopped it); `harnessError` says when it ran but could not drive the browser.
        public var log: BrowserLog?

        public init(report: PlayerReport, log: BrowserLog?) { self.report = report; self.log = log }
    }

    /// Plays like `play` and also hands back the page's event log, for callers that check more
    /// than the report says (the preset playback tests read fragment loads and playlist reloads).
    public func playback(_ request: PlayRequest) async -> Playback {
        let started = Date()
        func failed(_ reason: String) -> Playback {
            Playback(report: PlayerReport(player: name, version: engine.label, outcome: .failed, reason: reason,
                                          seconds: Date().timeIntervalSince(started)), log: nil)
        }
        let tools: BrowserTools
        switch await BrowserTools.find() {
        case let .success(found): tools = found
        case let .failure(.missing(reason, install)): return failed("not available: \(reason) (install: \(install))")
        }
        let engineFile: URL
        do {
            engineFile = try await BrowserEngineCache(directory: cache.directory, python: tools.python).ensure(engine)
        } catch {
            return failed("not available: \(error)")
        }

        let directory = request.workDirectory
        let files = (
            harness: directory.appendingPathComponent(BrowserHarness.fileName),
            page: directory.appendingPathComponent("\(name)-page.html"),
            config: directory.appendingPathComponent("\(name)-config.json"),
            result: directory.appendingPathComponent("\(name)-result.json"),
            stderr: directory.appendingPathComponent("\(name)-harness.log"))
        let rate = request.live ? 1 : self.rate
        var environment = ["PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"]
        if let proxy = request.proxy {
            do {
                environment["HOME"] = try await BrowserTrust.home(trusting: proxy.caFile, in: directory).path
            } catch {
                return failed("cannot trust the proxy's root \(proxy.caFile): \(error)")
            }
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(BrowserHarness.script.utf8).write(to: files.harness)
            try Data(BrowserPages.page(for: engine, url: request.url, rate: rate, cmcd: cmcd).utf8).write(to: files.page)
            var config: [String: Any] = [
                "engine": engine.id, "url": request.url, "seconds": request.timeout, "live": request.live, "rate": rate,
                "page": files.page.path, "engineFile": engineFile.path, "engineName": engine.isModule ? "engine.mjs" : "engine.js",
                "output": files.result.path, "chromium": tools.chromium, "chromedriver": tools.chromedriver,
            ]
            if let url = request.proxy?.url { config["proxy"] = url }
            try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted, .sortedKeys]).write(to: files.config)
        } catch {
            return failed("cannot write the harness into \(directory.path): \(error)")
        }

        let run: ProcessRunner.Result
        do {
            run = try await ProcessRunner.run(.init(
                tools.python, [files.harness.path, files.config.path],
                environment: environment,
                workingDirectory: directory.path, timeout: request.timeout + startupAllowance))
        } catch {
            return failed("the browser harness could not start: \(error)")
        }
        if !run.stderr.isEmpty { try? Data(run.stderr.utf8).write(to: files.stderr) }
        let log = BrowserLog.parse(run.stdout)
        var report = BrowserReport.report(
            player: name, engine: engine, live: request.live, limit: request.timeout,
            run: .init(stdout: run.stdout, stderr: run.stderr, status: run.status, timedOut: run.timedOut, seconds: run.seconds),
            parsed: log)
        if report.version == engine.label { report.version = version(chromium: tools.chromiumVersion) }
        return Playback(report: report, log: log)
    }
}
