import Foundation
import Testing
@testable import DemoOrigin

/// The origin on the wire: a real `DemoOriginServer` on loopback, read with a raw socket client.
@Suite struct ServerTests {
    /// Media playlist URIs of a master playlist (variants and `URI="…"` renditions).
    static func mediaPlaylistURIs(inMaster text: String) -> [String] {
        var uris: [String] = []
        for line in text.split(separator: "\n").map(String.init) {
            if !line.hasPrefix("#") {
                uris.append(line)
            } else if line.hasPrefix("#EXT-X-MEDIA:") || line.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:"),
                      let range = line.range(of: "URI=\"") {
                uris.append(String(line[range.upperBound...].prefix { $0 != "\"" }))
            }
        }
        return uris
    }

    /// `../key.bin` against `aes/v0` is `aes/key.bin`.
    static func resolve(_ uri: String, against directory: String) -> String {
        var parts = directory.split(separator: "/").map(String.init)
        for part in uri.split(separator: "/").map(String.init) {
            if part == ".." { parts.removeLast() } else { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }

    static func expectedContentType(_ name: String) -> String {
        switch name.split(separator: ".").last {
        case "m3u8": "application/vnd.apple.mpegurl"
        case "ts": "video/mp2t"
        case "m4s": "video/iso.segment"
        case "mp4": "video/mp4"
        case "vtt": "text/vtt"
        default: "application/octet-stream"
        }
    }

    @Test(arguments: DemoOrigin.vodFlavours)
    func everyVODPlaylistAndSampleSegmentsAreServedAsBundled(flavour: String) async throws {
        try await withDemoServer { server in
            let master = try await RawHTTPClient.get(port: server.port, "/vod/\(flavour)/master.m3u8")
            #expect(master.status == 200)
            #expect(master.header("content-type") == "application/vnd.apple.mpegurl")
            #expect(master.body == Array(try BundledMedia.data("\(flavour)/master.m3u8")))
            let playlists = Self.mediaPlaylistURIs(inMaster: master.text)
            // 3 variants, 2 audio languages, 1 subtitle track (+ 3 I-frame playlists for ts)
            #expect(playlists.count == (flavour == "ts" ? 9 : 6))
            var checkedFiles = 0
            for playlist in playlists {
                let media = try await RawHTTPClient.get(port: server.port, "/vod/\(flavour)/\(playlist)")
                #expect(media.status == 200, "\(playlist)")
                #expect(media.header("content-type") == "application/vnd.apple.mpegurl")
                #expect(media.header("content-length") == "\(media.body.count)")
                #expect(media.text.contains("#EXT-X-ENDLIST"))
                let directory = (playlist as NSString).deletingLastPathComponent
                // First and last segment, plus every init segment and key the playlist names.
                let lines = media.text.split(separator: "\n").map(String.init)
                let segments = lines.filter { !$0.hasPrefix("#") }
                var files = Set([segments.first, segments.last].compactMap { $0 })
                for line in lines where line.hasPrefix("#EXT-X-MAP:") || line.hasPrefix("#EXT-X-KEY:") {
                    if let range = line.range(of: "URI=\"") { files.insert(String(line[range.upperBound...].prefix { $0 != "\"" })) }
                }
                for file in files.sorted() {
                    let relative = Self.resolve(file, against: flavour + "/" + directory)
                    let response = try await RawHTTPClient.get(port: server.port, "/vod/\(relative)")
                    #expect(response.status == 200, "\(relative)")
                    #expect(response.header("content-type") == Self.expectedContentType(file), "\(relative)")
                    #expect(response.header("content-length") == "\(response.body.count)")
                    #expect(response.body == Array(try BundledMedia.data(relative)), "\(relative)")
                    checkedFiles += 1
                }
            }
            #expect(checkedFiles >= (flavour == "byterange" ? 7 : 12))  // byterange: one file per stream
        }
    }

    @Test func byteRangesAnswer206WithTheSliceOr416() async throws {
        try await withDemoServer { server in
            let file = try Array(BundledMedia.data("byterange/v1/index.ts"))
            let path = "/vod/byterange/v1/index.ts"
            // Every EXT-X-BYTERANGE of the playlist, fetched as a player would.
            let playlist = try await RawHTTPClient.get(port: server.port, "/vod/byterange/v1/index.m3u8").text
            let ranges = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-BYTERANGE:") }
            #expect(ranges.count == 12)
            for range in ranges {
                let parts = range.dropFirst("#EXT-X-BYTERANGE:".count).split(separator: "@").compactMap { Int($0) }
                try #require(parts.count == 2)
                let (length, offset) = (parts[0], parts[1])
                let response = try await RawHTTPClient.get(port: server.port, path, headers: ["Range: bytes=\(offset)-\(offset + length - 1)"])
                #expect(response.status == 206)
                #expect(response.header("content-range") == "bytes \(offset)-\(offset + length - 1)/\(file.count)")
                #expect(response.header("content-length") == "\(length)")
                #expect(response.header("content-type") == "video/mp2t")
                #expect(response.body == Array(file[offset..<(offset + length)]))
            }
            let suffix = try await RawHTTPClient.get(port: server.port, path, headers: ["Range: bytes=-100"])
            #expect(suffix.status == 206)
            #expect(suffix.body == Array(file.suffix(100)))
            let outside = try await RawHTTPClient.get(port: server.port, path, headers: ["Range: bytes=\(file.count)-"])
            #expect(outside.status == 416)
            #expect(outside.header("content-range") == "bytes */\(file.count)")
            let multi = try await RawHTTPClient.get(port: server.port, path, headers: ["Range: bytes=0-1,4-5"])
            #expect(multi.status == 200)
            #expect(multi.body == file)
        }
    }

    /// A test that stops the origin in its middle leaves the scope's stop a second one to make.
    @Test func aSecondShutdownDoesNothing() async throws {
        try await withDemoServer { server in
            try await server.shutdown()
            try await server.shutdown()
            let answer = try? await RawHTTPClient.get(port: server.port, "/")
            #expect(answer == nil, "no longer listening")
        }
    }

    @Test func headSendsHeadersWithoutBody() async throws {
        try await withDemoServer { server in
            let size = try BundledMedia.data("fmp4/v2/s003.m4s").count
            // HEAD then GET on one connection: a body after HEAD would corrupt the second response.
            let responses = try await RawHTTPClient.exchange(port: server.port, [
                ("HEAD", "/vod/fmp4/v2/s003.m4s", []),
                ("HEAD", "/vod/fmp4/v2/s003.m4s", ["Range: bytes=0-9"]),
                ("GET", "/vod/fmp4/v2/s003.m4s", []),
            ])
            #expect(responses.map(\.status) == [200, 206, 200])
            #expect(responses[0].header("content-length") == "\(size)")
            #expect(responses[0].header("content-type") == "video/iso.segment")
            #expect(responses[1].header("content-length") == "10")
            #expect(responses[0].body.isEmpty && responses[1].body.isEmpty)
            #expect(responses[2].body.count == size)
        }
    }

    @Test func keepAliveServesManyRequestsOnOneConnection() async throws {
        try await withDemoServer { server in
            let targets = ["/vod/ts/master.m3u8", "/vod/ts/v0/index.m3u8", "/vod/ts/v0/s000.ts", "/vod/aes/key.bin",
                           "/vod/ts/subs/en/s001.vtt", "/live/ts/v0/index.m3u8", "/nope"]
            let responses = try await RawHTTPClient.exchange(port: server.port, targets.map { ("GET", $0, []) })
            #expect(responses.map(\.status) == [200, 200, 200, 200, 200, 200, 404])
            #expect(responses[3].header("content-type") == "application/octet-stream")
            #expect(responses[3].body == Array("hlschaos-demo-k!".utf8))
            #expect(responses[4].header("content-type") == "text/vtt")
            #expect(responses[4].text.hasPrefix("WEBVTT\n"))
            #expect(responses.dropLast().allSatisfy { $0.header("connection") != "close" })
            #expect(responses.last?.header("connection") == "close")
        }
    }

    @Test(arguments: [
        ("/nothing/here", 404), ("/vod/ts/v9/index.m3u8", 404), ("/vod/mkv/master.m3u8", 404), ("/vod", 404),
        ("/vod/../Package.swift", 400), ("/vod/ts/%2e%2e/%2e%2e/DemoOrigin.swift", 400),
        ("/vod/ts/..%2f..%2fmaster.m3u8", 400), ("/vod/ts/v0/..%5c..%5cindex.m3u8", 400), ("/vod/%2e%2e%2fts/master.m3u8", 400),
        ("/live/ts/v0/seg-99999.ts", 404),
    ])
    func unknownAndTraversalPathsAreRefused(target: String, status: Int) async throws {
        try await withDemoServer { server in
            let response = try await RawHTTPClient.get(port: server.port, target)
            #expect(response.status == status)
            #expect(response.header("content-type") == "text/plain; charset=utf-8")
            #expect(response.text.hasSuffix("\n") && response.text.split(separator: "\n").count == 1)
        }
    }

    @Test func otherMethodsAre405AndTheRootListsTheCatalogue() async throws {
        try await withDemoServer { server in
            let responses = try await RawHTTPClient.exchange(port: server.port, [
                ("POST", "/vod/ts/master.m3u8", ["Content-Length: 0"]), ("GET", "/", []),
            ])
            #expect(responses[0].status == 405)
            #expect(responses[0].header("allow") == "GET, HEAD")
            #expect(responses[1].status == 200)
            for entry in DemoOrigin.catalogue {
                #expect(responses[1].text.contains(entry.path))
            }
            #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
        }
    }
}
