import Foundation
import Testing
@testable import Players
import TestSupport

@Suite struct CommandTemplateTests {
    @Test func wordsAreSplitLikeASimpleShellCommand() throws {
        let template = try CommandTemplate(#"my-player --title 'a b' --name "c \"d\"" e\ f --url={url}"#)
        #expect(template.words == ["my-player", "--title", "a b", "--name", #"c "d""#, "e f", "--url={url}"])
        #expect(template.command(url: "http://h/a b?x=1&y='2'").last == "--url=http://h/a b?x=1&y='2'")
    }

    @Test func aTemplateWithoutTheURLIsAClearError() {
        #expect(throws: CommandTemplate.Problem.self) { try CommandTemplate("my-player --url") }
        do {
            _ = try CommandDriver(template: "my-player --url")
            Issue.record("no error")
        } catch {
            #expect("\(error)".contains("has no {url}: write {url} where the stream URL goes"), "\(error)")
        }
        #expect(throws: CommandTemplate.Problem.self) { try CommandTemplate("   ") }
        #expect(throws: CommandTemplate.Problem.self) { try CommandTemplate("player '{url}") }
    }
}

/// The command driver against real processes (no stream needed: the command is the player).
@Suite struct CommandDriverTests {
    static func request(_ url: String = "http://127.0.0.1:9/x.m3u8", timeout: Double = 20, live: Bool = false, in folder: TemporaryFolder) -> PlayRequest {
        PlayRequest(url: url, timeout: timeout, live: live, workDirectory: folder.url(live ? "live" : "vod"))
    }

    @Test func exitZeroPlayedAndTheURLArrivesAsOneWord() async throws {
        try await withTemporaryFolder("cmd") { folder in
            let driver = try CommandDriver(template: #"sh -c 'printf "%s|" "$@"' sh {url} end"#)
            #expect(await driver.availability() == .ready(version: try #require(ProcessRunner.which("sh"))))
            let request = Self.request("http://h/a b.m3u8", in: folder)
            let report = await driver.play(request)
            #expect(report.outcome == .played)
            #expect(report.exitStatus == 0)
            #expect(report.log == "http://h/a b.m3u8|end|\n")
        }
    }

    @Test func aFailureStatusFailsWithTheLastStderrLine() async throws {
        try await withTemporaryFolder("cmd") { folder in
            let driver = try CommandDriver(template: "sh -c 'echo starting; echo \"cannot open $0\" >&2; exit 3' {url}")
            let request = Self.request(in: folder)
            let report = await driver.play(request)
            #expect(report.outcome == .failed)
            #expect(report.reason == "exit status 3: cannot open http://127.0.0.1:9/x.m3u8")
            #expect(report.log.contains("starting"))
        }
    }

    @Test func stillRunningAtTheLimitTimedOutOrPlayedForLive() async throws {
        try await withTemporaryFolder("cmd") { folder in
            let driver = try CommandDriver(template: "sh -c 'sleep 30' {url}")
            let vod = Self.request(timeout: 1, in: folder)
            let live = Self.request(timeout: 1, live: true, in: folder)
            let vodReport = await driver.play(vod)
            #expect(vodReport.outcome == .timedOut)
            #expect(vodReport.seconds < 10)
            #expect(await driver.play(live).outcome == .played)
        }
    }

    @Test func aMissingProgramIsReported() async throws {
        try await withTemporaryFolder("cmd") { folder in
            let driver = try CommandDriver(template: "no-such-player-hlschaos {url}")
            guard case .missing(let reason, _) = await driver.availability() else {
                Issue.record("reported as ready")
                return
            }
            #expect(reason.contains("not found"))
            let request = Self.request(in: folder)
            #expect(await driver.play(request).outcome == .failed)
        }
    }
}
