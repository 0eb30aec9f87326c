import Foundation
import TestSupport

/// Builds HARs the way the tools write them, for the HAR import tests: entries at given offsets,
/// with DevTools-style timings (-1 for phases that did not happen), bodies as text or base64.
struct HARFixture {
    static let origin = "https://cdn.example.com/live"
    static let base = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18T…Z

    var creator: (name: String, version: String) = ("WebInspector", "537.36")
    var entries: [[String: Any]] = []

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// One entry. `wait`, `receive`, `blocked` in milliseconds; `time` is their sum unless given.
    @discardableResult
    mutating func add(
        _ url: String, at seconds: Double, status: Int = 200, wait: Double = 40, receive: Double = 200, blocked: Double = 2,
        body: String? = nil, base64: [UInt8]? = nil, size: Int? = nil, error: String? = nil,
        headers: [(String, String)] = [], requestHeaders: [(String, String)] = [], time: Double? = nil,
        mimeType: String? = nil, extra: [String: Any] = [:], responseExtra: [String: Any] = [:]
    ) -> Int {
        let bodyBytes = body.map { $0.utf8.count } ?? base64?.count ?? size ?? 0
        var content: [String: Any] = ["size": bodyBytes, "mimeType": mimeType ?? Self.mime(url)]
        if let body { content["text"] = body }
        if let base64 {
            content["text"] = Data(base64).base64EncodedString()
            content["encoding"] = "base64"
        }
        var response: [String: Any] = [
            "status": status, "statusText": status == 0 ? "" : "OK", "httpVersion": "http/1.1", "cookies": [],
            "headers": headers.map { ["name": $0.0, "value": $0.1] }, "content": content, "redirectURL": "",
            "headersSize": -1, "bodySize": status == 0 ? -1 : bodyBytes, "_transferSize": bodyBytes + 200,
        ]
        if let error { response["_error"] = error }
        for (key, value) in responseExtra { response[key] = value }
        var entry: [String: Any] = [
            "startedDateTime": Self.iso(Self.base.addingTimeInterval(seconds)),
            "time": time ?? (blocked + wait + receive),
            "request": [
                "method": "GET", "url": url, "httpVersion": "http/1.1", "cookies": [],
                "headers": requestHeaders.map { ["name": $0.0, "value": $0.1] }, "queryString": [], "headersSize": -1, "bodySize": 0,
            ] as [String: Any],
            "response": response,
            "cache": [:] as [String: Any],
            "timings": status == 0
                ? ["blocked": time ?? blocked, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0]
                : ["blocked": blocked, "dns": -1, "ssl": -1, "connect": -1, "send": 0.05, "wait": wait, "receive": receive],
        ]
        for (key, value) in extra { entry[key] = value }
        entries.append(entry)
        return entries.count - 1
    }

    static func mime(_ url: String) -> String {
        if url.contains(".m3u8") { return "application/vnd.apple.mpegurl" }
        if url.contains(".ts") { return "video/mp2t" }
        if url.contains(".js") { return "text/javascript" }
        return "x-unknown"
    }

    var json: [UInt8] {
        let log: [String: Any] = [
            "log": [
                "version": "1.2", "creator": ["name": creator.name, "version": creator.version],
                "pages": [] as [Any], "entries": entries,
            ] as [String: Any],
        ]
        return [UInt8](try! JSONSerialization.data(withJSONObject: log, options: [.prettyPrinted, .sortedKeys]))
    }

    /// Writes the HAR as `name` in `folder`; its path.
    func write(named name: String = "field.har", in folder: TemporaryFolder) throws -> String {
        try folder.file(name, json)
    }

    // MARK: - A field session: a live stream straight from a CDN, no hlschaos in the path

    static let master = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en/index.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",LANGUAGE="fr",NAME="Français",DEFAULT=NO,AUTOSELECT=YES,URI="audio/fr/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=225254,RESOLUTION=416x234,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud"
        v0/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=374902,RESOLUTION=640x360,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud"
        v1/index.m3u8?token=abc
        #EXT-X-STREAM-INF:BANDWIDTH=653142,RESOLUTION=960x540,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud"
        https://cdn.example.com/live/v2/index.m3u8

        """

    /// A live media playlist with MSNs `first`…`first + count - 1`, segment URIs `seg<MSN>.ts`.
    static func media(first: Int, count: Int = 12) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        for msn in first..<(first + count) { text += "#EXTINF:2.0,\nseg\(msn).ts\n" }
        return text
    }

    static let segmentBytes = 150_000

    /// What went wrong in the field, one of each kind, among normal requests:
    /// - v2 MSN 105: 503 then a retry that worked; v2 MSN 106-108: 503 every time (106 retried);
    /// - v2 MSN 109: 3 s to the first byte; v2 MSN 110: a body at 200 kbit/s;
    /// - v1 MSN 111: cut short after 40 000 bytes; audio fr MSN 104: reset before any response;
    /// - v2 MSN 111: no response for 12 s, then hls.js gave up; v0 MSN 111: cancelled at once;
    /// - an ad segment no playlist lists: 404; two requests that are not HLS (one failed).
    static func field() -> (har: HARFixture, indexes: [String: Int]) {
        var har = HARFixture()
        var at: [String: Int] = [:]
        let seg = { (owner: String, msn: Int) in "\(origin)/\(owner)/seg\(msn).ts" }
        har.add("https://www.example.com/player.js", at: 0)
        at["master"] = har.add("\(origin)/master.m3u8", at: 0.5, body: master)
        at["v2"] = har.add("\(origin)/v2/index.m3u8", at: 0.6, body: media(first: 100))
        har.add("\(origin)/v1/index.m3u8?token=abc", at: 0.6, body: media(first: 100))
        har.add("\(origin)/v0/index.m3u8", at: 0.6, body: media(first: 100))
        har.add("\(origin)/audio/fr/index.m3u8", at: 0.7, body: media(first: 100))
        at["v2-100"] = har.add(seg("v2", 100), at: 1.0, base64: Array(repeating: 0x47, count: 188 * 10))
        for msn in 101...104 { har.add(seg("v2", msn), at: Double(msn - 100) + 1, size: segmentBytes) }
        for msn in 100...103 { har.add(seg("audio/fr", msn), at: Double(msn - 100) + 1.1, size: 12_000) }
        at["fr-104"] = har.add(seg("audio/fr", 104), at: 5.1, status: 0, error: "net::ERR_CONNECTION_RESET", time: 15)
        at["v2-105-503"] = har.add(seg("v2", 105), at: 6.0, status: 503, body: "busy", headers: [("Retry-After", "2"), ("Content-Type", "text/plain")])
        at["v2-105-ok"] = har.add(seg("v2", 105), at: 7.0, size: segmentBytes)
        at["v2-106-503"] = har.add(seg("v2", 106), at: 8.0, status: 503, body: "busy")
        har.add(seg("v2", 106), at: 9.0, status: 503, body: "busy")
        har.add(seg("v2", 107), at: 10.0, status: 503, body: "busy")
        har.add(seg("v2", 108), at: 11.0, status: 503, body: "busy")
        at["v2-109"] = har.add(seg("v2", 109), at: 12.0, wait: 3_000, size: segmentBytes)
        at["v2-110"] = har.add(seg("v2", 110), at: 16.0, receive: 6_000, size: segmentBytes)
        at["v1-111"] = har.add(seg("v1", 111), at: 22.0, size: 40_000, error: "net::ERR_CONTENT_LENGTH_MISMATCH",
                               headers: [("Content-Length", String(segmentBytes))])
        at["v2-111"] = har.add(seg("v2", 111), at: 23.0, status: 0, error: "net::ERR_ABORTED", time: 12_000)
        at["v0-111"] = har.add(seg("v0", 111), at: 23.5, status: 0, error: "net::ERR_ABORTED", time: 30)
        at["ad"] = har.add("https://ads.example.net/break/ad7.ts", at: 30.0, status: 404, body: "gone")
        for msn in 104...107 { har.add(seg("v1", msn), at: Double(msn - 100) + 27.2, size: 80_000) }
        at["favicon"] = har.add("https://www.example.com/favicon.ico", at: 31.0, status: 404, mimeType: "image/x-icon")
        return (har, at)
    }
}
