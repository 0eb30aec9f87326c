import ArgumentParser
import Chaos
import Control
import Foundation
import Logging
import Players
import Proxy
import Runs

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Play scenarios with real players through the proxy and check their expectations.",
        discussion: """
            Starts the proxy (and the demo origin), opens a fresh session per scenario × player with the scenario, plays the session's URL with the player, then checks the scenario's "expect" list against the proxy's records of that session and what the player reported. Prints PASS/FAIL with the evidence; exits 0 when every expectation holds, 1 when any fails, 2 when a run could not happen (a missing player, a bad scenario).

            --via forward plays the demo as a device with a proxy setting does: the demo origin is served over HTTPS as \(RunHarness.demoHost), the player opens that URL with the proxy as its HTTP proxy and trusts a fresh local CA of the run's own, and the proxy intercepts the name (with --url: the URL's host). Cells then run one at a time (a cell's session is the players' address, 127.0.0.1). Players that can: \(PlayerCatalog.all.filter(\.playsThroughProxy).map(\.name).joined(separator: ", ")).

            --via https plays the proxy's own session URLs over TLS, as an app given an https:// proxy URL does: https://localhost:<port>/s/<session>/… on the proxy's HTTPS listener (HTTP/2 or HTTP/1.1 by ALPN), the player trusting a fresh local CA of the run's own. The same players can.

            Players: \(PlayerCatalog.names.joined(separator: ", ")), or a command with {url} in it (its exit status is the evidence), e.g. --player 'my-player --url {url}'. A command is named after its program (my-player; a second one my-player-2) in verdicts, JUnit and reports, or as you name it: --player 'fast=my-player --fast --url {url}'. Expectations name every command "command".

            Examples:
              hlschaos run status-503 --player hlsjs --player ffmpeg --junit junit.xml
              hlschaos run stale-live-freeze --stream live --player gstreamer
              hlschaos run status-503 --via forward --player hlsjs --player ffmpeg
              hlschaos run reset-mid-segment --via https --player hlsjs
              hlschaos run my-scenario.json --url https://cdn.example.com/master.m3u8 --player hlsjs
            """)

    @Argument(help: "Presets by name, or rule files (.json) with an \"expect\" list.")
    var scenarios: [String]

    @Option(name: .customLong("player"), help: "A player to run (repeatable; default ffmpeg).")
    var players: [String] = []

    @Flag(help: "Play the embedded demo origin's stream (the default when --url is not given).")
    var demo = false

    @Option(help: "The demo stream: vod, live, ll (low-latency live, fmp4 only) or steering (live on two content-steering pathways) (default: what each preset names, else vod).")
    var stream: String?

    @Option(help: "The demo flavour: ts, fmp4, aes or byterange (default: what each preset names, else ts).")
    var flavour: String?

    @Option(help: "Play this playlist URL instead of the demo (through the proxy).")
    var url: String?

    @Option(help: ArgumentHelp("How players reach the proxy: reverse (its /s/<session>/ URLs), forward (the origin's https URL with the proxy as their HTTP proxy, TLS intercepted) or https (the /s/<session>/ URLs on its HTTPS listener, HTTP/2).", valueName: "reverse|forward|https"))
    var via: String = "reverse"

    @Option(help: "How long each player may run (60s, 2m); on the live stream a scenario with a play time (\"play\": {\"for\": …}, as the live presets) plays for that time.")
    var timeout: String = "60s"

    @Option(help: ArgumentHelp("Write JUnit XML: one testcase per scenario × player.", valueName: "FILE"))
    var junit: String?

    @Option(help: ArgumentHelp("Write every result as JSON.", valueName: "FILE"))
    var report: String?

    @Option(help: ArgumentHelp("Write a self-contained HTML page of the results.", valueName: "FILE"))
    var html: String?

    @Option(help: ArgumentHelp("Where each run's evidence goes (records, HAR, player log); default: a new folder in the temp directory.", valueName: "DIR"))
    var evidence: String?

    @Flag(help: "Check only the documented expectations, not the ones known for a player.")
    var documentedOnly = false

    @Option(help: "How many players run at once (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Folder of extra presets (added to the built-in ones, overriding them by name).")
    var presets: String?

    func run() async throws {
        try await ScenarioArguments.exit("run") { try await execute() }
    }

    private func execute() async throws -> Int32 {
        try ScenarioArguments.checkJobs(jobs)
        guard let route = RunRoute(rawValue: via) else {
            throw CLIError("--via \(via): choose reverse (the proxy's own URLs), forward (the proxy as the players' HTTP proxy) or https (the proxy's own URLs over TLS)")
        }
        if demo && url != nil { throw CLIError("--demo and --url: choose one stream") }
        if url != nil && (stream != nil || flavour != nil) { throw CLIError("--stream and --flavour choose a demo stream; they do not go with --url") }
        let seconds = try ScenarioArguments.seconds(timeout, option: "--timeout")
        let (book, logger) = try ScenarioArguments.presetBook(directory: presets)
        let scenarios = try ScenarioArguments.resolve(self.scenarios, rules: book)
        let drivers = try ScenarioArguments.drivers(players.isEmpty ? ["ffmpeg"] : players, option: "--player")
        let source: StreamSource
        do {
            source = try url.map(StreamSource.checkedURL) ?? StreamSource.checkedDemo(
                stream: stream ?? "vod", flavour: flavour ?? StreamSource.defaultFlavour(of: stream ?? "vod"))
        } catch {
            throw CLIError(String(describing: error))
        }
        let plans = try scenarios.flatMap { scenario in
            try drivers.map { driver in
                try StreamChoice.plan(
                    scenario: scenario, player: driver, source: source, stream: stream, flavour: flavour,
                    timeout: seconds, documentedOnly: documentedOnly)
            }
        }
        let output = URL(fileURLWithPath: evidence ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("hlschaos-run-\(Int(Date().timeIntervalSince1970))").path)
        do {
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        } catch {
            throw CLIError("--evidence \(output.path): cannot create it (\(error.localizedDescription))")
        }
        let harness: RunHarness
        do {
            harness = try await RunHarness.start(source: source, rules: book, logger: logger, via: route)
        } catch {
            throw CLIError(String(describing: error))
        }
        let colour = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        FileHandle.standardOutput.write(Data("hlschaos run: \(plans.count) run\(plans.count == 1 ? "" : "s") (\(scenarios.count) scenario\(scenarios.count == 1 ? "" : "s") × \(drivers.count) player\(drivers.count == 1 ? "" : "s")) on \(url == nil && stream == nil && flavour == nil ? "the demo (each scenario's own stream, else VOD ts)" : source.description)\(route == .forward ? " through the forward proxy" : route == .https ? " over HTTPS (\(harness.proxyURL))" : ""), \(jobsText(harness)); evidence in \(output.path)\n".utf8))
        for case let custom as CommandDriver in drivers {
            FileHandle.standardOutput.write(Data("  \(custom.name): \(custom.template.text)\n".utf8))
        }
        let started = Date()
        let results = await ChaosRun.run(plans, harness: harness, evidence: EvidenceLocation(root: output), jobs: jobs, creatorVersion: ControlConfiguration().version) { result in
            guard !Task.isCancelled else { return }  // a player stopped by the interrupt: not a finding
            FileHandle.standardOutput.write(Data((VerdictText.cell(result, colour: colour) + "\n").utf8))
        }
        await harness.stop()
        if Task.isCancelled { return 130 }
        let elapsed = Date().timeIntervalSince(started)
        let summary = VerdictText.summary(results, seconds: elapsed)
        FileHandle.standardOutput.write(Data((summary + "\n").utf8))
        try write(results, summary: summary, seconds: elapsed, started: started, evidence: output)
        return ChaosRun.exitCode(results)
    }

    private func jobsText(_ harness: RunHarness) -> String {
        guard let limit = harness.concurrentCells, limit < jobs else { return "\(jobs) at a time" }
        return "\(limit) at a time (--via forward: a cell's session is the players' address)"
    }

    private func write(_ results: [CellResult], summary: String, seconds: Double, started: Date, evidence: URL) throws {
        if let junit {
            try save(JUnitWriter.xml(results, seconds: seconds, timestamp: started), to: junit, option: "--junit")
        }
        if let report {
            let data = (try? RunReportFile.encode(results, summary: summary, evidence: evidence.path)) ?? Data()
            try save(String(decoding: data, as: UTF8.self), to: report, option: "--report")
        }
        if let html {
            try save(RunHTML.page(results, title: "hlschaos run", summary: summary), to: html, option: "--html")
        }
    }

    private func save(_ text: String, to path: String, option: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw CLIError("\(option) \(path): cannot write it (\(error.localizedDescription))")
        }
    }
}
