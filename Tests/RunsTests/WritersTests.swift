import Foundation
import Testing
import Chaos
import Players
import Records
@testable import Runs

@Suite struct VerdictTextTests {
    @Test func passLineSaysHowManyExpectationsHeldAndTheReaction() {
        let line = VerdictText.cell(CellFixtures.passed(), colour: false)
        #expect(line == "PASS   status-503 × hlsjs  (12.5 s)  1 expectation holds; retried ×1, played")
    }

    @Test func failureNamesTheExpectationTheObservationAndTheRecords() {
        let text = VerdictText.cell(CellFixtures.failed(), colour: false)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0] == "FAIL   status-503 × gstreamer  (12.5 s)  retried ×61; stalled")
        #expect(lines[1] == "       ✗ [gstreamer] retried the faulted resource at most 10 times")
        #expect(lines[2] == "         observed: 61 retries of segment 8 of variant 2 (503 ×61) <&>")
        #expect(lines[3].hasPrefix("         #7  ") && lines[3].contains("seg v2 n8") && lines[3].contains("503"))
        #expect(!text.contains("never requested a GAP segment"), "held expectations are not repeated")
        #expect(text.contains("player: stalled: buffering 0% for 50 s"))
        #expect(text.contains("evidence: evidence/status-503-gstreamer-1"))
    }

    /// The player's live latency, when it reported one, is shown beside its outcome.
    @Test func theLiveLatencyFollowsThePlayersOutcome() {
        var cell = CellFixtures.failed()
        cell.report?.liveLatency = .init(median: 1.9, min: 1.6, max: 2.1, last: 2.0, samples: 40, target: 1.218)
        let words = "player: stalled: buffering 0% for 50 s; live latency 1.9 s (median of 40 samples; 1.6–2.1 s, last 2.0 s, target 1.2 s)"
        #expect(VerdictText.cell(cell, colour: false).contains(words))
        #expect(RunHTML.page([cell], title: "t", summary: "s").contains(words))
        let matrix = PlayerMatrix(results: [cell], rows: [.init(scenario: "status-503", reference: nil, description: nil, stream: "ll")],
                                  players: ["gstreamer"], machine: "m", generated: CellFixtures.start)
        #expect(matrix.cells.first?.outcome == String(words.dropFirst("player: ".count)))
    }

    @Test func summaryCountsEachKind() {
        let summary = VerdictText.summary([CellFixtures.passed(), CellFixtures.failed(), CellFixtures.couldNotRun()], seconds: 61.2)
        #expect(summary == "1 passed, 1 failed, 1 could not run (3 runs, 61 s)")
        #expect(ChaosRun.exitCode([CellFixtures.passed(), CellFixtures.failed()]) == 1)
        #expect(ChaosRun.exitCode([CellFixtures.passed(), CellFixtures.couldNotRun()]) == 2)
        #expect(ChaosRun.exitCode([CellFixtures.passed()]) == 0)
    }

    /// A live scenario plays for its own play time, longer or shorter than the timeout (a link's
    /// plan is written for it); VOD, and live without a play time, take the timeout.
    @Test func aLiveScenarioPlaysForItsOwnTime() throws {
        func plan(_ play: String, timeout: Double) throws -> CellPlan {
            let scenario = try RuleDecoder.decode(Array(#"{"name": "s", "play": \#(play), "rules": [{"id": "r", "match": {"kind": "master"}, "action": {"delay": "1s"}}]}"#.utf8), file: "t.json")
            return try StreamChoice.plan(scenario: scenario, player: FFmpegDriver(), source: .demo(stream: "vod", flavour: "ts"),
                                         stream: nil, flavour: nil, timeout: timeout, documentedOnly: false)
        }
        #expect(try plan(#"{"stream": "live", "for": "110s"}"#, timeout: 90).timeout == 110)
        #expect(try plan(#"{"stream": "live", "for": "20s"}"#, timeout: 60).timeout == 20)
        #expect(try plan(#"{"stream": "live"}"#, timeout: 60).timeout == 60)
        #expect(try plan(#"{"stream": "vod"}"#, timeout: 45).timeout == 45)
    }

    /// An LL fault on a player that reads LL as ordinary live: not applicable, with the reason,
    /// in the terminal, JUnit (skipped), the matrix (·) and the exit code (not a failure).
    @Test func anLLFaultOnAPlayerThatDoesNotPlayLLIsNotApplicable() throws {
        let scenario = try RuleDecoder.decode(Array(#"{"name": "ll-part-404", "rules": [{"id": "r", "match": {"kind": "part"}, "action": {"status": 404}}]}"#.utf8), file: "t.json")
        let ffmpeg = CellPlan(scenario: scenario, player: FFmpegDriver(), path: "/ll/master.m3u8", live: true, timeout: 30)
        let reason = try #require(CellRunner.notApplicable(ffmpeg))
        #expect(reason.hasPrefix("plays LL-HLS as ordinary live: ffmpeg"))
        #expect(CellRunner.notApplicable(CellPlan(scenario: scenario, player: BrowserDriver.hlsjs, path: "/ll/master.m3u8", live: true, timeout: 30)) == nil,
                "hls.js plays LL as LL: judged as usual")
        #expect(CellRunner.notApplicable(CellPlan(scenario: scenario, player: FFmpegDriver(), path: "/live/ts/master.m3u8", live: true, timeout: 30)) == nil)

        var cell = CellFixtures.failed("ll-part-404", player: "ffmpeg")
        cell.status = .notApplicable
        cell.problem = reason
        cell.faultedRequests = 0
        #expect(VerdictText.cell(cell, colour: false).hasPrefix("N/A    ll-part-404 × ffmpeg"))
        #expect(VerdictText.summary([CellFixtures.passed(), cell], seconds: 30) == "1 passed, 0 failed, 0 could not run, 1 not applicable (2 runs, 30 s)")
        #expect(ChaosRun.exitCode([CellFixtures.passed(), cell]) == 0)
        #expect(JUnitWriter.xml([cell], seconds: 30, timestamp: CellFixtures.start).contains("<skipped message=\"plays LL-HLS as ordinary live: "))
        let matrix = PlayerMatrix(results: [cell], rows: [.init(scenario: "ll-part-404", reference: nil, description: nil, stream: "ll fmp4")],
                                  players: ["ffmpeg"], machine: "m", generated: CellFixtures.start)
        #expect(matrix.cells.first?.mark == .notReached)
        #expect(matrix.cells.first?.words.hasPrefix("fault not reached; plays LL-HLS as ordinary live") == true)
    }
}

@Suite struct PlayerMatrixTests {
    static let matrix = PlayerMatrix(
        results: [CellFixtures.passed(), CellFixtures.failed(), CellFixtures.couldNotRun(), CellFixtures.passed("gap", player: "hlsjs")],
        rows: [
            .init(scenario: "status-503", reference: "error-paths §1: 503 | temporary", description: "Segments 8-10 answer 503.", stream: "vod ts"),
            .init(scenario: "gap", reference: nil, description: nil, stream: "vod ts"),
        ],
        players: ["hlsjs", "gstreamer", "vlc"], machine: "2 cores, test CPU, Linux 6", generated: CellFixtures.start)

    @Test func marksDeparturesAndLinksEveryCellToItsEvidence() {
        let markdown = Self.matrix.markdown(pagesFolder: "player-matrix")
        let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| **") }
        #expect(rows.count == 2)
        #expect(rows[0].contains("✓ [retried ×1, played](player-matrix/status-503.md#hlsjs)"))
        #expect(rows[0].contains("✗ [retried ×61; stalled](player-matrix/status-503.md#gstreamer)"))
        #expect(rows[0].contains("! [vlc is not available"))
        #expect(rows[0].contains("error-paths §1: 503 \\| temporary"), "a | in a reference must not split the table")
        #expect(rows[1].hasSuffix("| ✓ [retried ×1, played](player-matrix/gap.md#hlsjs) |  |  |"))
        #expect(markdown.contains("gstreamer** (gstreamer 1.0)"))
        #expect(markdown.contains("1 ✓") == false)  // counts are spelled with their symbols
        #expect(markdown.contains("2 ✓, 1 ✗, 0 ·, 1 !"))
    }

    /// A player that never requested what the preset faults has nothing to be judged on.
    @Test func aFaultNeverReachedIsNotADeparture() {
        var unreached = CellFixtures.failed("status-503", player: "vhs")
        unreached.faultedRequests = 0
        let matrix = PlayerMatrix(
            results: [unreached], rows: [.init(scenario: "status-503", reference: nil, description: nil, stream: "vod ts")],
            players: ["vhs"], machine: "m", generated: CellFixtures.start)
        #expect(matrix.cells.first?.mark == .notReached)
        #expect(matrix.markdown(pagesFolder: "p").contains("| · [fault not reached; retried ×61; stalled](p/status-503.md#vhs) |"))
        #expect(VerdictText.cell(unreached, colour: false).contains("note: no request was faulted"))
    }

    @Test func evidencePagesCarryTheChecksRecordsAndLog() throws {
        let pages = Self.matrix.evidencePages()
        #expect(pages.map(\.name) == ["status-503", "gap"])
        let page = pages[0].markdown
        #expect(page.contains("<a id=\"gstreamer\"></a>\n## gstreamer ✗"))
        #expect(page.contains("- ✗ retried the faulted resource at most 10 times — observed: 61 retries"))
        #expect(page.contains("Records behind the departure:"))
        #expect(page.contains("status-503/top-msn8-10-503"))
        #expect(page.contains("End of the player's log:"))
    }

    /// A matrix run in parts (a family of presets, a row again after a fix) is published as one page.
    @Test func matricesOfSeveralRunsMergeIntoOnePage() throws {
        var first = PlayerMatrix(
            results: [CellFixtures.passed("status-503"), CellFixtures.passed("gap")],
            rows: [.init(scenario: "status-503", reference: nil, description: nil, stream: "vod ts"),
                   .init(scenario: "gap", reference: nil, description: nil, stream: "vod ts")],
            players: ["hlsjs"], machine: "machine A", generated: CellFixtures.start)
        first.columns[0].version = "hls.js 1.6.15, Chromium 156.1"
        var second = PlayerMatrix(
            results: [CellFixtures.failed("gap", player: "hlsjs"), CellFixtures.passed("ll-part-404", player: "ffmpeg")],
            rows: [.init(scenario: "gap", reference: nil, description: nil, stream: "vod ts"),
                   .init(scenario: "ll-part-404", reference: nil, description: nil, stream: "ll fmp4")],
            players: ["hlsjs", "ffmpeg"], machine: "machine B", generated: CellFixtures.start.addingTimeInterval(86_400))
        second.columns[0].version = "hls.js 1.6.15, Chromium 156.2"

        let (merged, notes) = PlayerMatrix.merged([first, second])
        #expect(merged.rows.map(\.scenario) == ["gap", "ll-part-404", "status-503"])
        #expect(notes == ["gap: the row of matrix 2 replaces that of matrix 1"])
        #expect(merged.cells.count == 3)
        #expect(merged.cell(scenario: "gap", player: "hlsjs")?.mark == .departs, "the later run's cell")
        #expect(merged.columns.map(\.player) == ["hlsjs", "ffmpeg"])
        #expect(merged.columns[0].version == "hls.js 1.6.15, Chromium 156.1 / hls.js 1.6.15, Chromium 156.2")
        #expect(merged.runs.map(\.presets) == [["status-503"], ["gap", "ll-part-404"]])
        #expect(merged.machine == "machine A; machine B")

        let markdown = merged.markdown(pagesFolder: "p")
        #expect(markdown.contains("Generated by `hlschaos matrix` in 2 runs merged with `--from-json`: 2027-01-15 08:00 UTC, machine A (1 preset); 2027-01-16 08:00 UTC, machine B (2 presets)."), "\(markdown)")
        #expect(markdown.contains("2 ✓, 1 ✗, 0 ·, 0 !"))
        let page = try #require(merged.evidencePages().first { $0.name == "status-503" })
        #expect(page.markdown.contains("From the run of 2027-01-15 08:00 UTC on machine A."))
        #expect(merged.html().contains("in 2 runs merged with --from-json"))

        // Runs on one machine name it once.
        var sameMachine = second
        sameMachine.machine = "machine A"
        #expect(PlayerMatrix.merged([first, sameMachine]).matrix.markdown(pagesFolder: "p").contains(
            "in 2 runs on machine A merged with `--from-json`: 2027-01-15 08:00 UTC (1 preset); 2027-01-16 08:00 UTC (2 presets)."))

        // What it was made of survives its matrix.json and a second merge.
        let decoded = try RecordTime.jsonDecoder().decode(PlayerMatrix.self, from: RecordTime.jsonEncoder(pretty: true).encode(merged))
        #expect(decoded.runs == merged.runs)
        #expect(PlayerMatrix.merged([decoded]).matrix.runs == merged.runs)
        // A matrix of one run says nothing of runs.
        #expect(first.markdown(pagesFolder: "p").contains("Generated by `hlschaos matrix` on 2027-01-15, machine A."))
        #expect(!first.evidencePages()[0].markdown.contains("From the run of"))
    }

    /// The link-* rows get a section of their own whose cells show the adaptation figures whole,
    /// not the 70 characters of the reaction an error path's cell shows.
    @Test func linkRowsShowTheAdaptationFigures() throws {
        let matrix = PlayerMatrix(
            results: [CellFixtures.passed(), CellFixtures.failed(), CellFixtures.linked(), CellFixtures.linked(player: "vhs")],
            rows: [.init(scenario: "status-503", reference: nil, description: nil, stream: "vod ts"),
                   .init(scenario: "link-drop-below-lowest", reference: "error-paths §5: bandwidth cap", description: nil, stream: "live ts")],
            players: ["hlsjs", "gstreamer", "vhs"], machine: "m", generated: CellFixtures.start)
        let figures = "went down 2.3 s after the link fell below variant 2; back up 16.6 s after it recovered; 1 stall, 9.8 s; used 76 % of the link; 3 switches (3.05 a minute); 1.5 s on a variant the link could not carry"
        #expect(matrix.cell(scenario: "link-drop-below-lowest", player: "hlsjs")?.figures == figures)
        #expect(matrix.cell(scenario: "status-503", player: "hlsjs")?.figures == nil)

        let markdown = matrix.markdown(pagesFolder: "p")
        let sections = markdown.components(separatedBy: "## Adaptation to the link")
        try #require(sections.count == 2, "\(markdown)")
        #expect(!sections[0].contains("link-drop-below-lowest"), "the link row is not among the error paths")
        #expect(sections[0].contains("| error path | hlsjs | gstreamer | vhs |"))
        #expect(sections[1].contains("| link | hlsjs | vhs |"), "only the players that played the link rows")
        #expect(sections[1].contains("| ✓ [\(figures)](p/link-drop-below-lowest.md#hlsjs)<br><sub>player: played</sub> |"), "\(sections[1])")

        let html = matrix.html()
        #expect(html.contains("<h2>Adaptation to the link</h2>"))
        #expect(html.contains("<summary>✓ \(figures)</summary><div>down-switch 2→0 → up-switch 0→2; played; "))

        // The figures survive matrix.json, and a matrix.json written before them still reads.
        let decoded = try RecordTime.jsonDecoder().decode(PlayerMatrix.self, from: RecordTime.jsonEncoder(pretty: true).encode(matrix))
        #expect(decoded.cell(scenario: "link-drop-below-lowest", player: "vhs")?.figures == figures)
        var old = try #require(JSONSerialization.jsonObject(with: RecordTime.jsonEncoder().encode(Self.matrix)) as? [String: Any])
        old["cells"] = (old["cells"] as? [[String: Any]])?.map { $0.filter { $0.key != "figures" } }
        let earlier = try RecordTime.jsonDecoder().decode(PlayerMatrix.self, from: JSONSerialization.data(withJSONObject: old))
        #expect(!earlier.markdown(pagesFolder: "p").contains("## Adaptation to the link"))
    }

    @Test func theLoadPlayersRanUnderIsSaidInWords() {
        #expect(MachineDescription.loadWords([2.94, 1.23, 3.4]) == "1-minute load average 1.2–3.4 during the run")
        #expect(MachineDescription.loadWords([2.0, 2.04]) == "1-minute load average 2.0 during the run")
        #expect(MachineDescription.loadWords([]) == nil)
    }

    @Test func htmlIsSelfContained() {
        let html = Self.matrix.html()
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(!html.contains("<script"), "no script")
        #expect(!html.contains("src=\"http"), "nothing fetched")
        #expect(html.contains("&lt;&amp;&gt;"), "observations are escaped")
        #expect(html.contains("class=\"cell-departs\""))
    }

    @Test func runPageListsEveryCell() {
        let html = RunHTML.page([CellFixtures.passed(), CellFixtures.failed()], title: "hlschaos run", summary: "1 passed, 1 failed")
        #expect(html.components(separatedBy: "<tr><td>").count - 1 == 2)
        #expect(html.contains(#"<span class="fail">FAIL</span>"#))
        #expect(html.contains("61 retries of segment 8 of variant 2 (503 ×61) &lt;&amp;&gt;"))
    }
}
