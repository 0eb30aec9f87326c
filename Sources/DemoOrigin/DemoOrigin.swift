import Addressing
import Foundation

/// The embedded demo origin: the bundled VOD media under `/vod/<flavour>/…` and a
/// simulated live stream under `/live/<flavour>/…` (a sliding window over the looping VOD
/// whose media sequence grows with the injected clock), a low-latency stream under
/// `/ll/…` (`LowLatencyStream`), and the live stream on two content-steering pathways under
/// `/steering/<flavour>/…` (`SteeringDemo`). Pure: answers requests given as values; `DemoOriginServer`
/// puts it on the wire.
public struct DemoOrigin: Sendable {
    /// Segment length of the bundled media, in seconds (see scripts/make-demo-media.sh).
    public static let segmentDuration: Double = 2
    /// Number of segments in every live media playlist.
    public static let liveWindowSize = 6
    /// Flavours served as VOD.
    public static let vodFlavours = ["ts", "fmp4", "aes", "byterange"]
    /// Flavours also served live (byte-range live is not simulated).
    public static let liveFlavours = ["ts", "fmp4", "aes"]
    /// The low-latency live stream (`/ll/`) is fragmented MP4 only.
    public static let lowLatencyFlavours = ["fmp4"]

    /// The flavours the demo serves `stream` ("vod", "live" or "ll") in; empty for another name.
    public static func flavours(of stream: String) -> [String] {
        switch stream {
        case "vod": vodFlavours
        case "live": liveFlavours
        case "ll": lowLatencyFlavours
        case "steering": liveFlavours
        default: []
        }
    }

    /// The playable master playlists, VOD and live per flavour, as paths on the origin.
    public static let catalogue: [(path: String, title: String)] = [
        ("/vod/ts/master.m3u8", "VOD, MPEG-TS"),
        ("/vod/fmp4/master.m3u8", "VOD, fragmented MP4"),
        ("/vod/aes/master.m3u8", "VOD, AES-128 encrypted MPEG-TS"),
        ("/vod/byterange/master.m3u8", "VOD, MPEG-TS single file with byte ranges"),
        ("/live/ts/master.m3u8", "Live, MPEG-TS"),
        ("/live/fmp4/master.m3u8", "Live, fragmented MP4"),
        ("/live/aes/master.m3u8", "Live, AES-128 encrypted MPEG-TS"),
        ("/ll/master.m3u8", "Low-Latency HLS live, fragmented MP4 (CMAF) parts"),
        ("/steering/ts/master.m3u8", "Live, MPEG-TS, on two content-steering pathways (cdn-a, cdn-b)"),
    ]

    private let media: MediaLibrary
    /// Live writers keyed by media playlist path relative to the media folder (`ts/v0/index.m3u8`).
    private let liveWriters: [String: LiveMediaPlaylistWriter]
    /// How each live rendition's loops move forward in media time instead of restarting at
    /// zero (keyed like `liveWriters`); absent for encrypted renditions, which cannot be patched.
    private let loopShifts: [String: LoopShift]

    enum LoopShift: Sendable {
        case fmp4(timescale: UInt32)
        case mpegts(MPEGTSTimeShift)
    }
    private let timeline: LiveTimeline
    let lowLatency: LowLatencyStream
    private let clock: @Sendable () -> Date

    /// Loads the media bundled with the package. The live stream's time origin is `clock()` now.
    public init(clock: @escaping @Sendable () -> Date = Date.init) throws {
        try self.init(media: MediaLibrary.bundled(), clock: clock)
    }

    /// Loads media laid out like the bundled folder (`<flavour>/master.m3u8` …) from `mediaDirectory`.
    public init(mediaDirectory: URL, clock: @escaping @Sendable () -> Date = Date.init) throws {
        try self.init(media: MediaLibrary.load(from: mediaDirectory), clock: clock)
    }

    private init(media: MediaLibrary, clock: @escaping @Sendable () -> Date) throws {
        let originStart = clock()
        let timeline = LiveTimeline(originStart: originStart, segmentDuration: Self.segmentDuration,
                                    windowSize: Self.liveWindowSize)
        var writers: [String: LiveMediaPlaylistWriter] = [:]
        var shifts: [String: LoopShift] = [:]
        for flavour in Self.liveFlavours {
            var segmentCount: Int?
            for (path, data) in media.files where path.hasPrefix(flavour + "/") && path.hasSuffix("/index.m3u8") {
                guard let text = String(data: data, encoding: .utf8) else {
                    throw DemoOriginError.unsupportedPlaylist(path: path, reason: "not UTF-8")
                }
                let vod = try VODMediaPlaylist(text: text, path: path)
                if let count = segmentCount, count != vod.segments.count {
                    throw DemoOriginError.unsupportedPlaylist(
                        path: path, reason: "has \(vod.segments.count) segments, other \(flavour) renditions have \(count)")
                }
                segmentCount = vod.segments.count
                writers[path] = LiveMediaPlaylistWriter(vod: vod, timeline: timeline)
                if let mapURI = vod.mapURI {
                    let initPath = Self.directory(of: path) + "/" + mapURI
                    guard let initData = media.files[initPath],
                          let timescale = FMP4TimeShift.timescale(ofInitSegment: initData) else {
                        throw DemoOriginError.unsupportedPlaylist(path: path, reason: "no media timescale in \(initPath)")
                    }
                    shifts[path] = .fmp4(timescale: timescale)
                } else if !vod.isEncrypted, vod.segments.allSatisfy({ $0.fileExtension == "ts" }) {
                    let directory = Self.directory(of: path)
                    let segments = vod.segments.compactMap { media.files[directory + "/" + $0.uri] }
                    guard segments.count == vod.segments.count, let shift = MPEGTSTimeShift(segments: segments) else {
                        throw DemoOriginError.unsupportedPlaylist(path: path, reason: "segments missing or not MPEG-TS")
                    }
                    shifts[path] = .mpegts(shift)
                }
            }
        }
        self.media = media
        self.liveWriters = writers
        self.loopShifts = shifts
        self.timeline = timeline
        self.lowLatency = try LowLatencyStream(media: media, originStart: originStart, segmentDuration: Self.segmentDuration)
        self.clock = clock
    }

    /// Answers one request now. A request that would be held (see `answer`) gets 503 saying
    /// until when; servers use `answer`.
    public func respond(method: String, path: String, headers: [(String, String)]) -> DemoResponse {
        switch answer(method: method, path: path, headers: headers) {
        case .response(let response):
            return response
        case .retry(let delay):
            return Self.text(503, "held: ask again in \(delay) s", head: method == "HEAD")
        }
    }

    /// Answers one request, or says when to ask again (an `/ll/` blocking reload or preload-hinted
    /// part not published yet). `path` is the request target as received (percent-encoded, query
    /// allowed). Only GET and HEAD are served; `Range` is honoured for one range.
    public func answer(method: String, path: String, headers: [(String, String)]) -> DemoAnswer {
        let isHead = method == "HEAD"
        guard method == "GET" || isHead else {
            var response = Self.text(405, "method \(method) not allowed; use GET or HEAD", head: false)
            response.headers.append(("allow", "GET, HEAD"))
            return .response(response)
        }
        let components: [String]
        switch RequestPath.components(of: path) {
        case .failure(let error):
            return .response(Self.text(400, "bad request path: \(error.reason)", head: isHead))
        case .success(let value):
            components = value
        }
        let host = headers.first { $0.0.lowercased() == "host" }?.1
        guard let resolved = resolve(components, target: path, host: host) else {
            return .response(Self.text(404, "not found: \(path)", head: isHead))
        }
        switch resolved {
        case .failure(let status, let reason):
            return .response(Self.text(status, reason, head: isHead))
        case .retry(let delay):
            return .retry(after: delay)
        case .content(let body, let contentType, let isLivePlaylist):
            let range = headers.first { $0.0.lowercased() == "range" }?.1
            var response = Self.ranged(body: body, contentType: contentType, range: range, head: isHead)
            if isLivePlaylist {
                response.headers.append(("cache-control", "no-cache"))
            }
            return .response(response)
        }
    }

    private enum Resolved {
        case content(Data, contentType: String, isLivePlaylist: Bool)
        case failure(status: Int, String)
        case retry(after: TimeInterval)

        static func notFound(_ reason: String) -> Resolved { .failure(status: 404, reason) }
    }

    private func resolve(_ components: [String], target: String, host: String?) -> Resolved? {
        if components.isEmpty {
            return .content(Data(indexText.utf8), contentType: "text/plain; charset=utf-8", isLivePlaylist: false)
        }
        guard components.count >= 2 else { return nil }
        let flavour = components[1]
        let relative = components.dropFirst().joined(separator: "/")
        switch components[0] {
        case "vod":
            guard Self.vodFlavours.contains(flavour), let data = media.files[relative] else { return nil }
            return .content(data, contentType: ContentType.forPath(relative), isLivePlaylist: false)
        case "live":
            guard Self.liveFlavours.contains(flavour) else {
                return Self.vodFlavours.contains(flavour)
                    ? .notFound("the \(flavour) flavour is served as VOD only: /vod/\(flavour)/master.m3u8") : nil
            }
            return resolveLive(relative: relative)
        case "steering":
            guard Self.liveFlavours.contains(flavour), components.count == 3 else { return nil }
            switch components[2] {
            case "master.m3u8":
                guard case .content(let live, _, _)? = resolveLive(relative: "\(flavour)/master.m3u8") else { return nil }
                guard let master = SteeringDemo.master(live: String(decoding: live, as: UTF8.self), flavour: flavour, host: host) else {
                    return .failure(status: 400, "the steering master names its second pathway's host after the Host header: send one")
                }
                return .content(Data(master.utf8), contentType: ContentType.playlist, isLivePlaylist: false)
            case "manifest.json":
                return .content(Data(SteeringDemo.manifest.utf8), contentType: "application/json", isLivePlaylist: true)
            default:
                return nil
            }
        case "ll":
            let now = clock()
            switch lowLatency.resolve(relative: relative, target: target, now: now) {
            case nil: return nil
            case .content(let data, let contentType, let isPlaylist)?:
                return .content(data, contentType: contentType, isLivePlaylist: isPlaylist)
            case .notBefore(let date)?:
                return .retry(after: date.timeIntervalSince(now))
            case .failure(let status, let message)?:
                return .failure(status: status, message)
            }
        default:
            return nil
        }
    }

    private func resolveLive(relative: String) -> Resolved? {
        if let writer = liveWriters[relative] {
            let text = writer.text(window: timeline.window(at: clock()))
            return .content(Data(text.utf8), contentType: ContentType.playlist, isLivePlaylist: true)
        }
        let directory = relative.split(separator: "/").dropLast().joined(separator: "/")
        let name = relative.split(separator: "/").last.map(String.init) ?? ""
        if name.hasPrefix("seg-"), let writer = liveWriters[directory + "/index.m3u8"] {
            let stem = name.dropFirst("seg-".count).prefix { $0 != "." }
            guard let msn = Int(stem), msn >= 0, stem.allSatisfy(\.isNumber) else { return nil }
            let segment = writer.vod.segments[msn % writer.vod.segments.count]
            guard name == "seg-\(msn).\(segment.fileExtension)" else { return nil }
            let latest = timeline.latestMSN(at: clock())
            guard msn <= latest else {
                return .notFound("live segment \(msn) is not available yet (latest is \(latest))")
            }
            let file = directory + "/" + segment.uri
            guard let data = media.files[file] else { return nil }
            let body = shiftedForLoop(data, playlist: directory + "/index.m3u8", msn: msn,
                                      segmentCount: writer.vod.segments.count, fileExtension: segment.fileExtension)
            return .content(body, contentType: ContentType.forPath(file), isLivePlaylist: false)
        }
        if name == "master.m3u8", let data = media.files[relative] {
            // The VOD master minus its I-frame playlists, which are not simulated live.
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let live = lines.filter { !$0.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") }.joined(separator: "\n")
            return .content(Data(live.utf8), contentType: ContentType.playlist, isLivePlaylist: false)
        }
        // Init segments and keys: the same files as VOD. Other VOD playlists are not live.
        guard !name.hasSuffix(".m3u8"), let data = media.files[relative] else { return nil }
        return .content(data, contentType: ContentType.forPath(relative), isLivePlaylist: false)
    }

    /// Loop `n` of a clear flavour plays `n × loop length` later in media time (see
    /// `FMP4TimeShift`, `MPEGTSTimeShift`); its WebVTT timestamp maps move along. Encrypted
    /// loops restart at the VOD timestamps.
    private func shiftedForLoop(_ data: Data, playlist: String, msn: Int, segmentCount: Int, fileExtension: String) -> Data {
        let loop = msn / segmentCount
        let flavour = playlist.prefix { $0 != "/" }
        guard loop > 0, loopShifts.keys.contains(where: { $0.hasPrefix(flavour + "/") }) else { return data }
        let loopSeconds = segmentCount * Int(Self.segmentDuration)
        switch loopShifts[playlist] {
        case .fmp4(let timescale):
            let (sequenceOffset, overflow) = UInt32(truncatingIfNeeded: loop).multipliedReportingOverflow(by: UInt32(segmentCount))
            guard !overflow, loop <= Int(UInt32.max) else { return data }
            return FMP4TimeShift.shifted(data, bySeconds: loop * loopSeconds, timescale: timescale,
                                         sequenceOffset: sequenceOffset) ?? data
        case .mpegts(let shift):
            return shift.shifted(data, loop: loop, loopSeconds: loopSeconds) ?? data
        case nil:
            return fileExtension == "vtt" ? WebVTTTimeShift.shifted(data, bySeconds: loop * loopSeconds) : data
        }
    }

    private static func directory(of path: String) -> String {
        path.split(separator: "/").dropLast().joined(separator: "/")
    }

    private var indexText: String {
        var lines = ["hlschaos demo origin. Playable master playlists:"]
        for entry in Self.catalogue {
            lines.append("\(entry.path)  \(entry.title)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func text(_ status: Int, _ message: String, head: Bool) -> DemoResponse {
        let body = Data((message + "\n").utf8)
        return DemoResponse(
            status: status,
            headers: [("content-type", "text/plain; charset=utf-8"), ("content-length", "\(body.count)")],
            body: head ? Data() : body)
    }

    private static func ranged(body: Data, contentType: String, range: String?, head: Bool) -> DemoResponse {
        var headers: [(String, String)] = [("content-type", contentType), ("accept-ranges", "bytes")]
        // Malformed, multi-range and other-unit headers get the whole body, as servers may.
        switch RangeHeader.single(range).map({ $0.resolved(length: body.count) }) {
        case nil:
            headers.append(("content-length", "\(body.count)"))
            return DemoResponse(status: 200, headers: headers, body: head ? Data() : body)
        case let span??:
            let lower = span.lowerBound, upper = span.upperBound
            headers.append(("content-range", "bytes \(lower)-\(upper)/\(body.count)"))
            headers.append(("content-length", "\(upper - lower + 1)"))
            let start = body.startIndex + lower
            return DemoResponse(status: 206, headers: headers, body: head ? Data() : Data(body[start...(start + upper - lower)]))
        case .some(nil):
            let message = Data("range \(range ?? "") is outside the \(body.count) bytes of this file\n".utf8)
            return DemoResponse(
                status: 416,
                headers: [("content-type", "text/plain; charset=utf-8"), ("content-range", "bytes */\(body.count)"),
                          ("content-length", "\(message.count)")],
                body: head ? Data() : message)
        }
    }
}
