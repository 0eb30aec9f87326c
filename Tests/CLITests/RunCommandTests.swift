import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TestSupport

/// `hlschaos run` end to end: the built binary, its demo origin, real players (ffmpeg, hls.js in
/// headless Chromium), the verdict, the exit code, JUnit and the JSON report.
@Suite(.serialized) struct RunCommandTests {
    struct Report: Decodable {
        struct Cell: Decodable {
            var scenario: String
            var player: String
            var status: String
            var requests: Int
            var faultedRequests: Int
            var evidence: String?
            var verdict: Verdict?
        }
        struct Verdict: Decodable {
            struct Result: Decodable { var expectation: String; var passed: Bool; var observed: String; var documented: Bool }
            var passed: Bool
            var results: [Result]
        }
        var passed: Bool
        var results: [Cell]
    }

    /// ffmpeg and hls.js on a VOD and a live preset (what each player does with every preset is
    /// PresetPlaybackTests' and `hlschaos matrix`'s). Every cell is played for real, JUnit has one
    /// testcase per scenario × player and agrees with the report, and every run reached its fault.
    @Test(.timeLimit(.minutes(6)))
    func aVODAndALivePresetWithFFmpegAndHlsjsGiveOneVerdictEachWithTheirEvidence() async throws {
        try await withTemporaryFolder("run") { folder in
            let dir = folder.url
            let presets = ["status-503", "variant-gone-410"]
            let result = try await CLI.run(
                ["run"] + presets + ["--player", "ffmpeg", "--player", "hlsjs", "--junit", dir.appendingPathComponent("junit.xml").path,
                 "--report", dir.appendingPathComponent("report.json").path, "--html", dir.appendingPathComponent("run.html").path,
                 "--evidence", dir.appendingPathComponent("evidence").path],
                timeout: 330)
            #expect(result.status == 0 || result.status == 1, "exit \(result.status): \(result.stderr)\n\(result.stdout)")

            let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: dir.appendingPathComponent("report.json")))
            #expect(report.results.count == 4)
            for cell in report.results {
                #expect(cell.requests > 0, "\(cell.scenario) × \(cell.player) made no request")
                #expect(cell.faultedRequests > 0, "\(cell.scenario) × \(cell.player) never reached the fault")
                #expect(cell.status == (cell.verdict?.passed == true ? "passed" : "failed"), "\(cell.scenario) × \(cell.player)")
                #expect(cell.verdict?.results.isEmpty == false, "every preset has expectations")
                let evidence = URL(fileURLWithPath: try #require(cell.evidence))
                #expect(evidence.path.hasPrefix(dir.appendingPathComponent("evidence").path), "\(evidence.path)")
                for file in ["records.jsonl", "session.har", "player.log", "verdict.json"] {
                    #expect(FileManager.default.fileExists(atPath: evidence.appendingPathComponent(file).path), "\(evidence.path)/\(file)")
                }
            }
            #expect(report.passed == (result.status == 0))
            // What the documents say and these two players do: retry or switch for a 503, and play on.
            let status503 = report.results.filter { $0.scenario == "status-503" }
            #expect(status503.allSatisfy { $0.status == "passed" }, "\(status503.map { ($0.player, $0.verdict?.results.filter { !$0.passed }.map(\.observed) ?? []) })")

            let junit = try XMLDocument(contentsOf: dir.appendingPathComponent("junit.xml"))
            let cases = try junit.nodes(forXPath: "//testcase")
            #expect(cases.count == 4)
            let failures = try junit.nodes(forXPath: "//testcase[failure]").count
            #expect(failures == report.results.filter { $0.status == "failed" }.count)
            for failure in try junit.nodes(forXPath: "//failure") {
                let text = failure.stringValue ?? ""
                #expect(text.contains("observed:"), "a failure carries what was observed: \(text)")
            }
            #expect(result.stdout.contains("passed,") && result.stdout.contains("failed, 0 could not run (4 runs"))
        }
    }

    /// An expectation that does not hold: exit 1, and the output names it with what was observed and
    /// the records behind it.
    @Test func aFailingExpectationFailsTheRunWithItsEvidence() async throws {
        try await withTemporaryFolder("run") { folder in
            let dir = folder.url
            let scenario = dir.appendingPathComponent("never-retry.json")
            try #"""
            {"name": "never-retry",
             "expect": [{"retried": {"atMost": 0}}],
             "rules": [{"id": "seg8", "match": {"kind": "segment", "variant": "highest", "msn": 8}, "action": {"status": 503}}]}
            """#.write(to: scenario, atomically: true, encoding: .utf8)
            let result = try await CLI.run(
                ["run", scenario.path, "--player", "ffmpeg", "--junit", dir.appendingPathComponent("j.xml").path,
                 "--evidence", dir.appendingPathComponent("evidence").path], timeout: 120)
            #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("FAIL   never-retry × ffmpeg"))
            #expect(result.stdout.contains("✗ [documented] did not retry the faulted resource"), "\(result.stdout)")
            #expect(result.stdout.contains("observed: "))
            #expect(result.stdout.contains("seg v2 n8") && result.stdout.contains("never-retry/seg8"), "the records: \(result.stdout)")
            let junit = try String(contentsOf: dir.appendingPathComponent("j.xml"), encoding: .utf8)
            #expect(junit.contains(#"<failure message="did not retry the faulted resource: observed "#))
        }
    }

    /// A player that cannot play never passes a scenario that expects playback to finish: the master
    /// playlist answers 404, for every driver kind (a native one and a browser one).
    @Test func aPlayerThatCannotPlayNeverPasses() async throws {
        try await withTemporaryFolder("run") { folder in
            let dir = folder.url
            let scenario = dir.appendingPathComponent("no-master.json")
            try #"""
            {"name": "no-master",
             "expect": [{"fetchedToTheEnd": true}, {"outcome": "played"}],
             "rules": [{"id": "gone", "match": {"kind": "master"}, "action": {"status": 404}}]}
            """#.write(to: scenario, atomically: true, encoding: .utf8)
            let result = try await CLI.run(
                ["run", scenario.path, "--player", "ffmpeg", "--player", "hlsjs", "--player", "true {url}", "--timeout", "30s",
                 "--evidence", dir.appendingPathComponent("evidence").path], timeout: 150)
            #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("FAIL   no-master × ffmpeg"))
            #expect(result.stdout.contains("FAIL   no-master × hlsjs"))
            // `true` exits 0 without fetching anything: its outcome passes, the proxy's records do not.
            #expect(result.stdout.contains("FAIL   no-master × true"), "a custom player is named after its program: \(result.stdout)")
            #expect(result.stdout.contains("0 passed, 3 failed"))
        }
    }

    /// Custom players are told apart in the output, JUnit and the report: named after their program
    /// (a second one with the same program gets -2) or as the user named them; expectations that
    /// name "command" apply to every one of them.
    @Test func customPlayersHaveTheirOwnNamesAndTheCommandExpectations() async throws {
        try await withTemporaryFolder("run") { folder in
            let dir = folder.url
            let scenario = dir.appendingPathComponent("custom.json")
            try #"""
            {"name": "custom",
             "expect": [{"outcome": "failed"},
                        {"outcome": "played", "players": "command", "note": "a command that exits 0 played"}],
             "rules": [{"id": "gone", "match": {"kind": "master"}, "action": {"status": 404}}]}
            """#.write(to: scenario, atomically: true, encoding: .utf8)
            let junitFile = dir.appendingPathComponent("junit.xml"), reportFile = dir.appendingPathComponent("report.json")
            let result = try await CLI.run(
                ["run", scenario.path, "--player", "true {url}", "--player", "quiet=true {url}", "--player", "/bin/true {url}",
                 "--junit", junitFile.path, "--report", reportFile.path, "--timeout", "30s", "--evidence", dir.appendingPathComponent("evidence").path],
                timeout: 120)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            for name in ["true", "quiet", "true-2"] {
                #expect(result.stdout.contains("PASS   custom × \(name)"), "\(name): \(result.stdout)")
            }
            #expect(result.stdout.contains("  true-2: /bin/true {url}"), "the names are listed with their commands: \(result.stdout)")
            let junit = try String(contentsOf: junitFile, encoding: .utf8)
            for name in ["true", "quiet", "true-2"] {
                #expect(junit.contains(#"<testcase classname="hlschaos.custom" name="\#(name)""#), "\(name): \(junit)")
            }
            let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: reportFile))
            #expect(report.results.map(\.player) == ["true", "quiet", "true-2"])
            for cell in report.results {
                #expect(cell.verdict?.results.map(\.expectation) == ["the player's outcome was played"], "\(cell.player): the command expectation replaced the documented one")
            }
        }
    }

    @Test func badArgumentsAreRefusedWithWhatWouldFixThem() async throws {
        let unknown = try await CLI.run(["run", "stauts-503", "--player", "ffmpeg"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains(#"stauts-503: no preset of that name (did you mean "status-503"?)"#), "\(unknown.stderr)")
        let player = try await CLI.run(["run", "status-503", "--player", "quicktime"])
        #expect(player.status == 2)
        #expect(player.stderr.contains("--player quicktime: no player of that name"), "\(player.stderr)")
        #expect(player.stderr.contains("ffmpeg, gstreamer, gstreamer-legacy, vlc, mpv, hlsjs, vhs"))
        let command = try await CLI.run(["run", "status-503", "--player", "my-player --fast"])
        #expect(command.status == 2)
        #expect(command.stderr.contains("{url}"), "\(command.stderr)")
        let builtInName = try await CLI.run(["run", "status-503", "--player", "ffmpeg=my-player {url}"])
        #expect(builtInName.status == 2)
        #expect(builtInName.stderr.contains(#"--player ffmpeg=my-player {url}: "ffmpeg" is the built-in player's name"#), "\(builtInName.stderr)")
        let twice = try await CLI.run(["run", "status-503", "--player", "a=my-player {url}", "--player", "a=other {url}"])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains(#"--player a=other {url}: two players are named "a""#), "\(twice.stderr)")
        let timeout = try await CLI.run(["run", "status-503", "--timeout", "soon"])
        #expect(timeout.status == 2)
        #expect(timeout.stderr.contains("--timeout soon: give a duration such as 60s"), "\(timeout.stderr)")
        let infinite = try await CLI.run(["run", "status-503", "--timeout", "inf"])
        #expect(infinite.status == 2 && infinite.stderr.contains("--timeout inf: give a duration such as 60s"), "\(infinite.stderr)")
        let both = try await CLI.run(["run", "status-503", "--demo", "--url", "http://example.com/m.m3u8"])
        #expect(both.status == 2)
        let file = try await CLI.run(["run", "/nonexistent/scenario.json"])
        #expect(file.status == 2)
        #expect(file.stderr.contains("/nonexistent/scenario.json"), "\(file.stderr)")
    }

    /// A small matrix: two presets × ffmpeg; the files it writes and a row per preset with a mark
    /// and a link per cell.
    @Test func matrixWritesMarkdownEvidencePagesHTMLAndJSON() async throws {
        try await withTemporaryFolder("run") { folder in
            let dir = folder.url
            let result = try await CLI.run(["matrix", "--presets", "status-503", "gap", "--players", "ffmpeg", "--out", dir.path], timeout: 120)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            let markdown = try String(contentsOf: dir.appendingPathComponent("player-matrix.md"), encoding: .utf8)
            let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| **") }
            #expect(rows.count == 2)
            #expect(rows.allSatisfy { $0.contains("](player-matrix/") && ($0.contains("| ✓ [") || $0.contains("| ✗ [") || $0.contains("| · [")) }, "\(rows)")
            #expect(markdown.contains("**ffmpeg** (ffmpeg version"))
            for page in ["player-matrix/status-503.md", "player-matrix/gap.md", "player-matrix.html", "matrix.json"] {
                #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(page).path), "\(page)")
            }
            let evidence = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("evidence").path)
            #expect(evidence.count == 2)
        }
    }
}
