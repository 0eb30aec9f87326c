import Addressing
import Chaos
import BundleFormat
import Foundation
import HLS

/// What one HAR entry fetched, in the rule schema's terms: its resource kind, the variant or
/// rendition it belongs to and its media sequence number — as far as the HAR lets it be pinned.
public struct HARTarget: Sendable, Hashable {
    public var kind: ResourceKind
    /// Index of the EXT-X-STREAM-INF in the master (0-based, document order).
    public var variant: Int?
    /// Index of the EXT-X-MEDIA in the master.
    public var rendition: Int?
    /// Index of the EXT-X-I-FRAME-STREAM-INF (I-frame playlists and their segments).
    public var iFrameVariant: Int?
    public var msn: Int?
    /// An LL-HLS part's index in its segment (`msn`).
    public var part: Int?
    /// The backup copy `backupVariants` adds (hlschaos's own HARs only).
    public var backup: Bool

    public init(kind: ResourceKind, variant: Int? = nil, rendition: Int? = nil, iFrameVariant: Int? = nil, msn: Int? = nil,
                part: Int? = nil, backup: Bool = false) {
        self.kind = kind; self.variant = variant; self.rendition = rendition; self.iFrameVariant = iFrameVariant
        self.msn = msn; self.part = part; self.backup = backup
    }

    /// What a resource tag hlschaos wrote says, in the rule schema's terms.
    public init(tag: ResourceTag) {
        self.init(kind: tag.resourceKind, variant: tag.variant, rendition: tag.rendition, iFrameVariant: tag.iFrameVariant,
                  msn: tag.msn, part: tag.part, backup: tag.backup)
    }
}

/// How an entry's target was worked out, strongest first.
public enum HARPinning: String, Sendable, Equatable {
    /// hlschaos's `_resource` (its export of the proxy's own classification).
    case hlschaosResource = "hlschaos's _resource"
    /// The `~seg.v2.n8` tag hlschaos writes into the URIs of the playlists it serves (a HAR
    /// captured through hlschaos).
    case proxyTag = "the hlschaos tag in its URL"
    /// The master and media playlists the HAR carries list the URL.
    case playlists = "the playlists in the HAR"
    /// Only the URL's extension or the MIME type say what it is (kind known, no variant or MSN).
    case guess = "its URL and MIME type"
}

/// One entry as classified: HLS or not, and what it fetched.
public struct HARClassification: Sendable, Equatable {
    public var isHLS: Bool
    /// nil for an HLS request whose kind could not be told (a playlist without its body).
    public var target: HARTarget?
    public var pinning: HARPinning?

    public static let notHLS = HARClassification(isHLS: false, target: nil, pinning: nil)
}

/// The variants and renditions of the masters the HAR carries, and every URL their playlists list,
/// so that an entry's URL says which variant, rendition and MSN it is.
public struct HARPlaylistCatalog: Sendable {
    public struct VariantInfo: Sendable, Equatable {
        public var bandwidth: Int
        public var resolution: String?
    }

    public var variants: [Int: VariantInfo] = [:]
    public var renditions: [Int: RenditionFacts] = [:]
    /// Masters and media playlists found with a body.
    public var masterCount = 0
    public var mediaPlaylistCount = 0
    /// Playlist URLs (variant, rendition, I-frame) → owner, from the masters.
    private var owners: [String: HARTarget] = [:]
    /// Resource URLs → what they are, from the media playlists (segments, init sections, keys);
    /// a URL listed for several MSNs (byte ranges) keeps each with its range offset.
    private var resources: [String: [(target: HARTarget, rangeOffset: Int?)]] = [:]
    /// Session data, session key and steering URLs, from the masters.
    private var sessionData: [String: HARTarget] = [:]

    public init(entries: [HAREntry]) {
        let ordered = entries.sorted { ($0.started ?? .distantPast, $0.index) < ($1.started ?? .distantPast, $1.index) }
        var mediaPlaylists: [(HAREntry, Playlist)] = []
        for entry in ordered where (200..<300).contains(entry.status) {
            guard let body = entry.body, ResourceGuess.isPlaylist(body: body),
                  let playlist = try? Playlist(bytes: body, url: URL(string: entry.url)) else { continue }
            if playlist.kind == .multivariant {
                addMaster(playlist)
            } else {
                mediaPlaylists.append((entry, playlist))
            }
        }
        for (entry, playlist) in mediaPlaylists { addMedia(playlist, url: entry.url) }
    }

    private mutating func addMaster(_ playlist: Playlist) {
        masterCount += 1
        for variant in playlist.variants where variants[variant.index] == nil {
            variants[variant.index] = VariantInfo(bandwidth: variant.bandwidth, resolution: variant.resolution)
        }
        for rendition in playlist.renditions where renditions[rendition.index] == nil {
            renditions[rendition.index] = RenditionFacts(type: rendition.type, language: rendition.language, name: rendition.name)
        }
        for reference in playlist.uriReferences {
            guard let url = reference.absoluteString, let kind = ResourceKind(reference.facts) else { continue }
            switch reference.kind {
            case .variant:
                owners[Self.key(url)] = HARTarget(kind: kind, variant: reference.variantIndex)
            case .iFrameVariant:
                owners[Self.key(url)] = HARTarget(kind: kind, iFrameVariant: reference.variantIndex)
            case .rendition:
                owners[Self.key(url)] = HARTarget(kind: kind, rendition: reference.rendition?.index)
            case .sessionData, .sessionKey, .steering:
                sessionData[Self.key(url)] = HARTarget(kind: kind)
            default:
                break
            }
        }
    }

    private mutating func addMedia(_ playlist: Playlist, url: String) {
        mediaPlaylistCount += 1
        let owner = owners[Self.key(url)] ?? HARTarget(kind: .media)
        var offsets: [Int: Int] = [:]
        for segment in playlist.segments { if let range = segment.byteRange { offsets[segment.msn] = range.offset } }
        for reference in playlist.uriReferences {
            guard let absolute = reference.absoluteString else { continue }
            // The resources a media playlist names, of its own variant or rendition.
            guard [.segment, .part, .preloadHint, .map, .key].contains(reference.kind), let kind = ResourceKind(reference.facts)
            else { continue }
            var target = owner
            target.kind = kind
            if kind.isMediaData {
                target.msn = reference.msn
                target.part = reference.partIndex
            }
            let key = Self.key(absolute)
            let offset = target.kind == .segment ? reference.msn.flatMap { offsets[$0] } : nil
            var list = resources[key] ?? []
            if !list.contains(where: { $0.target == target && $0.rangeOffset == offset }) {
                list.append((target, offset))
                resources[key] = list
            }
        }
    }

    /// URLs are compared without their fragment.
    static func key(_ url: String) -> String { String(url.prefix { $0 != "#" }) }

    /// The URL without its query (delivery directives and tokens change between requests).
    static func withoutQuery(_ url: String) -> String { String(key(url).prefix { $0 != "?" }) }

    /// What the playlists say `url` is; nil when no playlist in the HAR lists it.
    public func target(url: String, rangeStart: Int?) -> HARTarget? {
        let exact = Self.key(url)
        if let owner = owners[exact] ?? sessionData[exact] { return owner }
        if let found = resource(exact, rangeStart: rangeStart) { return found }
        let bare = Self.withoutQuery(url)
        if let owner = owners.first(where: { Self.withoutQuery($0.key) == bare })?.value { return owner }
        if let key = resources.keys.first(where: { Self.withoutQuery($0) == bare }) { return resource(key, rangeStart: rangeStart) }
        return nil
    }

    private func resource(_ key: String, rangeStart: Int?) -> HARTarget? {
        guard let list = resources[key], !list.isEmpty else { return nil }
        if list.count == 1 { return list[0].target }
        if let rangeStart, let match = list.first(where: { $0.rangeOffset == rangeStart }) { return match.target }
        // Several MSNs share the URL and the request does not say which: the kind and owner only.
        var target = list[0].target
        target.msn = nil
        target.part = nil
        return list.allSatisfy({ $0.target.kind == target.kind }) ? target : nil
    }
}

/// Works out each entry's `HARClassification`: hlschaos's `_resource`, then hlschaos's URL tag,
/// then the playlists the HAR carries, then the URL and MIME type.
public struct HARClassifier: Sendable {
    public let catalog: HARPlaylistCatalog
    /// Off to check (in tests) that the playlists alone pin what the tags pin.
    public var useProxyTags = true

    public init(entries: [HAREntry], useProxyTags: Bool = true) {
        catalog = HARPlaylistCatalog(entries: entries)
        self.useProxyTags = useProxyTags
    }

    public func classify(_ entry: HAREntry) -> HARClassification {
        // CORS preflights and posts (licence servers, analytics) are not what a player fetches.
        guard entry.method == "GET" || entry.method == "HEAD" else { return .notHLS }
        // data:, blob:, chrome-extension:… never reach a server.
        let scheme = entry.url.prefix { $0 != ":" }.lowercased()
        guard scheme == "http" || scheme == "https" else { return .notHLS }
        if let hint = entry.resource, let target = Self.target(hint) {
            return HARClassification(isHLS: true, target: target, pinning: .hlschaosResource)
        }
        if useProxyTags, let target = Self.proxyTag(in: entry.url) {
            return HARClassification(isHLS: true, target: target, pinning: .proxyTag)
        }
        if let target = catalog.target(url: entry.url, rangeStart: RangeHeader.firstByte(entry.requestHeader("range"))) {
            return HARClassification(isHLS: true, target: target, pinning: .playlists)
        }
        return Self.guess(entry)
    }

    /// `_resource.kind` → the rule schema's kind (unknown kinds none).
    static func target(_ hint: HAREntry.ResourceHint) -> HARTarget? {
        guard let kind = ResourceKind(rawValue: hint.kind) else { return nil }
        return HARTarget(kind: kind, variant: hint.variant, rendition: hint.rendition, msn: hint.msn, part: hint.part,
                         backup: hint.copy == "backup")
    }

    /// The tag (`~seg.v2.n8`, `~media.r1`…) of a URL the hlschaos proxy wrote into a playlist it served.
    static func proxyTag(in url: String) -> HARTarget? {
        guard let components = URLComponents(string: url),
              let tag = try? ProxyPath(parsing: components.percentEncodedPath).tag else { return nil }
        return HARTarget(tag: tag)
    }

    /// Kind from the body, the extension or the MIME type; no variant or MSN.
    static func guess(_ entry: HAREntry) -> HARClassification {
        if let body = entry.body, let kind = ResourceGuess.playlistKind(of: body) {
            return HARClassification(isHLS: true, target: HARTarget(kind: kind), pinning: .guess)
        }
        let path = URLComponents(string: entry.url)?.percentEncodedPath ?? entry.url
        switch ResourceGuess.byName(path: Substring(path), contentType: entry.mimeType ?? entry.responseHeader("content-type")) {
        case .playlist:
            // A playlist without its body: a master or a media playlist, the HAR does not say.
            return HARClassification(isHLS: true, target: nil, pinning: .guess)
        case .mediaFile:
            return HARClassification(isHLS: true, target: HARTarget(kind: .segment), pinning: .guess)
        case .key:
            return HARClassification(isHLS: true, target: HARTarget(kind: .key), pinning: .guess)
        case .unknown:
            return .notHLS
        }
    }
}
