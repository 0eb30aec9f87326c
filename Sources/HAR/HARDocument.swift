import BundleFormat
import Records
import Foundation
import JSON

/// A session's records as an HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/)
/// that Chrome DevTools (Network → Import HAR file), Firefox, Charles and HAR viewers open.
///
/// One entry per record, in the order the requests started (the order HAR 1.2 prefers; records
/// themselves are numbered in the order they end). Every field the spec requires is present;
/// values the proxy does not know are the spec's "unknown" (-1 sizes, -1 timings). `pages` is
/// empty and entries carry no `pageref`: the proxy sees requests, not page loads, and that is how
/// the spec (and Chrome's own export) writes page-less requests. Chrome would otherwise show the
/// first request of each page as its "document".
///
/// What only hlschaos knows goes in `_`-prefixed fields, which the spec reserves for tools and
/// tells other readers to ignore:
///
/// - entry `_id`, `_session`, `_client`, `_ending`: the record's;
/// - entry `_resource`: `{kind, variant, rendition, msn, part, copy}` (null when unknown);
/// - entry `_fault` (faulted requests only): `{rules, decidingRules: {response, delay, content},
///   actions}` — `rules` are all matched rules, in file order; `actions` are the record's (objects
///   of `kind`, `rule`, values and `words`, docs/records.md);
/// - entry `_upstream` (when the origin was asked): `{url, status, error, connect, firstByte,
///   total}`, libcurl's timings in seconds, as recorded;
/// - response `_error` (responses that did not end complete): what happened, in words. Chrome
///   writes its network errors there.
///
/// A request that got no status line (a hang, a reset or close before headers) has status 0 and
/// statusText "", as browsers write failed requests. The output is deterministic: fixed field
/// order, times as `RecordTime` writes them (UTC, milliseconds), durations in milliseconds with at
/// most three decimals.
public enum HARDocument {
    public static let formatVersion = "1.2"
    public static let creatorName = "hlschaos"

    /// The HAR for `records`, as UTF-8 JSON.
    /// - Parameters:
    ///   - baseURL: the proxy as the client reached it ("http://192.168.1.20:8080"); each entry's
    ///     URL is this followed by the record's request target.
    ///   - creatorVersion: hlschaos's version, for `log.creator.version`.
    ///   - prettyPrinted: two-space indentation, one member per line; compact otherwise.
    public static func data(
        records: [RequestRecord], baseURL: String, creatorVersion: String, prettyPrinted: Bool = true
    ) -> Data {
        Data(text(records: records, baseURL: baseURL, creatorVersion: creatorVersion, prettyPrinted: prettyPrinted).utf8)
    }

    /// The same document as text.
    public static func text(
        records: [RequestRecord], baseURL: String, creatorVersion: String, prettyPrinted: Bool = true
    ) -> String {
        let document = json(records: records, baseURL: baseURL, creatorVersion: creatorVersion)
        return prettyPrinted ? document.serialized(.pretty(indent: 2)) + "\n" : document.serialized()
    }

    static func json(records: [RequestRecord], baseURL: String, creatorVersion: String) -> JSONValue {
        .object([
            ("log", .object([
                ("version", .string(formatVersion)),
                ("creator", .object([("name", .string(creatorName)), ("version", .string(creatorVersion))])),
                ("pages", .array([])),
                ("entries", .array(records.sorted(by: RequestRecord.chronological).map { entry($0, baseURL: baseURL) })),
            ])),
        ])
    }

    // MARK: - Entries

    static func entry(_ record: RequestRecord, baseURL: String) -> JSONValue {
        let timings = HARTimings(record: record)
        var members: [(String, JSONValue)] = [
            ("startedDateTime", .string(RecordTime.iso8601(record.time))),
            ("time", .milliseconds(timings.total)),
            ("request", request(record, baseURL: baseURL)),
            ("response", response(record)),
            ("cache", .object([JSONMember]())),
            ("timings", timings.json),
        ]
        if record.isFaulted {
            members.append(("comment", .string("hlschaos: " + record.actions.map(\.words).joined(separator: ", "))))
        }
        members += [
            ("_id", .int(Int(clamping: record.id))),
            ("_session", .string(record.session)),
            ("_client", .string(record.client)),
            ("_resource", resource(record)),
        ]
        if record.isFaulted { members.append(("_fault", fault(record))) }
        if let upstream = record.upstream { members.append(("_upstream", self.upstream(upstream))) }
        members.append(("_ending", .string(record.ending.rawValue)))
        return .object(members)
    }

    static func request(_ record: RequestRecord, baseURL: String) -> JSONValue {
        .object([
            ("method", .string(record.method)),
            ("url", .string(HARFields.absoluteURL(path: record.path, baseURL: baseURL))),
            ("httpVersion", .string(record.httpVersion ?? "HTTP/1.1")),
            ("cookies", .array([])),
            ("headers", headers(record.requestHeaders)),
            ("queryString", .array(HARFields.queryString(path: record.path).map {
                .object([("name", .string($0.name)), ("value", .string($0.value))])
            })),
            ("headersSize", .int(-1)),
            ("bodySize", .int(0)),
        ])
    }

    static func response(_ record: RequestRecord) -> JSONValue {
        let status = record.status ?? 0
        let bytes = max(record.bytesSent, 0)
        var members: [(String, JSONValue)] = [
            ("status", .int(status)),
            ("statusText", .string(HARFields.reasonPhrase(status))),
            ("httpVersion", .string(record.httpVersion ?? "HTTP/1.1")),
            ("cookies", .array([])),
            ("headers", headers(record.responseHeaders)),
            ("content", .object([
                ("size", .int(bytes)),
                ("mimeType", .string(HARFields.header("content-type", in: record.responseHeaders) ?? "x-unknown")),
            ])),
            ("redirectURL", .string(HARFields.header("location", in: record.responseHeaders) ?? "")),
            ("headersSize", .int(-1)),
            ("bodySize", .int(bytes)),
        ]
        if let error = error(record) { members.append(("_error", .string(error))) }
        return .object(members)
    }

    static func headers(_ headers: [RequestRecord.Header]) -> JSONValue {
        .array(headers.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })
    }

    /// What went wrong for a response that did not end complete, in words; nil when it did.
    static func error(_ record: RequestRecord) -> String? {
        let sent = record.status == nil ? "before any response" : "after \(max(record.bytesSent, 0)) body bytes"
        switch record.ending {
        case .complete: return nil
        case .truncated: return "truncated: the response was cut short \(sent)"
        case .reset: return "reset: the connection was reset \(sent)"
        case .clientAbort: return "clientAbort: the client went away \(sent)"
        case .hang: return "hang: the request was never answered"
        case .closed: return "closed: the proxy closed the connection \(sent)"
        }
    }

    // MARK: - hlschaos's fields

    static func resource(_ record: RequestRecord) -> JSONValue {
        .object([
            ("kind", .optional(record.kind?.rawValue)),
            ("variant", .optional(record.variant)),
            ("rendition", .optional(record.rendition)),
            ("msn", .optional(record.msn)),
            ("part", .optional(record.part)),
            ("copy", .optional(record.copy)),
        ])
    }

    static func fault(_ record: RequestRecord) -> JSONValue {
        .object([
            ("rules", .strings(record.matchedRules)),
            ("decidingRules", .object([
                ("response", .optional(record.decidingRules.response)),
                ("delay", .optional(record.decidingRules.delay)),
                ("content", .strings(record.decidingRules.content)),
            ])),
            ("actions", .array(record.actions.map(\.json))),
        ])
    }

    static func upstream(_ upstream: RequestRecord.Upstream) -> JSONValue {
        .object([
            ("url", .string(upstream.url)),
            ("status", .optional(upstream.status)),
            ("error", .optional(upstream.error)),
            ("connect", .optional(upstream.connect)),
            ("firstByte", .optional(upstream.firstByte)),
            ("total", .optional(upstream.total)),
        ])
    }
}
