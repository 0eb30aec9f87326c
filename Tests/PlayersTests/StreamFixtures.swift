import DemoOrigin
import Foundation
import PlayerReports
import Players
import Testing
import TestSupport

/// Streams on loopback for the driver tests: the embedded demo origin for clean VOD and live, and a
/// `TestOrigin` for failing answers.
enum StreamFixtures {
    static let vod = "/vod/ts/master.m3u8"
    static let live = "/live/ts/master.m3u8"
    /// No route: every request answers 404.
    static let missingMaster = "/missing/master.m3u8"
    /// A master and a media playlist that load, and twelve 2 s segments that all answer 503.
    static let segments503 = "/seg503/master.m3u8"

    static func demo() async throws -> DemoOriginServer {
        try await DemoOriginServer.start(origin: try DemoOrigin())
    }

    static func failing() async throws -> TestOrigin {
        let origin = try await TestOrigin.start()
        let playlist = [("Content-Type", "application/vnd.apple.mpegurl")]
        origin.route("/seg503/master.m3u8", .bytes(headers: playlist, body: Array("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=640x360,CODECS="avc1.4d401f,mp4a.40.2"
            v0/index.m3u8

            """.utf8)))
        var media = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for index in 0..<12 {
            let name = String(format: "s%03d.ts", index)
            media += "#EXTINF:2.0,\n\(name)\n"
            origin.route("/seg503/v0/\(name)", .bytes(status: 503, headers: [("Content-Type", "text/plain")], body: Array("unavailable\n".utf8)))
        }
        media += "#EXT-X-ENDLIST\n"
        origin.route("/seg503/v0/index.m3u8", .bytes(headers: playlist, body: Array(media.utf8)))
        return origin
    }

    /// A request whose work directory is in the test's folder.
    static func request(_ url: String, timeout: Double, live: Bool = false, in folder: TemporaryFolder) -> PlayRequest {
        PlayRequest(url: url, timeout: timeout, live: live, workDirectory: folder.url("work"))
    }

    /// One line per error, and the end of the log, for failure messages.
    static func describe(_ report: PlayerReport) -> String {
        let errors = report.errors.map { "\($0.kind) \($0.code.map(String.init) ?? "-") \($0.message)" }.joined(separator: "\n")
        return "\(report.outcomeText), position \(report.position.map { "\($0)" } ?? "nil"), \(report.seconds) s, exit \(report.exitStatus.map { "\($0)" } ?? "nil")\nerrors:\n\(errors)\nlog tail:\n\(report.log.suffix(3000))"
    }
}
