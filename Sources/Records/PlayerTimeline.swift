import CMCD
import Foundation

/// What the player said about itself over a session, read off the CMCD its requests carried
/// (`RequestRecord.cmcd`): its buffer per object type, throughput estimate, bitrates, startup
/// requests, stalls, playback rate, stream type and latency. Built from the session's records, so it
/// holds what the record ring still holds; `maxPoints` bounds it (the newest points are kept, the
/// summary counts all).
public struct PlayerTimeline: Sendable, Codable, Equatable {
    public static let maxPoints = 5000

    public var session: String?
    public var requests: Int
    public var requestsWithCMCD: Int
    /// Requests whose CMCD had findings (malformed or out of range).
    public var requestsWithFindings: Int
    /// The `sid` values seen, in order of first appearance (more than one: it changed mid-session).
    public var sessionIDs: [String]
    public var points: [Point]
    /// Points left out to stay within `maxPoints` (the oldest).
    public var pointsLeftOut: Int
    /// Every way the player said a stall, each with its `source` (a v2 player may say one stall as
    /// `sta`, `bs` and `bsd`): `saidStalls` counts each once.
    public var stalls: [Stall]
    /// The lowest buffer length any request reported.
    public var lowestBuffer: BufferMark?
    public var startup: Startup?

    /// The stalls the player said, one per stall: its `sta=r` spans when it sent any, else its
    /// `bs`, else its `bsd`. What the checks count and the report and the dashboard show.
    public var saidStalls: [Stall] {
        ["sta", "bs", "bsd"].lazy.map { source in stalls.filter { $0.source == source } }.first { !$0.isEmpty } ?? []
    }

    /// `saidStalls`, or nil when no request carried CMCD (the player said nothing either way).
    public var cmcdStalls: [Stall]? { requestsWithCMCD > 0 ? saidStalls : nil }

    /// One request's CMCD. Times are seconds since the session's first request.
    public struct Point: Sendable, Codable, Equatable {
        public var record: UInt64
        public var time: Double
        /// `ot`: m a v av i c tt k o.
        public var objectType: String?
        /// `bl` for the request's own object type, ms.
        public var bufferLength: Int?
        /// `bl` per object type when the request gave several (v2), ms.
        public var buffers: [String: Int]?
        /// `mtp` (the player's throughput estimate), `rtp` (requested maximum), `br`, `tb`: kbps.
        public var measuredThroughput: Int?
        public var requestedThroughput: Int?
        public var bitrate: Int?
        public var topBitrate: Int?
        public var startup: Bool?
        public var bufferStarvation: Bool?
        /// `sta` (v2) in words: starting, playing, seeking, rebuffering, paused, ended, fatalError, quit, preloading.
        public var state: String?
        public var playbackRate: Double?
        /// `st`: v (VOD), l (live), ll (low latency).
        public var streamType: String?
        /// `ltc` (v2), ms.
        public var latency: Int?
        public var findings: [String]?
    }

    /// A stall the player reported: v1 `bs` (a starvation since its previous request, dated at the
    /// request that said so), v2 `sta=r` (from the first request in that state to the first out of
    /// it) or v2 `bsd` (a duration given).
    public struct Stall: Sendable, Codable, Equatable {
        public var record: UInt64
        public var time: Double
        /// Seconds, when known (`sta` ended, or `bsd` given).
        public var duration: Double?
        /// `bs`, `sta` or `bsd`.
        public var source: String
    }

    public struct BufferMark: Sendable, Codable, Equatable {
        public var record: UInt64
        public var time: Double
        /// ms.
        public var bufferLength: Int
    }

    /// How long the player took to start: v2 `msd` when sent, else the first `sta=p`, else the end of
    /// the first run of startup (`su`) requests, counted from the session's first request.
    public struct Startup: Sendable, Codable, Equatable {
        public var seconds: Double
        /// `msd`, `sta` or `su`.
        public var source: String
    }

    /// The timeline of these records (one session's stream records: `CONNECT`s and a forward
    /// device's other traffic are left out); records without CMCD count in `requests` only.
    public static func build(_ records: [RequestRecord]) -> PlayerTimeline {
        let records = records.streamRecords.sorted(by: RequestRecord.chronological)
        var timeline = PlayerTimeline(
            session: records.first?.session, requests: records.count, requestsWithCMCD: 0, requestsWithFindings: 0,
            sessionIDs: [], points: [], pointsLeftOut: 0, stalls: [], lowestBuffer: nil, startup: nil)
        guard let origin = records.first?.time else { return timeline }
        var rebufferingSince: (record: UInt64, time: Double)?
        var startupRunEnded = false, sawStartup = false
        var firstPlaying: Double?, mediaStartDelay: Int?, startupEnd: Double?

        for record in records {
            guard let kept = record.cmcd, let cmcd = CMCDData.parse(compact: kept.text) else { continue }
            let time = record.time.timeIntervalSince(origin)
            timeline.requestsWithCMCD += 1
            if kept.findings != nil { timeline.requestsWithFindings += 1 }
            if let sid = cmcd.sid, !timeline.sessionIDs.contains(sid), timeline.sessionIDs.count < 16 { timeline.sessionIDs.append(sid) }
            let point = Self.point(record, cmcd, time: time)
            timeline.points.append(point)

            if let length = point.bufferLength, length < timeline.lowestBuffer?.bufferLength ?? .max {
                timeline.lowestBuffer = BufferMark(record: record.id, time: time, bufferLength: length)
            }
            if cmcd.bs { timeline.stalls.append(Stall(record: record.id, time: time, source: "bs")) }
            if let total = cmcd.bsd?.reduce(0, { $0 + $1.value }), total > 0 {
                timeline.stalls.append(Stall(record: record.id, time: time, duration: Double(total) / 1000, source: "bsd"))
            }
            if cmcd.sta == .rebuffering {
                if rebufferingSince == nil { rebufferingSince = (record.id, time) }
            } else if cmcd.sta != nil, let since = rebufferingSince {
                timeline.stalls.append(Stall(record: since.record, time: since.time, duration: time - since.time, source: "sta"))
                rebufferingSince = nil
            }
            if cmcd.sta == .playing, firstPlaying == nil { firstPlaying = time }
            if mediaStartDelay == nil, let msd = cmcd.msd { mediaStartDelay = msd }
            if !startupRunEnded {
                if cmcd.su { sawStartup = true } else if sawStartup { startupRunEnded = true; startupEnd = time }
            }
        }
        if let since = rebufferingSince { timeline.stalls.append(Stall(record: since.record, time: since.time, source: "sta")) }
        timeline.stalls.sort { ($0.time, $0.record) < ($1.time, $1.record) }
        if let msd = mediaStartDelay {
            timeline.startup = Startup(seconds: Double(msd) / 1000, source: "msd")
        } else if let firstPlaying {
            timeline.startup = Startup(seconds: firstPlaying, source: "sta")
        } else if let startupEnd {
            timeline.startup = Startup(seconds: startupEnd, source: "su")
        }
        if timeline.points.count > maxPoints {
            timeline.pointsLeftOut = timeline.points.count - maxPoints
            timeline.points.removeFirst(timeline.pointsLeftOut)
        }
        return timeline
    }

    private static func point(_ record: RequestRecord, _ cmcd: CMCDData, time: Double) -> Point {
        var buffers: [String: Int]?
        if let list = cmcd.bl, list.count > 1 {
            buffers = Dictionary(list.compactMap { item in item.objectType.map { ($0.rawValue, item.value) } }, uniquingKeysWith: { first, _ in first })
        }
        return Point(
            record: record.id, time: time, objectType: cmcd.ot?.rawValue, bufferLength: cmcd.bufferLength, buffers: buffers,
            measuredThroughput: cmcd.measuredThroughput, requestedThroughput: cmcd.rtp, bitrate: cmcd.bitrate, topBitrate: cmcd.topBitrate,
            startup: cmcd.su ? true : nil, bufferStarvation: cmcd.bs ? true : nil, state: cmcd.sta.map { "\($0)" },
            playbackRate: cmcd.pr, streamType: cmcd.st?.rawValue, latency: cmcd.ltc, findings: record.cmcd?.findings)
    }

    /// The buffer the player reported at a record: its own CMCD's, else the latest earlier one's (ms).
    public func bufferLength(atOrBefore record: RequestRecord, origin: Date) -> Int? {
        let time = record.time.timeIntervalSince(origin)
        return points.last { $0.record == record.id && $0.bufferLength != nil }?.bufferLength
            ?? points.last { $0.time <= time && $0.bufferLength != nil }?.bufferLength
    }
}
