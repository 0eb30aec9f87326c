import Foundation
import Logging
import Players
import Proxy
import RuleLoading
import Records
@testable import Runs
import Testing
import TestSupport

/// `hlschaos run --via forward` with real players: the demo origin over HTTPS under a name only the
/// proxy resolves, the player told to use the proxy and to trust the run's fresh local CA (ffmpeg:
/// `-http_proxy -ca_file -tls_verify 1`; Chromium: `--proxy-server` and the root in its NSS
/// database, no certificate-error flag), and the presets' own expectations judged by the verdicts.
@Suite(.serialized) struct ForwardPlayerTests {
    static let ffmpeg = ProcessRunner.which("ffmpeg") != nil
    static let chromium = ["chromium", "chromium-browser", "google-chrome"].contains { ProcessRunner.which($0) != nil }
        && ProcessRunner.which("certutil") != nil

    struct Cell {
        var result: CellResult
        /// The session's records as the cell's evidence keeps them.
        var records: [RequestRecord]
        var detail: String {
            let failed = result.verdict?.results.filter { !$0.passed }.map { "\($0.expectation): \($0.observed)" } ?? []
            let cited = result.evidenceRecords.map { "\($0.id) \($0.status.map(String.init) ?? "-") \($0.method) \($0.path)" }
            return "\(result.name): \(result.status) \(result.problem ?? "") \(result.report?.outcomeText ?? "") \(failed)\n"
                + "cited: \(cited)\n"
                + records.prefix(80).map { "\($0.status.map(String.init) ?? "-") \($0.httpVersion ?? "-") \($0.method) \($0.path)" }.joined(separator: "\n")
        }
    }

    /// Every preset × player through one forward harness, as `hlschaos run --via forward` does.
    static func run(_ presets: [String], _ players: [any PlayerDriver], via route: RunRoute = .forward, jobs: Int = 4) async throws -> [Cell] {
        let logger = Logger(label: "forward-player-tests")
        let book = try RuleBook(ruleFiles: [], presetDirectory: nil, logger: logger)
        let plans = try presets.flatMap { name in
            let scenario = try #require(book.preset(named: name))
            return try players.map {
                try StreamChoice.plan(
                    scenario: scenario, player: $0, source: .demo(stream: "vod", flavour: "ts"), stream: nil, flavour: nil,
                    timeout: 120, documentedOnly: false)
            }
        }
        return try await withTemporaryFolder("forward-run") { evidence in
            let harness = try await RunHarness.start(source: .demo(stream: "vod", flavour: "ts"), rules: book, logger: logger, via: route)
            let results = await ChaosRun.run(plans, harness: harness, evidence: EvidenceLocation(root: evidence.url), jobs: jobs, creatorVersion: "test")
            await harness.stop()
            return results.map { result in
                let file = evidence.url(result.session).appendingPathComponent("records.jsonl")
                let lines = (try? String(contentsOf: file, encoding: .utf8))?.split(separator: "\n") ?? []
                let decoder = RecordTime.jsonDecoder()
                return Cell(result: result, records: lines.compactMap { try? decoder.decode(RequestRecord.self, from: Data($0.utf8)) })
            }
        }
    }

    /// The preset's faults reached the player over intercepted HTTPS, and its expectations hold.
    /// Records also hold the `CONNECT`s themselves and, for Chromium, its own background requests
    /// (Google and search hosts, 502 offline), filed under the cell's session as a device's are.
    static func check(_ cell: Cell, faultStatus: Int) {
        let stream = cell.records.filter { $0.path.hasPrefix("https://\(RunHarness.demoHost):") }
        #expect(cell.result.status == .passed, "\(cell.detail)")
        #expect(stream.count > 10, "\(cell.detail)")
        #expect(!cell.records.contains { $0.path.hasPrefix("http://\(RunHarness.demoHost)") }, "\(cell.detail)")
        #expect(cell.records.contains { $0.method == "CONNECT" && $0.path.hasPrefix("\(RunHarness.demoHost):") && $0.status == 200 }, "\(cell.detail)")
        #expect(stream.contains { $0.status == faultStatus && $0.isFaulted }, "\(cell.detail)")
        #expect(stream.contains { $0.kind == .segment && ($0.status == 200 || $0.status == 206) }, "\(cell.detail)")
    }

    @Test(.enabled(if: ffmpeg, "ffmpeg is missing"))
    func ffmpegPlaysTheHTTPSDemoThroughTheForwardProxy() async throws {
        let cells = try await Self.run(["status-503", "variant-gone-410"], [FFmpegDriver()])
        try #require(cells.count == 2)
        Self.check(cells[0], faultStatus: 503)
        Self.check(cells[1], faultStatus: 410)
        // ffmpeg offers no ALPN: HTTP/1.1 inside the tunnel.
        #expect(cells.allSatisfy { $0.records.allSatisfy { $0.httpVersion == "HTTP/1.1" } }, "\(cells.map(\.detail))")
        // It ranges its segment requests: 206 through the tunnel too.
        #expect(cells.allSatisfy { $0.records.contains { $0.kind == .segment && $0.status == 206 } }, "\(cells.map(\.detail))")
    }

    @Test(.enabled(if: chromium, "Chromium or certutil (libnss3-tools) is missing"))
    func hlsjsPlaysTheHTTPSDemoOverHTTP2ThroughTheForwardProxy() async throws {
        let cells = try await Self.run(["status-503", "variant-gone-410"], [BrowserDriver.hlsjs])
        try #require(cells.count == 2)
        Self.check(cells[0], faultStatus: 503)
        Self.check(cells[1], faultStatus: 410)
        for cell in cells {
            let segments = cell.records.filter { $0.kind == .segment && $0.path.hasPrefix("https://") }
            #expect(!segments.isEmpty && segments.allSatisfy { $0.httpVersion == "HTTP/2" }, "\(cell.detail)")
        }
    }

    /// `--via https`: the proxy's own session URLs on its HTTPS listener, the root trusted as
    /// above. Chromium negotiates HTTP/2 with it; ffmpeg (no ALPN) speaks HTTP/1.1.
    @Test(.enabled(if: chromium && ffmpeg, "Chromium, certutil or ffmpeg is missing"))
    func playersPlayTheSessionURLsOnTheHTTPSListener() async throws {
        let cells = try await Self.run(["status-503"], [BrowserDriver.hlsjs, FFmpegDriver()], via: .https, jobs: 2)
        try #require(cells.count == 2)
        for cell in cells {
            #expect(cell.result.status == .passed, "\(cell.detail)")
            #expect(cell.result.url.hasPrefix("https://localhost:"), "\(cell.result.url)")
            #expect(cell.records.contains { $0.kind == .segment && $0.status == 503 && $0.isFaulted }, "\(cell.detail)")
            #expect(!cell.records.contains { $0.method == "CONNECT" }, "\(cell.detail)")
        }
        let segments = { (cell: Cell) in cell.records.filter { $0.kind == .segment } }
        #expect(!segments(cells[0]).isEmpty && segments(cells[0]).allSatisfy { $0.httpVersion == "HTTP/2" }, "\(cells[0].detail)")
        #expect(!segments(cells[1]).isEmpty && segments(cells[1]).allSatisfy { $0.httpVersion == "HTTP/1.1" }, "\(cells[1].detail)")
    }

    @Test func playersThatCannotUseAProxyAreNotRunThroughIt() async throws {
        let cells = try await Self.run(["status-503"], [GStreamerDriver(.playbin3), MPVDriver()])
        for cell in cells {
            #expect(cell.result.status == .couldNotRun)
            #expect(cell.result.problem?.contains("not supported with --via forward yet") == true, "\(cell.detail)")
            #expect(cell.result.problem?.contains("ffmpeg, hlsjs, vhs") == true, "\(cell.detail)")
        }
        #expect(cells.count == 2)
        let https = try await Self.run(["status-503"], [MPVDriver()], via: .https)
        #expect(https.first?.result.problem?.contains("not supported with --via https yet (hlschaos cannot give it the local CA's root to trust)") == true)
    }
}
