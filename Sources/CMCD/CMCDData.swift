/// One key as a request carried it.
public struct CMCDPair: Sendable, Hashable {
    public var key: String
    public var value: CMCDValue
    public var carriage: CMCDCarriage

    public init(key: String, value: CMCDValue, carriage: CMCDCarriage) {
        self.key = key
        self.value = value
        self.carriage = carriage
    }

    /// `key=value`, or the key alone for true.
    public var wireText: String { value.member(key) }
}

/// The CMCD one request carried: every key as read (`pairs`), the keys CMCD defines as typed
/// fields (only values that are valid; a wrong one is in `pairs` and `findings`), and what was
/// wrong. Units are the specification's: kbps for bitrates and throughput, milliseconds for
/// durations and buffers.
public struct CMCDData: Sendable, Hashable {
    /// Every key read, once (the later of a repeated key), in the order first read.
    public var pairs: [CMCDPair] = []
    public var findings: [CMCDFinding] = []
    /// Where the request carried CMCD (also a carriage that held nothing readable).
    public var carriages: Set<CMCDCarriage> = []
    /// `v`, or 1 when the request does not say.
    public var version = 1

    // CMCD-Object
    /// Encoded bitrate, kbps (v2 per object type).
    public var br: [CMCDTypedValue]?
    /// Aggregate encoded bitrate, kbps (v2).
    public var ab: [CMCDTypedValue]?
    /// Object duration, ms.
    public var d: Int?
    /// Object type.
    public var ot: CMCDObjectType?
    /// Top bitrate in the manifest, kbps.
    public var tb: [CMCDTypedValue]?
    /// Lowest, top aggregated, lowest aggregated, top playable bitrates, kbps (v2).
    public var lb: [CMCDTypedValue]?, tab: [CMCDTypedValue]?, lab: [CMCDTypedValue]?, tpb: [CMCDTypedValue]?

    // CMCD-Request
    /// Buffer length, ms (v2 per object type).
    public var bl: [CMCDTypedValue]?
    /// Target buffer length, ms (v2).
    public var tbl: [CMCDTypedValue]?
    /// Deadline: until the object's first sample is needed, ms.
    public var dl: Int?
    /// Measured throughput, kbps: the player's own estimate.
    public var mtp: [CMCDTypedValue]?
    /// Playhead bitrate, kbps (v2).
    public var pb: [CMCDTypedValue]?
    /// Next object requests (v1 one path with `nrr`; v2 a list, each with an optional range).
    public var nor: [CMCDNextObject]?
    /// Next range request (v1).
    public var nrr: String?
    /// Startup: the object is needed urgently (startup, seek, recovery from an empty buffer).
    public var su = false
    /// Player state (v2).
    public var sta: CMCDPlayerState?
    /// Live latency, ms (v2).
    public var ltc: Int?
    /// Dropped frames since the session began (v2).
    public var dfa: Int?
    /// Sequence number of the report (v2).
    public var sn: Int?
    /// Timestamp, ms since 1970 (v2).
    public var ts: Int?
    /// Content signature (v2).
    public var cs: String?

    // CMCD-Session
    public var cid: String?
    public var sid: String?
    public var sf: CMCDStreamingFormat?
    public var st: CMCDStreamType?
    /// The `v` key as sent (nil when absent: version 1).
    public var v: Int?
    /// Media start delay, ms (v2): sent once per session, after startup.
    public var msd: Int?

    // CMCD-Status
    /// Buffer starvation since the previous request.
    public var bs = false
    /// Backgrounded, non-rendered (v2).
    public var bg = false, nr = false
    /// Requested maximum throughput, kbps.
    public var rtp: Int?
    /// Playback rate (1 real time, 0 not playing).
    public var pr: Double?
    /// Starvation count, starvation durations (ms) since the last report, total starvation (ms) (v2).
    public var bsa: [CMCDTypedValue]?, bsd: [CMCDTypedValue]?, bsda: [CMCDTypedValue]?
    public var cdn: String?
    /// Player error codes (v2).
    public var ec: [String]?
    /// Playhead time, ms (v2).
    public var pt: Int?

    public init() {}

    /// Keys CMCD does not define: vendor keys (`com.example-x`) and unknown ones, as read.
    public var customPairs: [CMCDPair] { pairs.filter { CMCDKey(rawValue: $0.key) == nil } }

    /// The raw value of a key, if the request carried it.
    public func pair(_ key: String) -> CMCDPair? { pairs.first { $0.key == key } }

    /// The buffer length for the requested object's type (ms): the value the request's `ot` names, or
    /// the one untagged value.
    public var bufferLength: Int? { bl?.value(for: ot) }
    /// The encoded bitrate of the requested object (kbps).
    public var bitrate: Int? { br?.value(for: ot) }
    /// The top bitrate for the requested object's type (kbps).
    public var topBitrate: Int? { tb?.value(for: ot) }
    /// The player's throughput estimate (kbps).
    public var measuredThroughput: Int? { mtp?.value(for: ot) }

    /// The keys as one compact dictionary (alphabetical, as CMCD recommends): what a record keeps.
    public var compactText: String {
        pairs.sorted { $0.key < $1.key }.map(\.wireText).joined(separator: ",")
    }
}
