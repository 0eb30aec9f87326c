import Foundation
import Testing
import TestSupport

/// `hlschaos record` and `hlschaos inspect BUNDLE` run as the built binary, against a loopback
/// origin serving the demo's VOD files (and a live playlist that never ends).
@Suite struct RecordCommandTests {
    /// The demo's VOD media (MPEG-TS) as plain files under /vod/.
    static func vodOrigin() async throws -> TestOrigin {
        let origin = try await TestOrigin.start()
        origin.routeDirectory("/vod/", directory: CLI.repository.appendingPathComponent("Sources/DemoOrigin/Media/ts").path)
        return origin
    }

    @Test func recordAVODThenInspectTheBundleAsATableAndAsJSON() async throws {
        try await withTemporaryFolder("record") { folder in
            let origin = try await Self.vodOrigin()
            try await withTeardown { try? await origin.shutdown() } run: {
                let out = folder.path("record")
                let record = try await CLI.run(["record", origin.baseURL + "/vod/master.m3u8", "--out", out, "--variants", "0,2"])
                #expect(record.status == 0, "\(record.stderr)")
                #expect(record.stdout.isEmpty, "record writes its messages on stderr")
                #expect(record.stderr.contains("master: 3 variants, 3 renditions, 3 I-frame playlists; loading 9 playlists; media of variants 0, 2"), "\(record.stderr)")
                #expect(record.stderr.contains("done: every playlist ended and all of its media was fetched"))
                #expect(record.stderr.contains("see it with: hlschaos inspect \(out)"))

                let table = try await CLI.run(["inspect", out])
                #expect(table.status == 0, "\(table.stderr)")
                #expect(table.stdout.contains("Source    record of \(origin.baseURL)/vod/master.m3u8"), "\(table.stdout)")
                #expect(table.stdout.contains("Stopped   as planned"))
                #expect(table.stdout.contains("Variants (from the recorded master)"))
                let v1 = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("v1/index.m3u8") })
                #expect(v1.contains("variant 1") && v1.contains("0/12"), "variant 1's media was not asked for: \(v1)")
                let v2 = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("v2/index.m3u8") })
                #expect(v2.contains("12/12") && v2.contains("0–11"), "\(v2)")
                #expect(table.stdout.hasSuffix("No failures.\n"))

                let json = try await CLI.run(["inspect", "--json", out])
                #expect(json.status == 0)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                #expect(object["source"] as? String == "record" && object["stopReason"] == nil)
                let playlists = try #require(object["playlists"] as? [[String: Any]])
                #expect(playlists.count == 10)
                let variants = try #require(object["variants"] as? [[String: Any]])
                #expect(variants.map { $0["segmentsRecorded"] as? Int } == [12, 0, 12])
                #expect((object["failures"] as? [Any])?.isEmpty == true)
                #expect(object["exchanges"] as? Int == 1 + 9 + 24 + 36, "master, 9 playlists, 2 variants and 3 renditions of 12 segments")
            }
        }
    }

    @Test func ctrlCFinishesALiveRecordingAsAnArchiveThatInspectReads() async throws {
        try await withTemporaryFolder("record") { folder in
            try await TestOrigin.with { origin in
                origin.route("/live.m3u8", .bytes(body: Array("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:40\n#EXTINF:1,\ns40.ts\n#EXTINF:1,\ns41.ts\n".utf8)))
                origin.route("/s40.ts", .bytes(body: [UInt8](repeating: 0x47, count: 188 * 10)))
                origin.route("/s41.ts", .bytes(status: 503, body: Array("try later".utf8)))
                let out = folder.path("live.tar")
                let record = CLI.Running(["record", origin.baseURL + "/live.m3u8", "--out", out, "--archive", "--progress-every", "1s"])
                try record.start()
                #expect(await record.waitForOutput(containing: "a media playlist: recording it"))
                #expect(await record.waitForOutput(containing: "1 failed"), "a progress line counts the 503: \(record.stderr)")
                // Three loads of the playlist written (the progress lines say so), then stop.
                let loadsLine = try Regex(#"\((\d+) playlist loads"#)
                let reloaded = await eventually {
                    record.stderr.matches(of: loadsLine).compactMap { Int($0.output[1].substring ?? "") }.contains { $0 >= 3 }
                }
                #expect(reloaded, "\(record.stderr)")
                record.signal(SIGINT)
                let result = await record.wait(timeout: 20)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("received SIGINT: stopping"))
                #expect(result.stderr.contains("stopped: interrupted by SIGINT; the bundle holds everything recorded until then"), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: out + ".partial"))

                let table = try await CLI.run(["inspect", out])
                #expect(table.status == 0, "\(table.stderr)")
                #expect(table.stdout.contains("(archive, format version 1)") && table.stdout.contains("Stopped   interrupted by SIGINT"), "\(table.stdout)")
                let row = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("live.m3u8") })
                let cells = row.split(separator: " ").map(String.init)
                let loads = try #require(Int(cells[2]))
                #expect(loads >= 3 && cells[3] == "1" && cells[4] == "40–41" && cells[5] == "1/2", "unchanged reloads every 0.5 s: \(row)")
                #expect(table.stdout.contains("segment  s41.ts") && table.stdout.contains("HTTP 503"), "\(table.stdout)")
            }
        }
    }

    @Test func badArgumentsAreClearErrorsAndLeaveNothingBehind() async throws {
        try await withTemporaryFolder("record") { folder in
            let origin = try await Self.vodOrigin()
            try await withTeardown { try? await origin.shutdown() } run: {
                origin.route("/page", .bytes(headers: [("Content-Type", "text/html")], body: Array("<!doctype html>".utf8)))
                let master = origin.baseURL + "/vod/master.m3u8"
                let existing = folder.path("existing")
                try FileManager.default.createDirectory(atPath: existing + "/bodies", withIntermediateDirectories: true)
                let refusing = try RefusingPort()
                let cases: [([String], String)] = [
                    (["--for", "10x"], "--for 10x: not a duration; write it like 90s, 10m or 1h"),
                    (["--for", "0s"], "--for 0s: give a duration above zero"),
                    (["--variants", "1,x"], "--variants 1,x: \"x\" is not a variant; give all, top, bottom"),
                    (["--variants", "5"], "--variants 5: the master has 3 variants (indexes 0–2)"),
                    (["--max-size", "2XB"], "--max-size 2XB: not a size; write it like 500MB or 2GB"),
                    (["--parallel", "99"], "--parallel 99: give a number of connections from 1 to 32"),
                ]
                for (extra, message) in cases {
                    let out = folder.path("bad")
                    let result = try await CLI.run(["record", master, "--out", out] + extra)
                    #expect(result.status == 1 && result.stderr.contains(message), "\(extra): \(result.stderr)")
                    #expect(!FileManager.default.fileExists(atPath: out), "\(extra) left \(out) behind")
                }
                let urls: [(String, String)] = [
                    (origin.baseURL + "/vod/none.m3u8", "answered HTTP 404"),
                    (origin.baseURL + "/page", "is not an HLS playlist: it starts with \"<!doctype html>\" instead of #EXTM3U (Content-Type text/html)"),
                    ("http://127.0.0.1:\(refusing.port)/master.m3u8", "cannot fetch http://127.0.0.1:\(refusing.port)/master.m3u8: could not connect"),
                    ("master.m3u8", "master.m3u8 is not an http(s) URL"),
                ]
                for (url, message) in urls {
                    let out = folder.path("bad")
                    let result = try await CLI.run(["record", url, "--out", out])
                    #expect(result.status == 1 && result.stderr.contains(message), "\(url): \(result.stderr)")
                    #expect(!FileManager.default.fileExists(atPath: out), "\(url) left \(out) behind")
                }
                let taken = try await CLI.run(["record", master, "--out", existing])
                #expect(taken.status == 1 && taken.stderr.contains("--out \(existing): already exists; choose a new path or remove it"), "\(taken.stderr)")
                #expect(FileManager.default.fileExists(atPath: existing + "/bodies"), "an existing directory is left alone")

                let notABundle = try await CLI.run(["inspect", existing])
                #expect(notABundle.status == 1 && notABundle.stderr.contains("is not a hlschaos bundle: it has no bundle.json"), "\(notABundle.stderr)")
            }
        }
    }
}
