import Addressing
import Foundation
import HLS

/// What `hlschaos inspect BUNDLE` shows: where a bundle came from, how long it runs and how it
/// ended, what it holds, the variants of the recorded master, each playlist's versions and the
/// MSNs they covered, and every failure with when it happened. Built from an opened
/// `RecordingBundle` (it reads the playlists' bodies, nothing else); `text` and `json` print it.
public struct BundleSummary: Sendable, Codable, Equatable {
    public var location: String
    public var formatVersion: Int
    public var source: String
    public var entry: String?
    public var started: Date
    public var ended: Date?
    /// Seconds from the first request to the last response (or to `ended`).
    public var duration: Double
    public var stopReason: String?
    public var redacted: Bool
    public var exchanges: Int
    public var bodies: Int
    public var bodyBytes: Int
    /// Exchanges per kind ("segment": 84, …; "other" when the kind is unknown).
    public var kinds: [String: Int]
    /// The variants of the first master playlist that loaded, when there is one.
    public var variants: [VariantRow]
    public var playlists: [PlaylistRow]
    /// Every exchange with a status of 400 or more or an ending other than complete, by time.
    public var failures: [FailureRow]

    public struct VariantRow: Sendable, Codable, Equatable {
        public var index: Int
        public var bandwidth: Int
        public var resolution: String?
        public var codecs: String?
        public var url: String
        /// Segments of this variant's playlist that are in the bundle.
        public var segmentsRecorded: Int
    }

    public struct PlaylistRow: Sendable, Codable, Equatable {
        public var url: String
        /// "master", "variant 0", "audio English", "I-frame 1"; nil when the master does not name it.
        public var role: String?
        /// Loads (exchanges) of this playlist, failed ones included.
        public var loads: Int
        /// Distinct successive contents among its successful loads (a VOD playlist has one).
        public var versions: Int
        public var failures: Int
        /// The lowest and highest media sequence numbers any version listed.
        public var firstMSN: Int?
        public var lastMSN: Int?
        /// A version carried EXT-X-ENDLIST (or was a VOD playlist).
        public var ended: Bool
        public var targetDuration: Int?
        /// The median time between the starts of two loads, in seconds.
        public var medianReload: Double?
        /// Distinct segments any version listed, and how many of them have a complete 2xx answer in the bundle.
        public var segmentsListed: Int
        public var segmentsRecorded: Int
    }

    public struct FailureRow: Sendable, Codable, Equatable {
        /// Seconds from the start of the recording to the request.
        public var at: Double
        public var url: String
        public var kind: String?
        public var status: Int?
        public var ending: String
        public var error: String?
    }

    public init(_ bundle: RecordingBundle) throws(BundleError) {
        let manifest = bundle.manifest
        location = bundle.location
        formatVersion = manifest.version
        source = manifest.source.rawValue
        entry = manifest.entry
        started = manifest.started
        ended = manifest.ended
        duration = Self.milliseconds(bundle.duration)
        stopReason = manifest.stopReason
        redacted = manifest.redacted
        exchanges = bundle.exchanges.count
        bodies = Set(bundle.exchanges.compactMap(\.body)).count
        bodyBytes = Set(bundle.exchanges.compactMap(\.body)).reduce(0) { $0 + $1.size }
        kinds = bundle.exchanges.reduce(into: [:]) { $0[$1.kind ?? "other", default: 0] += 1 }
        failures = bundle.exchanges.filter(\.isFailure).sorted { $0.at < $1.at }.map {
            FailureRow(at: Self.milliseconds($0.at), url: $0.url, kind: $0.kind, status: $0.status, ending: $0.ending.rawValue, error: $0.error)
        }
        var reader = PlaylistReader(bundle: bundle)
        let analysis = try reader.analyse()
        variants = analysis.variants
        playlists = analysis.playlists
    }

    /// The summary as pretty JSON (keys sorted, instants in ISO 8601).
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Self.iso8601(date))
        }
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Seconds rounded to the millisecond (what a person reads; JSON without float noise).
    static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(secondsFromGMT: 0)!))
    }
}

/// Reads the playlists of a bundle: groups loads by URL, parses each distinct body once.
private struct PlaylistReader {
    let bundle: RecordingBundle

    struct Facts {
        var kind: PlaylistKind
        var firstMSN: Int?
        var lastMSN: Int?
        var ended: Bool
        var targetDuration: Int?
        var segments: [String]
        var master: Playlist?
    }

    private var facts: [String: Facts?] = [:]

    init(bundle: RecordingBundle) { self.bundle = bundle }

    mutating func analyse() throws(BundleError) -> (variants: [BundleSummary.VariantRow], playlists: [BundleSummary.PlaylistRow]) {
        // Which responses count as a recorded resource: complete, 2xx, with their range.
        var recorded = Set<String>()
        for exchange in bundle.exchanges where exchange.ending == .complete && (200..<300).contains(exchange.status ?? 0) {
            recorded.insert(Self.key(exchange.url, exchange.range))
        }
        var order: [String] = []
        var loads: [String: [Exchange]] = [:]
        for exchange in bundle.exchanges where exchange.isPlaylist {
            let url = Self.withoutDeliveryDirectives(exchange.url)
            if loads[url] == nil { order.append(url) }
            loads[url, default: []].append(exchange)
        }

        var master: Playlist?
        var roles: [String: String] = [:]
        var roleOrder: [String: Int] = [:]
        for url in order {
            for exchange in loads[url] ?? [] where Self.succeeded(exchange) {
                if let facts = try facts(of: exchange), let found = facts.master {
                    master = found
                    break
                }
            }
            if master != nil {
                roles[url] = PlaylistRole.master
                roleOrder[url] = -1
                break
            }
        }
        if let master {
            var position = 0
            var renditionNames: [Int: String] = [:]
            for rendition in master.renditions { renditionNames[rendition.index] = PlaylistRole.rendition(rendition) }
            for reference in master.uriReferences {
                guard let url = reference.absoluteString else { continue }
                let role: String?
                let group: Int
                switch reference.kind {
                case .variant: role = reference.variantIndex.map(PlaylistRole.variant); group = 0
                case .rendition: role = reference.rendition.flatMap { renditionNames[$0.index] }; group = 1
                case .iFrameVariant: role = reference.variantIndex.map(PlaylistRole.iFrameVariant); group = 2
                default: role = nil; group = 3
                }
                guard let role, roles[url] == nil else { continue }
                roles[url] = role
                // Variants first, then renditions, then I-frame playlists, each in the master's order.
                roleOrder[url] = group * 100_000 + position
                position += 1
            }
        }

        var rows: [BundleSummary.PlaylistRow] = []
        for url in order {
            let playlistLoads = loads[url] ?? []
            var row = BundleSummary.PlaylistRow(
                url: url, role: roles[url], loads: playlistLoads.count, versions: 0,
                failures: playlistLoads.filter(\.isFailure).count, firstMSN: nil, lastMSN: nil, ended: false,
                targetDuration: nil, medianReload: Self.median(of: playlistLoads.map(\.at)).map(BundleSummary.milliseconds), segmentsListed: 0, segmentsRecorded: 0)
            var previous: String?
            var listed = Set<String>()
            for exchange in playlistLoads where Self.succeeded(exchange) {
                guard let body = exchange.body else { continue }
                if body.sha256 != previous { row.versions += 1 }
                previous = body.sha256
                guard let facts = try facts(of: exchange), facts.kind == .media else { continue }
                if let first = facts.firstMSN { row.firstMSN = min(row.firstMSN ?? first, first) }
                if let last = facts.lastMSN { row.lastMSN = max(row.lastMSN ?? last, last) }
                row.ended = row.ended || facts.ended
                row.targetDuration = facts.targetDuration ?? row.targetDuration
                listed.formUnion(facts.segments)
            }
            row.segmentsListed = listed.count
            row.segmentsRecorded = listed.filter { recorded.contains($0) }.count
            rows.append(row)
        }
        let indexed = rows.enumerated().map { ($0.offset, $0.element) }
        rows = indexed.sorted { left, right in
            let a = roleOrder[left.1.url] ?? Int.max, b = roleOrder[right.1.url] ?? Int.max
            return a != b ? a < b : left.0 < right.0
        }.map(\.1)

        var variants: [BundleSummary.VariantRow] = []
        if let master {
            var urls: [Int: String] = [:]
            for reference in master.uriReferences where reference.kind == .variant {
                if let index = reference.variantIndex { urls[index] = reference.absoluteString ?? reference.original }
            }
            for variant in master.variants {
                let url = urls[variant.index] ?? variant.uri
                variants.append(.init(index: variant.index, bandwidth: variant.bandwidth, resolution: variant.resolution,
                                      codecs: variant.codecs, url: url,
                                      segmentsRecorded: rows.first { $0.url == url }?.segmentsRecorded ?? 0))
            }
        }
        return (variants, rows)
    }

    private mutating func facts(of exchange: Exchange) throws(BundleError) -> Facts? {
        guard let reference = exchange.body else { return nil }
        // The same bytes at another URL list other segments (relative URIs): one entry per both.
        let cacheKey = reference.sha256 + " " + exchange.url
        if let known = facts[cacheKey] { return known }
        let bytes = try bundle.body(reference)
        var found: Facts?
        if ResourceGuess.isPlaylist(body: bytes), let playlist = try? Playlist(bytes: bytes, url: URL(string: exchange.url)) {
            if playlist.kind == .multivariant {
                found = Facts(kind: .multivariant, ended: false, segments: [], master: playlist)
            } else {
                var urls: [Int: String] = [:]
                for reference in playlist.uriReferences where reference.kind == .segment {
                    if let msn = reference.msn { urls[msn] = reference.absoluteString ?? reference.original }
                }
                let segments = playlist.segments.map { segment in
                    Self.key(urls[segment.msn] ?? segment.uri, segment.byteRange?.rangeHeader)
                }
                found = Facts(kind: .media, firstMSN: playlist.segments.first?.msn, lastMSN: playlist.segments.last?.msn,
                              ended: playlist.endList || playlist.playlistType?.uppercased() == "VOD",
                              targetDuration: playlist.targetDuration, segments: segments, master: nil)
            }
        }
        facts[cacheKey] = .some(found)
        return found
    }

    static func key(_ url: String, _ range: String?) -> String { range.map { url + " " + $0 } ?? url }

    static func succeeded(_ exchange: Exchange) -> Bool {
        exchange.ending == .complete && (200..<300).contains(exchange.status ?? 0)
    }

    /// LL-HLS blocking reloads (`_HLS_msn=…`) are loads of the same playlist.
    static func withoutDeliveryDirectives(_ url: String) -> String {
        guard url.contains("_HLS_"), var parts = URLComponents(string: url), let items = parts.queryItems else { return url }
        let kept = items.filter { !$0.name.hasPrefix("_HLS_") }
        parts.queryItems = kept.isEmpty ? nil : kept
        return parts.string ?? url
    }

    static func median(of instants: [Double]) -> Double? {
        guard instants.count >= 2 else { return nil }
        let sorted = instants.sorted()
        let gaps = zip(sorted.dropFirst(), sorted).map { $0 - $1 }.sorted()
        let middle = gaps.count / 2
        return gaps.count % 2 == 1 ? gaps[middle] : (gaps[middle - 1] + gaps[middle]) / 2
    }
}
