import Addressing
import Foundation

extension RequestRecord {
    /// Status ≥ 400, no status at all (hang, reset before headers), or a response that did not end complete.
    /// A blocking reload the player gave up on is not one unless a rule decided its response or
    /// delayed it: LL players cancel held reloads when they switch or stop, every LL session ends
    /// with one held, and a content change (playlist damage) never reached a reload that was not
    /// answered.
    var countsAsFailure: Bool {
        if ending == .clientAbort, isBlockingReload, decidingRules.response == nil, decidingRules.delay == nil { return false }
        guard let status else { return true }
        return status >= 400 || ending != .complete
    }

    /// Kinds whose failure can stop playback; session data and steering failures are never fatal
    /// (error-paths §1).
    var mattersForPlayback: Bool { kind != .sessionData && kind != .steering }

    /// A segment or an LL-HLS part: media data the player plays.
    public var isMediaData: Bool { kind?.isMediaData == true }

    var isBackup: Bool { copy == "backup" }

    /// The path without its query (blocking-reload parameters, tokens).
    var bareRequestPath: String {
        path.firstIndex(of: "?").map { String(path[..<$0]) } ?? path
    }

    /// The request's LL-HLS delivery directives, read as the proxy and the demo origin read them;
    /// nil when they are not valid (the proxy then did not treat the request as blocking).
    var deliveryDirectives: DeliveryDirectives? { try? DeliveryDirectives.parse(target: path).get() }

    /// An LL-HLS blocking reload (`_HLS_msn`, rfc8216bis §6.2.5.2).
    var isBlockingReload: Bool { deliveryDirectives?.asksToBlock == true }

    /// An LL-HLS delta update request (`_HLS_skip`, rfc8216bis §6.2.5.1).
    var isDeltaUpdate: Bool { deliveryDirectives?.skip == true }

    /// The end of the request, or of its response.
    var responseEnd: Date { time.addingTimeInterval(max(duration, 0)) }

    var reportResource: ReactionReport.Resource {
        .init(kind: kind, variant: variant, rendition: rendition, copy: copy, msn: msn, part: part, path: bareRequestPath)
    }

    /// Two requests for the same resource have equal keys: playlists and numbered segments by kind,
    /// variant or rendition, copy, MSN and part (a byte-range segment shares its path with others);
    /// everything else by path without the query.
    var resourceKey: ReactionReport.ResourceKey {
        switch kind {
        case .master?, .media?:
            ReactionReport.ResourceKey(kind: kind, variant: variant, rendition: rendition, copy: copy)
        case .segment? where msn != nil, .part? where msn != nil:
            ReactionReport.ResourceKey(kind: kind, variant: variant, rendition: rendition, copy: copy, msn: msn, part: part)
        default:
            ReactionReport.ResourceKey(kind: kind, path: bareRequestPath)
        }
    }
}

extension ReactionReport {
    /// Equal for two requests of the same resource (see `RequestRecord.resourceKey`).
    struct ResourceKey: Hashable {
        var kind: ResourceKind?
        var variant: Int?
        var rendition: Int?
        var copy: String?
        var msn: Int?
        var part: Int?
        var path: String?
    }
}

extension ReactionReport.Resource {
    /// "segment 42 of variant 2", "the media playlist of rendition 1 (backup copy)", "the master playlist".
    public var words: String {
        let owner = variant.map { " of variant \($0)" } ?? rendition.map { " of rendition \($0)" } ?? ""
        let backup = copy == "backup" ? " (backup copy)" : ""
        switch kind {
        case .segment?:
            guard let msn else { return "a segment" + owner + backup }
            return "segment \(msn)" + owner + backup
        case .part?:
            guard let msn else { return "a part" + owner + backup }
            return "part \(part.map(String.init) ?? "?") of segment \(msn)" + owner + backup
        case .media?: return "the media playlist" + owner + backup
        case .master?: return "the master playlist"
        case .`init`?: return "the init section" + owner + backup
        case .key?: return "the key" + owner + backup
        case .sessionData?: return "the session data"
        case .steering?: return "the steering manifest"
        case nil: return path
        }
    }
}

extension ReactionReport.Incident {
    init(_ record: RequestRecord) {
        self.init(record: record.id, time: record.time, resource: record.reportResource, status: record.status,
                  ending: record.ending, actions: record.actions)
    }

    /// "the first 503 (segment 8 of variant 2)", "the first fault (delay 2s on segment 8 of variant 2)".
    var words: String {
        if let status, status >= 400 { return "the first \(status) (\(resource.words))" }
        let what = actions.isEmpty ? (status == nil ? "no response" : ending.rawValue) : actions.map(\.words).joined(separator: ", ")
        return "the first \(actions.isEmpty ? "failure" : "fault") (\(what) on \(resource.words))"
    }
}
