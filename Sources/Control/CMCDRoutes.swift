import CMCD
import Foundation
import Hummingbird
import JSON
import Proxy
import Records

/// CMCD (docs/cmcd.md): `GET /api/sessions/{id}/player`, what the player said about itself over the
/// session (buffer, throughput, bitrates, startup, stalls), and `GET /api/sessions/{id}/cmcd`, how
/// what it sent holds up against the specification. Both read the session's records in memory.
extension ControlAPI {
    func player(_ context: BasicRequestContext) throws -> Response {
        let id = try recordedSessionID(context)
        return JSONOutput.response(PlayerTimelineJSON(timeline: proxy.playerTimeline(session: id)))
    }

    func cmcd(_ context: BasicRequestContext) throws -> Response {
        let id = try recordedSessionID(context)
        return JSONOutput.response(ConformanceJSON(session: id, proxy.cmcdConformance(session: id)))
    }

    /// `"stripCMCD"` of a session body: true, false, or null (back to the configuration's); nil when absent.
    static func stripCMCD(_ value: JSONValue?) throws(APIError) -> Bool?? {
        switch value {
        case nil: return nil
        case .null?: return .some(nil)
        case .bool(let flag)?: return .some(flag)
        case let other?:
            throw APIError.badRequest(
                #""stripCMCD" must be true, false or null (the configuration's), got "# + other.typeName,
                problems: [.init(file: "request", path: "$.stripCMCD", message: "expected true, false or null, got \(other.typeName)")])
        }
    }
}

/// `CMCDSessionConformance` as JSON.
struct ConformanceJSON: Encodable {
    var session: String
    var requests: Int
    var requestsWithCMCD: Int
    var versions: [Int]
    /// True when CMCD was sent, well-formed, and raised no issue.
    var valid: Bool
    var keyUse: [KeyUse]
    var issues: [Issue]
    var issuesLeftOut: Int
    /// Requests whose CMCD had findings, with them in words.
    var findings: [RecordFindings]
    /// The stalls the records show (a segment held longer than the buffer the player claimed):
    /// what a `bs` or `sta=r` after them is expected for.
    var stalls: [KnownStall]

    struct KnownStall: Encodable {
        /// Seconds since the session's first request: when the buffer ran dry, and when the hold ended.
        var time: Double
        var end: Double
        var cause: String
    }

    struct KeyUse: Encodable {
        /// `ot` (or what the proxy knows the request was); null when neither says.
        var objectType: String?
        var requests: Int
        /// Key → on how many of these requests.
        var keys: [String: Int]
    }

    struct Issue: Encodable {
        /// finding, missing, notForObjectType, objectTypeDisagrees, notRounded, topBitrateBelowBitrate,
        /// lowestBitrateAboveTop, changed, sentAgain, withoutCMCD, starvationNotSent.
        var kind: String
        var key: String?
        var objectType: String?
        var count: Int
        /// The first request showing it: its place among the session's requests (from 1) and seconds since the first.
        var firstRequest: Int
        var firstTime: Double
        var words: String
    }

    struct RecordFindings: Encodable {
        var record: UInt64
        var findings: [String]
    }

    init(session: String, _ checked: CMCDSessionConformance) {
        let conformance = checked.conformance
        self.session = session
        requests = conformance.requests
        requestsWithCMCD = conformance.requestsWithCMCD
        versions = conformance.versions
        valid = checked.isValid
        keyUse = conformance.keyUse.map { KeyUse(objectType: $0.objectType?.rawValue, requests: $0.requests, keys: $0.keys) }
        issues = conformance.issues.map {
            Issue(kind: Self.kindName($0.kind), key: $0.key, objectType: $0.objectType?.rawValue, count: $0.count,
                  firstRequest: $0.firstRequest + 1, firstTime: $0.firstTime, words: $0.description)
        }
        issuesLeftOut = conformance.issuesLeftOut
        findings = checked.findings.map { RecordFindings(record: $0.record, findings: $0.findings) }
        stalls = checked.knownStalls.prefix(100).map { KnownStall(time: $0.time, end: $0.end, cause: $0.cause) }
    }

    static func kindName(_ kind: CMCDIssue.Kind) -> String {
        switch kind {
        case .finding: "finding"
        case .missing: "missing"
        case .notForObjectType: "notForObjectType"
        case .objectTypeDisagrees: "objectTypeDisagrees"
        case .notRounded: "notRounded"
        case .topBitrateBelowBitrate: "topBitrateBelowBitrate"
        case .lowestBitrateAboveTop: "lowestBitrateAboveTop"
        case .changed: "changed"
        case .sentAgain: "sentAgain"
        case .withoutCMCD: "withoutCMCD"
        case .starvationNotSent: "starvationNotSent"
        }
    }
}

/// The player timeline as the route gives it: its fields, and `saidStalls`, one per stall (what the
/// dashboard flags), beside `stalls`, every way each was said.
struct PlayerTimelineJSON: Encodable {
    let timeline: PlayerTimeline

    private enum Keys: String, CodingKey { case saidStalls }

    func encode(to encoder: any Encoder) throws {
        try timeline.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(timeline.saidStalls, forKey: .saidStalls)
    }
}
