import DemoOrigin
import Foundation
import HLS
import BundleFormat
import Replay
import TestSupport

/// Bundles written with `BundleWriter` for the replay tests (each in the test's folder), and a
/// replay origin on loopback.
enum ReplayFixtures {
    static let started = Date(timeIntervalSince1970: 1_795_000_000)

    /// Distinct bytes for a segment (the MSN written all over it).
    static func segmentBytes(_ msn: Int, size: Int = 3_000) -> [UInt8] {
        let label = Array("segment \(msn) ".utf8)
        return (0..<size).map { label[$0 % label.count] }
    }

    /// A live recording of `versions` playlist versions, one every `interval` seconds, each a
    /// window of `window` one-second segments starting at MSN `firstMSN + version`. The master is
    /// on cdn.test, the media playlist on cdn.test too, its segments on media.test (absolute URIs).
    /// Version n arrives 10 ms before n × interval. Every segment is fetched once, right after the
    /// version that first lists it.
    static func live(
        versions: Int = 6, interval: Double = 1, window: Int = 3, firstMSN: Int = 100, in folder: TemporaryFolder,
        extra: (BundleWriter) throws -> Void = { _ in }
    ) throws -> URL {
        let out = folder.url("live")
        let writer = try BundleWriter(destination: out, source: .record, entry: "http://cdn.test/live/master.m3u8", started: started)
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nv0/index.m3u8\n"
        try writer.append(Exchange(
            at: 0, url: "http://cdn.test/live/master.m3u8", status: 200,
            headers: [.init("Content-Type", "application/vnd.apple.mpegurl")], body: try writer.storeBody(Array(master.utf8)),
            timings: .init(connect: 0.001, firstByte: 0.005, total: 0.01), kind: "master"))
        var fetched: Set<Int> = []
        for version in 0..<versions {
            let arrival = Double(version) * interval
            let text = livePlaylist(firstMSN: firstMSN + version, window: window)
            try writer.append(Exchange(
                at: max(arrival - 0.03, 0), url: "http://cdn.test/live/v0/index.m3u8", status: 200,
                headers: [.init("Content-Type", "application/vnd.apple.mpegurl"), .init("Cache-Control", "no-cache")],
                body: try writer.storeBody(Array(text.utf8)),
                timings: .init(connect: 0, firstByte: 0.015, total: arrival > 0 ? 0.02 : 0), kind: "media"))
            for msn in (firstMSN + version)..<(firstMSN + version + window) where fetched.insert(msn).inserted {
                try writer.append(Exchange(
                    at: arrival + 0.05, url: "http://media.test/seg/seg-\(msn).ts", status: 200,
                    headers: [.init("Content-Type", "video/mp2t")], body: try writer.storeBody(segmentBytes(msn)),
                    timings: .init(connect: 0, firstByte: 0.002, total: 0.004), kind: "segment"))
            }
        }
        try extra(writer)
        try writer.finish(at: started.addingTimeInterval(Double(versions) * interval))
        return out
    }

    static func livePlaylist(firstMSN: Int, window: Int) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:\(firstMSN)"]
        lines.append("#EXT-X-PROGRAM-DATE-TIME:" + ProgramDateTime.format(started.addingTimeInterval(Double(firstMSN))))
        for msn in firstMSN..<(firstMSN + window) {
            lines.append("#EXTINF:1.0,")
            lines.append("http://media.test/seg/seg-\(msn).ts")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static let vodMedia = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-TARGETDURATION:2
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXTINF:2.0,
        seg-0.ts
        #EXTINF:2.0,
        seg-503.ts
        #EXTINF:2.0,
        slow.ts
        #EXTINF:2.0,
        cut.ts
        #EXTINF:2.0,
        reset.ts
        #EXTINF:2.0,
        hang.ts
        #EXT-X-ENDLIST

        """

    /// A VOD recording: a master on cdn.test whose variant is an absolute URL on media.test, and
    /// segments that failed or were slow in every recorded way.
    static func vod(archive: Bool = false, in folder: TemporaryFolder) throws -> URL {
        let out = folder.url(archive ? "vod.tar" : "vod.d")
        let writer = try BundleWriter(
            destination: out, source: .proxy, entry: "http://cdn.test/vod/master.m3u8", archive: archive, started: started)
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360\nhttp://media.test/vod/v0/index.m3u8\n"
        func add(_ at: Double, _ url: String, _ status: Int?, _ headers: [Exchange.Header] = [], _ body: [UInt8]? = nil,
                 ending: Exchange.Ending = .complete, firstByte: Double? = 0.002, total: Double = 0.004, kind: String = "segment") throws {
            try writer.append(Exchange(
                at: at, url: url, status: status, headers: headers, body: try body.map { try writer.storeBody($0) }, ending: ending,
                error: ending == .complete ? nil : "recorded \(ending.rawValue)", timings: .init(connect: 0, firstByte: firstByte, total: total),
                kind: kind))
        }
        let playlistType: [Exchange.Header] = [.init("Content-Type", "application/vnd.apple.mpegurl")]
        try add(0, "http://cdn.test/vod/master.m3u8", 200, playlistType, Array(master.utf8), kind: "master")
        try add(0.1, "http://media.test/vod/v0/index.m3u8", 200, playlistType, Array(vodMedia.utf8), kind: "media")
        try add(0.2, "http://media.test/vod/v0/seg-0.ts?token=abc", 200, [.init("Content-Type", "video/mp2t")], segmentBytes(0))
        try add(0.3, "http://media.test/vod/v0/seg-503.ts", 503, [.init("Retry-After", "2"), .init("Content-Type", "text/plain")],
                Array("try again later\n".utf8))
        try add(0.5, "http://media.test/vod/v0/seg-503.ts", 200, [.init("Content-Type", "video/mp2t")], segmentBytes(1))
        try add(0.6, "http://media.test/vod/v0/slow.ts", 200, [.init("Content-Type", "video/mp2t")], segmentBytes(2, size: 40_000),
                firstByte: 0.5, total: 1.2)
        try add(2, "http://media.test/vod/v0/cut.ts", 200, [.init("Content-Type", "video/mp2t"), .init("Content-Length", "2000")],
                Array(segmentBytes(3).prefix(800)), ending: .truncated, firstByte: 0.01, total: 0.05)
        try add(2.1, "http://media.test/vod/v0/reset.ts", nil, ending: .reset, firstByte: nil, total: 0.1)
        try add(2.3, "http://media.test/vod/v0/hang.ts", nil, ending: .timeout, firstByte: nil, total: 1.0)
        try writer.finish(at: started.addingTimeInterval(4))
        return out
    }

    /// The demo origin's VOD (MPEG-TS, every variant and rendition) recorded as a device would
    /// have fetched it, with the master's playlists moved to another host (absolute URIs).
    static func demoVOD(in folder: TemporaryFolder) throws -> URL {
        let origin = try DemoOrigin()
        let out = folder.url("demo-vod")
        let base = "http://demo.test"
        let writer = try BundleWriter(destination: out, source: .record, entry: base + "/vod/ts/master.m3u8", started: started)
        var at = 0.0
        func fetch(_ path: String, kind: String, body transform: ([UInt8]) -> [UInt8] = { $0 }, host: String = base) throws -> [UInt8] {
            let response = origin.respond(method: "GET", path: path, headers: [])
            precondition(response.status == 200, "demo \(path): \(response.status)")
            let bytes = transform([UInt8](response.body))
            try writer.append(Exchange(
                at: at, url: host + path, status: 200, headers: response.headers.map { .init($0.0, $0.1) },
                body: try writer.storeBody(bytes), timings: .init(connect: 0, firstByte: 0.001, total: 0.002), kind: kind))
            at += 0.01
            return bytes
        }
        let media = "http://media.test"
        let master = try fetch("/vod/ts/master.m3u8", kind: "master") { bytes in
            var playlist = try! Playlist(bytes: bytes, url: URL(string: base + "/vod/ts/master.m3u8"))
            playlist.rewriteURIs { reference in
                guard let absolute = reference.absoluteString, reference.kind == .variant || reference.kind == .rendition else { return nil }
                return absolute.replacingOccurrences(of: base, with: media)
            }
            return playlist.serialized()
        }
        let parsed = try Playlist(bytes: master, url: URL(string: base + "/vod/ts/master.m3u8"))
        for reference in parsed.uriReferences where reference.kind == .variant || reference.kind == .rendition {
            guard let absolute = reference.absoluteString, absolute.hasPrefix(media) else { continue }
            let path = String(absolute.dropFirst(media.count))
            let playlistBytes = try fetch(path, kind: "media", host: media)
            let playlist = try Playlist(bytes: playlistBytes, url: URL(string: absolute))
            for item in playlist.uriReferences {
                guard let url = item.absoluteString, url.hasPrefix(media) else { continue }
                _ = try fetch(String(url.dropFirst(media.count)), kind: item.kind == .key ? "key" : "segment", host: media)
            }
        }
        try writer.finish(at: started.addingTimeInterval(at + 1))
        return out
    }

    /// A bundle with whatever `build` appends (entry on cdn.test).
    static func bundle(
        entry: String = "http://cdn.test/index.m3u8", in folder: TemporaryFolder, _ build: (BundleWriter) throws -> Void
    ) throws -> URL {
        let out = folder.url("custom")
        let writer = try BundleWriter(destination: out, source: .record, entry: entry, started: started)
        try build(writer)
        try writer.finish(at: started.addingTimeInterval(10))
        return out
    }

    static func start(_ bundle: URL, _ options: ReplayOptions = ReplayOptions()) async throws -> ReplayServer {
        let origin = try ReplayOrigin(bundle: try RecordingBundle.open(bundle.path), options: options)
        return try await ReplayServer.start(origin: origin)
    }

    /// Runs `body` with a replay origin serving `bundle` (as `start`) and shuts it down afterwards,
    /// also when `body` throws.
    static func with<Result>(
        _ bundle: URL, _ options: ReplayOptions = ReplayOptions(), isolation: isolated (any Actor)? = #isolation,
        _ body: (ReplayServer) async throws -> Result
    ) async throws -> Result {
        try await withStarted(isolation: isolation, { try await start(bundle, options) }, stop: { await $0.shutdown() }, run: body)
    }

    /// `#EXT-X-MEDIA-SEQUENCE` of a playlist text.
    static func mediaSequence(_ text: String) -> Int? {
        (try? Playlist(string: text))?.mediaSequence
    }
}

extension ReplayServer {
    /// A request on a connection of its own. The read timeout is what a loaded two-core machine
    /// may take to answer (the unit phase runs CPU-heavy tests beside these), not a check.
    func get(_ target: String, headers: [(String, String)] = [], readTimeout: Double = 30) async throws -> RawHTTPConnection.Response {
        try await RawHTTP.get(port: port, target, headers: headers, readTimeout: readTimeout)
    }
}
