import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct CLITests {
    @Test func portInUseIsAClearErrorWithExitCode1() async throws {
        try await TestOrigin.with { origin in
            let result = try await CLI.run(["serve", "--upstream", origin.baseURL, "--host", "127.0.0.1", "--port", String(origin.port)])
            #expect(result.status == 1)
            #expect(result.stderr.contains("port \(origin.port) on 127.0.0.1 is already in use"))
        }
    }

    @Test func invalidConfigNamesFileAndKeyAndExits1() async throws {
        try await withTemporaryFolder("cli") { folder in
            let path = folder.path("config.json")
            try #"{"upstream": "http://127.0.0.1:1", "sesionIdleTimeout": "5m"}"#.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try await CLI.run(["serve", "--config", path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("\(path): sesionIdleTimeout: unknown key (did you mean \"sessionIdleTimeout\"?)"))
        }
    }

    @Test func serveWithoutAnOriginSaysWhatToGive() async throws {
        let result = try await CLI.run(["serve", "--port", "0"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--upstream"))
    }

    @Test func invalidRulesStopStartUpWithEveryProblem() async throws {
        try await withTemporaryFolder("cli") { folder in
            let path = folder.path("rules.json")
            try #"{"name": "x", "rules": [{"id": "a", "match": {"msm": 3}, "action": {"status": 503}}]}"#.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try await CLI.run(["serve", "--upstream", "http://127.0.0.1:1", "--port", "0", "--rules", path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("\(path): $.rules[0].match.msm: unknown key"))
            #expect(result.stderr.contains("did you mean \"msn\""))
        }
    }

    @Test func sigtermLetsTheInFlightResponseFinishThenExits0() async throws {
        try await TestOrigin.with { origin in
            origin.route("/slow.ts", .generated(size: 2_000_000, chunk: 100_000, delayBetweenChunks: .milliseconds(100)))
            let proxy = CLI.Running(["serve", "--upstream", origin.baseURL, "--host", "127.0.0.1", "--port", "0"])
            try proxy.start()
            #expect(await proxy.waitForOutput(containing: "listening"))
            let port = try #require(await proxy.port(after: "hlschaos listening on 127.0.0.1:"))
            async let download = RawHTTP.get(port: port, "/slow.ts")
            // In flight: the origin has it, and takes 2 s to send it.
            #expect(await origin.waitUntil { $0.requestLog.count == 1 })
            proxy.signal(SIGTERM)
            let response = try await download
            #expect(response.status == 200)
            #expect(response.ending == .complete)
            #expect(response.body == patternBytes(offset: 0, count: 2_000_000))
            let result = await proxy.wait(timeout: 10)
            #expect(result.status == 0)
            #expect(result.stderr.contains("finishing in-flight responses"))
        }
    }

    @Test func ruleFileReloadsOnChangeAndABrokenEditKeepsTheRunningRules() async throws {
        try await withTemporaryFolder("cli") { folder in
            try await TestOrigin.with { origin in
                origin.route("/a.m3u8", .bytes(headers: [("Content-Type", "application/vnd.apple.mpegurl")], body: Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n".utf8)))
                let path = folder.path("rules.json")
                // Each version has a modification time of its own (set, not waited for): the proxy's
                // watcher compares them, and a file system may keep them to the second only.
                func write(_ status: Int, modified: TimeInterval) throws {
                    try #"{"name": "r", "rules": [{"id": "m", "match": {"kind": "media"}, "action": {"status": \#(status)}}]}"#
                        .write(toFile: path, atomically: true, encoding: .utf8)
                    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(modified)], ofItemAtPath: path)
                }
                try write(500, modified: -60)
                let proxy = CLI.Running(["serve", "--upstream", origin.baseURL, "--host", "127.0.0.1", "--port", "0", "--rules", path])
                try proxy.start()
                #expect(await proxy.waitForOutput(containing: "listening"))
                let port = try #require(await proxy.port(after: "hlschaos listening on 127.0.0.1:"))
                #expect(try await RawHTTP.get(port: port, "/a.m3u8").status == 500)

                // The watcher's notice, then what a player gets.
                try write(503, modified: -30)
                #expect(await proxy.waitForOutput(containing: "rules reloaded: r"))
                #expect(try await RawHTTP.get(port: port, "/a.m3u8").status == 503)

                try write(1503, modified: 0)
                #expect(await proxy.waitForOutput(containing: "rules not reloaded, the running rules stay"))
                #expect(try await RawHTTP.get(port: port, "/a.m3u8").status == 503)

                proxy.signal(SIGHUP)
                #expect(await proxy.waitForOutput(containing: "received SIGHUP"))
                proxy.signal(SIGINT)
                #expect(await proxy.wait(timeout: 10).status == 0)
            }
        }
    }

    @Test func validateAcceptsEveryPresetAndRejectsABrokenFile() async throws {
        try await withTemporaryFolder("cli") { folder in
            let presets = try FileManager.default.contentsOfDirectory(atPath: CLI.repository.appendingPathComponent("rules").path)
                .filter { $0.hasSuffix(".json") }.map { "rules/" + $0 }
            let good = try await CLI.run(["validate"] + presets)
            #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
            let path = folder.path("broken.json")
            try #"{"name": "x", "rules": [{"id": "a", "match": {"kind": "segmnt"}, "action": {"throttle": "fast"}}]}"#.write(toFile: path, atomically: true, encoding: .utf8)
            let bad = try await CLI.run(["validate", path])
            #expect(bad.status == 1)
            let output = bad.stdout + bad.stderr
            #expect(output.contains("\(path): $.rules[0].match.kind"))
            #expect(output.contains("\(path): $.rules[0].action.throttle"))
        }
    }

    /// Matrices run in parts are written as one page; a file that is no matrix.json is named.
    @Test func matrixFromSeveralJSONFilesWritesOnePage() async throws {
        try await withTemporaryFolder("cli") { folder in
            let dir = folder.url
            func matrix(_ date: String, _ machine: String, _ presets: [String]) -> String {
                let rows = presets.map { #"{"scenario": "\#($0)", "stream": "vod ts"}"# }.joined(separator: ", ")
                return #"{"generated": "\#(date)", "machine": "\#(machine)", "rows": [\#(rows)], "columns": [{"player": "ffmpeg", "version": "ffmpeg 5.1"}], "cells": []}"#
            }
            let first = dir.appendingPathComponent("a.json"), second = dir.appendingPathComponent("b.json")
            try matrix("2026-11-23T10:00:00Z", "machine A", ["status-503", "gap"]).write(to: first, atomically: true, encoding: .utf8)
            try matrix("2026-11-27T10:00:00Z", "machine B", ["gap", "ll-part-404"]).write(to: second, atomically: true, encoding: .utf8)
            let out = dir.appendingPathComponent("merged")
            let result = try await CLI.run(["matrix", "--from-json", first.path, second.path, "--out", out.path])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("matrix: gap: the row of matrix 2 replaces that of matrix 1"), "\(result.stdout)")
            let page = try String(contentsOf: out.appendingPathComponent("player-matrix.md"), encoding: .utf8)
            #expect(page.split(separator: "\n").filter { $0.hasPrefix("| **") }.map { String($0.prefix(16)) } == ["| **gap** (vod t", "| **ll-part-404*", "| **status-503**"])
            #expect(page.contains("in 2 runs merged with `--from-json`: 2026-11-23 10:00 UTC, machine A (1 preset); 2026-11-27 10:00 UTC, machine B (2 presets)"), "\(page)")
            for file in ["player-matrix/gap.md", "player-matrix/ll-part-404.md", "player-matrix.html", "matrix.json"] {
                #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(file).path), "\(file)")
            }

            let broken = dir.appendingPathComponent("broken.json")
            try #"{"rows": []}"#.write(to: broken, atomically: true, encoding: .utf8)
            let bad = try await CLI.run(["matrix", "--from-json", first.path, broken.path, "--out", out.path])
            #expect(bad.status != 0)
            #expect(bad.stderr.contains("--from-json \(broken.path): not a matrix.json written by hlschaos matrix"), "\(bad.stderr)")
        }
    }

    @Test func demoPrintsPlayableVODAndLiveURLs() async throws {
        let demo = CLI.Running(["demo", "--host", "127.0.0.1", "--port", "0"])
        try demo.start()
        #expect(await demo.waitForOutput(containing: "Stop with Ctrl-C"))
        let port = try #require(await demo.port(after: "proxy on port "))
        let urls = demo.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("http://localhost:\(port)/") && $0.hasSuffix(".m3u8") }
        #expect(urls.contains("http://localhost:\(port)/vod/ts/master.m3u8"))
        #expect(urls.contains("http://localhost:\(port)/live/ts/master.m3u8"))
        for url in urls {
            let path = String(url.dropFirst("http://localhost:\(port)".count))
            let response = try await RawHTTP.get(port: port, path)
            #expect(response.status == 200, "\(url)")
            #expect(response.text.hasPrefix("#EXTM3U"), "\(url)")
        }
        demo.signal(SIGINT)
        #expect(await demo.wait(timeout: 10).status == 0)
    }
}

extension CLITests {
    @Test func inspectReadsAURLThroughTheProxyAndReportsFailures() async throws {
        try await TestOrigin.with { origin in
            origin.route("/v/index.m3u8", .bytes(body: Array("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:2,\ns7.ts\n#EXTINF:2,\ns8.ts\n".utf8)))
            let json = try await CLI.run(["inspect", "--json", origin.baseURL + "/v/index.m3u8"])
            #expect(json.status == 0, "\(json.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["type"] as? String == "media")
            let segments = try #require(object["segments"] as? [[String: Any]])
            #expect(segments.map { $0["msn"] as? Int } == [7, 8])
            #expect(segments.first?["uri"] as? String == "s7.ts")

            let missing = try await CLI.run(["inspect", origin.baseURL + "/nope.m3u8"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("answered HTTP 404"))
            let down = try await CLI.run(["inspect", "http://127.0.0.1:1/x.m3u8"])
            #expect(down.status == 1)
            #expect(down.stderr.contains("cannot fetch http://127.0.0.1:1/x.m3u8"))
        }
    }

    /// CI files often write lists with commas: "a,b" names two presets; an unknown one is still named.
    @Test func presetsMayBeGivenAsACommaSeparatedList() async throws {
        try await withTemporaryFolder("cli-list") { folder in
            let result = try await CLI.run(
                ["run", "status-503,status-504", "--player", "no-such-player-here {url}", "--evidence", folder.path("evidence")], timeout: 120)
            #expect(result.stdout.contains("hlschaos run: 2 runs (2 scenarios × 1 player)"))
            #expect(result.status == 2, "the player is not installed: cells that could not run")
            let unknown = try await CLI.run(["run", "status-503,status-5O4", "--player", "ffmpeg"])
            #expect(unknown.status == 2)
            #expect(unknown.stderr.contains("status-5O4: no preset of that name (did you mean \"status-504\"?)"))
        }
    }
}
