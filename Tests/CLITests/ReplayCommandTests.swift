import Foundation
import BundleFormat
import Testing
import TestSupport

/// `hlschaos replay BUNDLE`: starts the replay origin and the proxy and prints the device URL; a
/// broken bundle, or --from / --speed that cannot be used, stop it with the reason.
@Suite(.serialized) struct ReplayCommandTests {
    static let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2,\nseg-0.ts\n#EXT-X-ENDLIST\n"
    static let segment = [UInt8](repeating: 0x47, count: 5_000)

    static func bundle(in folder: TemporaryFolder) throws -> URL {
        let out = folder.url("bundle")
        let writer = try BundleWriter(destination: out, source: .record, entry: "https://cdn.example/vod/index.m3u8")
        try writer.append(Exchange(
            at: 0, url: "https://cdn.example/vod/index.m3u8", status: 200,
            headers: [.init("Content-Type", "application/vnd.apple.mpegurl")], body: try writer.storeBody(Array(playlist.utf8)),
            timings: .init(total: 0.01), kind: "media"))
        try writer.append(Exchange(
            at: 0.1, url: "https://cdn.example/vod/seg-0.ts", status: 200, headers: [.init("Content-Type", "video/mp2t")],
            body: try writer.storeBody(segment), timings: .init(total: 0.01), kind: "segment"))
        try writer.finish(at: writer.started.addingTimeInterval(2))
        return out
    }

    @Test func replayServesTheBundleThroughTheProxyAndPrintsTheDeviceURL() async throws {
        try await withTemporaryFolder("cli-replay") { folder in
            let bundle = try Self.bundle(in: folder)
            let replay = CLI.Running(["replay", bundle.path, "--host", "127.0.0.1", "--port", "0", "--control", "off"])
            try replay.start()
            #expect(await replay.waitForOutput(containing: "Stop with Ctrl-C."), "\(replay.stdout)\n\(replay.stderr)")
            let port = try #require(await replay.port(after: "proxy on port "), "\(replay.stdout)")
            #expect(replay.stdout.contains("hlschaos replay: \(bundle.path): VOD recording of 2s, 2 exchanges"), "\(replay.stdout)")
            #expect(replay.stdout.contains("Entry https://cdn.example/vod/index.m3u8\n    http://localhost:\(port)/vod/index.m3u8\n"), "\(replay.stdout)")
            #expect(replay.stdout.contains("replay origin http://127.0.0.1:"), "\(replay.stdout)")

            let playlist = try await RawHTTP.get(port: port, "/s/cli/vod/index.m3u8")
            #expect(playlist.status == 200)
            let uri = try #require(playlist.text.split(separator: "\n").first { !$0.hasPrefix("#") }, "\(playlist.text)")
            let segment = try await RawHTTP.get(port: port, String(uri))
            #expect(segment.status == 200 && segment.body == Self.segment)
            #expect(try await RawHTTP.get(port: port, "/vod/seg-1.ts").status == 404)

            replay.signal(SIGTERM)
            let result = await replay.wait(timeout: 10)
            #expect(result.status == 0, "\(result.stderr)")
        }
    }

    /// An import-har directory replayed: its bundle served, its field player (`player.json`) in the
    /// banner and beside every session's own player in the report.
    @Test func anImportDirectoryShowsItsFieldPlayer() async throws {
        try await withTemporaryFolder("cli-import") { folder in
            let directory = folder.url
            _ = try Self.bundle(in: folder)  // DIR/bundle, as import-har writes it
            let player = directory.appendingPathComponent("player.json")
            try Data(Self.fieldPlayer.utf8).write(to: player)

            let replay = CLI.Running(["replay", directory.path, "--host", "127.0.0.1", "--port", "0", "--control", "127.0.0.1:0"])
            try replay.start()
            defer { if replay.process.isRunning { replay.signal(SIGTERM) } }
            #expect(await replay.waitForOutput(containing: "Stop with Ctrl-C."), "\(replay.stdout)\n\(replay.stderr)")
            #expect(replay.stdout.contains("hlschaos replay: \(directory.path)/bundle: VOD recording"), "\(replay.stdout)")
            #expect(replay.stdout.contains("  Field player (CMCD, \(player.path)): 3 requests carried CMCD; lowest buffer 0.4 s (entry #3); 1 stall said (bs); started in 2.0 s. "
                + "Each session's report (GET /api/sessions/{id}/report) shows it beside the replaying player's.\n"), "\(replay.stdout)")

            let port = try #require(await replay.port(after: "proxy on port "), "\(replay.stdout)")
            let control = try #require(await replay.port(after: "Control API:    http://127.0.0.1:"), "\(replay.stdout)")
            #expect(try await RawHTTP.get(port: port, "/s/cli/vod/index.m3u8").status == 200)
            var report: RawHTTPConnection.Response?
            _ = await eventually(timeout: .seconds(10)) {
                report = try? await RawHTTP.get(port: control, "/api/sessions/cli/report")
                return report?.status == 200
            }
            let body = try #require(report.flatMap { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }, "\(report?.text ?? "")")
            let field = try #require(body["fieldPlayer"] as? [String: Any], "\(body)")
            #expect(field["requestsWithCMCD"] as? Int == 3 && (field["stalls"] as? [Any])?.count == 1)
            #expect((body["verdict"] as? String)?.hasSuffix("The field player (the HAR's CMCD, 3 requests) reported 0.4 s of buffer at its lowest; 1 stall; it started in 2.0 s.") == true,
                    "\(body["verdict"] ?? "")")
            replay.signal(SIGTERM)
            #expect(await replay.wait(timeout: 10).status == 0)
        }
    }

    /// A field player timeline as import-har writes it (`PlayerTimeline`).
    static let fieldPlayer = """
        {"requests": 4, "requestsWithCMCD": 3, "requestsWithFindings": 0, "sessionIDs": ["f1"], "pointsLeftOut": 0,
         "points": [{"record": 2, "time": 0, "bufferLength": 0, "startup": true}, {"record": 3, "time": 2, "bufferLength": 400},
                    {"record": 4, "time": 6.5, "bufferLength": 1800, "bufferStarvation": true}],
         "stalls": [{"record": 4, "time": 6.5, "source": "bs"}],
         "lowestBuffer": {"record": 3, "time": 2, "bufferLength": 400},
         "startup": {"seconds": 2, "source": "su"}}
        """

    @Test func aBrokenBundleStopsItWithTheFileNamed() async throws {
        try await withTemporaryFolder("cli-replay") { folder in
            let bundle = try Self.bundle(in: folder)
            let bodies = bundle.appendingPathComponent("bodies/sha256")
            let body = try #require(try FileManager.default.contentsOfDirectory(atPath: bodies.path).sorted().first)
            try FileManager.default.removeItem(at: bodies.appendingPathComponent(body))
            let result = try await CLI.run(["replay", bundle.path, "--port", "0", "--control", "off"], timeout: 30)
            #expect(result.status == 1)
            #expect(result.stderr.contains(bodies.appendingPathComponent(body).path) && result.stderr.contains("is missing"), "\(result.stderr)")

            let missing = try await CLI.run(["replay", "/nonexistent/rec.tar", "--port", "0", "--control", "off"], timeout: 30)
            #expect(missing.status == 1 && missing.stderr.contains("/nonexistent/rec.tar: does not exist"), "\(missing.stderr)")
        }
    }

    @Test func fromAndSpeedThatCannotBeUsedAreRefusedInWords() async throws {
        try await withTemporaryFolder("cli-replay") { folder in
            let bundle = try Self.bundle(in: folder)
            let past = try await CLI.run(["replay", bundle.path, "--from", "5m", "--port", "0", "--control", "off"], timeout: 30)
            #expect(past.status == 1 && past.stderr.contains("--from 5m 0s is past the end of the recording, which lasts 2s"), "\(past.stderr)")
            let garbled = try await CLI.run(["replay", bundle.path, "--from", "soon", "--port", "0", "--control", "off"], timeout: 30)
            #expect(garbled.status == 1 && garbled.stderr.contains("--from \"soon\" is not a position in the recording"), "\(garbled.stderr)")
            let speed = try await CLI.run(["replay", bundle.path, "--speed", "0", "--port", "0", "--control", "off"], timeout: 30)
            #expect(speed.status == 1 && speed.stderr.contains("--speed \"0\" is not a positive number"), "\(speed.stderr)")
        }
    }
}
