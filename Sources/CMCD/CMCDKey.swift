/// The keys CTA-5004 (version 1) and CTA-5004-A (version 2) define, with what each key's value is:
/// its shape, unit, header, the versions that define it, where it may be sent. The one table the
/// parser, the checks and the documentation read.
public enum CMCDKey: String, CaseIterable, Sendable, Hashable, Comparable {
    // Version 1 and 2.
    case br, bl, bs, cid, d, dl, mtp, nor, ot, pr, rtp, sf, sid, st, su, tb, v
    /// Version 1 only: the byte range of `nor` (v2 puts it on `nor` as `;r`).
    case nrr
    // Version 2 additions, request mode.
    case ab, bg, bsa, bsd, bsda, cdn, cs, dfa, ec, lab, lb, ltc, msd, nr, pb, pt, sn, sta, tab, tbl, tpb, ts
    // Version 2, event and response reports: defined, read and checked, but not expected on a media request.
    case e, h, cen, url, rc, ttfb, ttfbb, ttlb, cmsdd, cmsds, smrt

    /// What a key's value is.
    public enum Shape: Sendable, Hashable {
        case integer
        case decimal
        case string(maxLength: Int?)
        case token([String])
        case boolean
        /// v2: an inner list of integers, each optionally naming its object type (`(3000;v 128;a)`);
        /// v1 sends the same keys as one integer.
        case typedIntegers
        /// v2: an inner list of strings (`ec`).
        case stringList
        /// `nor`: v1 one string, v2 an inner list of strings with an optional `r` range parameter.
        case nextObjects
    }

    /// Which versions define a key.
    public enum Versions: Sendable, Hashable {
        case both, onlyV1, sinceV2

        public func contains(_ version: Int) -> Bool {
            switch self {
            case .both: true
            case .onlyV1: version == 1
            case .sinceV2: version >= 2
            }
        }
    }

    public var shape: Shape {
        switch self {
        case .br, .bl, .mtp, .tb, .ab, .bsa, .bsd, .bsda, .lab, .lb, .pb, .tab, .tbl, .tpb: .typedIntegers
        case .d, .dl, .rtp, .v, .dfa, .ltc, .msd, .pt, .sn, .ts, .rc, .ttfb, .ttfbb, .ttlb: .integer
        case .bs, .su, .bg, .nr: .boolean
        case .pr: .decimal
        case .cid: .string(maxLength: 128)
        case .sid: .string(maxLength: 64)
        case .cdn, .h: .string(maxLength: 128)
        case .cen: .string(maxLength: 64)
        case .nrr, .cs, .url, .cmsdd, .cmsds, .smrt: .string(maxLength: nil)
        case .ot: .token(CMCDObjectType.allCases.map(\.rawValue))
        case .sf: .token(CMCDStreamingFormat.allCases.map(\.rawValue))
        case .st: .token(CMCDStreamType.allCases.map(\.rawValue))
        case .sta: .token(CMCDPlayerState.allCases.map(\.rawValue))
        case .e: .token(["abs", "abe", "ae", "as", "b", "bc", "c", "ce", "e", "h", "m", "pc", "pe", "pr", "ps", "rr", "sk", "t", "um"])
        case .ec: .stringList
        case .nor: .nextObjects
        }
    }

    /// Version 1 caps `cid` at 64 characters; version 2 at 128.
    public func maxLength(version: Int) -> Int? {
        if self == .cid && version == 1 { return 64 }
        if case .string(let maxLength) = shape { return maxLength }
        return nil
    }

    public enum Unit: String, Sendable, Hashable {
        case kbps, milliseconds = "ms", millisecondsSinceEpoch = "ms since 1970", count, none = ""
    }

    public var unit: Unit {
        switch self {
        case .br, .mtp, .rtp, .tb, .ab, .lab, .lb, .pb, .tab, .tpb: .kbps
        case .bl, .d, .dl, .bsd, .bsda, .ltc, .msd, .pt, .tbl, .ttfb, .ttfbb, .ttlb: .milliseconds
        case .ts: .millisecondsSinceEpoch
        case .bsa, .dfa, .sn: .count
        default: .none
        }
    }

    public var versions: Versions {
        switch self {
        case .br, .bl, .bs, .cid, .d, .dl, .mtp, .nor, .ot, .pr, .rtp, .sf, .sid, .st, .su, .tb, .v: .both
        case .nrr: .onlyV1
        default: .sinceV2
        }
    }

    /// Keys of v2's event and response reports (sent to a report target, not on a media request).
    public var isReportKey: Bool {
        switch self {
        case .e, .h, .cen, .url, .rc, .ttfb, .ttfbb, .ttlb, .cmsdd, .cmsds, .smrt: true
        default: false
        }
    }

    /// The header a key belongs in. `pr` moved from CMCD-Session (v1) to CMCD-Status (v2).
    public func header(version: Int) -> CMCDHeaderField {
        switch self {
        case .br, .d, .ot, .tb, .ab, .lab, .lb, .tab, .tpb: .object
        case .bl, .dl, .mtp, .nor, .nrr, .su, .cs, .dfa, .ltc, .pb, .sn, .sta, .tbl, .ts: .request
        case .cid, .sf, .sid, .st, .v, .msd: .session
        case .pr: version == 1 ? .session : .status
        case .bs, .rtp, .bg, .bsa, .bsd, .bsda, .cdn, .ec, .nr, .pt: .status
        case .e, .h, .cen, .url, .rc, .ttfb, .ttfbb, .ttlb, .cmsdd, .cmsds, .smrt: .request
        }
    }

    /// The object types a key may be sent with; nil for any. `d` MUST NOT be sent on other types,
    /// `tpb` likewise; `bl` (v1: a, v, av) SHOULD only be.
    public func objectTypes(version: Int) -> Set<CMCDObjectType>? {
        switch self {
        case .d: CMCDObjectType.media
        case .tpb: [.audio, .video, .muxed, .caption]
        case .bl: version == 1 ? CMCDObjectType.audioVisual : CMCDObjectType.media
        default: nil
        }
    }

    /// The step a value is rounded to (`bl`, `dl` to 100 ms; `mtp`, `rtp` to 100 kbps).
    public var roundedTo: Int? {
        switch self {
        case .bl, .dl, .mtp, .rtp, .tbl: 100
        default: nil
        }
    }

    /// The key's name in the specification.
    public var name: String {
        switch self {
        case .br: "encoded bitrate"
        case .bl: "buffer length"
        case .bs: "buffer starvation"
        case .cid: "content ID"
        case .d: "object duration"
        case .dl: "deadline"
        case .mtp: "measured throughput"
        case .nor: "next object request"
        case .nrr: "next range request"
        case .ot: "object type"
        case .pr: "playback rate"
        case .rtp: "requested maximum throughput"
        case .sf: "streaming format"
        case .sid: "session ID"
        case .st: "stream type"
        case .su: "startup"
        case .tb: "top bitrate"
        case .v: "version"
        case .ab: "aggregate encoded bitrate"
        case .bg: "backgrounded"
        case .bsa: "buffer starvation count"
        case .bsd: "buffer starvation duration"
        case .bsda: "buffer starvation duration, total"
        case .cdn: "CDN ID"
        case .cs: "content signature"
        case .dfa: "dropped frames, total"
        case .ec: "player error codes"
        case .lab: "lowest aggregated encoded bitrate"
        case .lb: "lowest encoded bitrate"
        case .ltc: "live latency"
        case .msd: "media start delay"
        case .nr: "non-rendered"
        case .pb: "playhead bitrate"
        case .pt: "playhead time"
        case .sn: "sequence number"
        case .sta: "player state"
        case .tab: "top aggregated encoded bitrate"
        case .tbl: "target buffer length"
        case .tpb: "top playable bitrate"
        case .ts: "timestamp"
        case .e: "event"
        case .h: "hostname"
        case .cen: "custom event name"
        case .url: "request URL"
        case .rc: "response code"
        case .ttfb: "time to first byte"
        case .ttfbb: "time to first body byte"
        case .ttlb: "time to last byte"
        case .cmsdd: "CMSD dynamic"
        case .cmsds: "CMSD static"
        case .smrt: "streaming media response tracking"
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A vendor's own key: CMCD asks for a hyphenated prefix (`com.example-id`, `x-id`).
    public static func isCustom(_ key: String) -> Bool { key.utf8.contains(UInt8(ascii: "-")) }
}
