import HLS

/// Applies the content steps of a fault plan to a playlist. Pure; three stages the proxy calls in order:
/// 1. `body(serving:...)` picks the upstream version to serve (`freeze`, `lag`),
/// 2. `apply(_:to:...)` edits the parsed playlist (strip, gap, remove, sequence, target duration,
///    end list, backup variants) — then the proxy rewrites URIs and serialises,
/// 3. `damage(_:_:kind:)` breaks the final text (`malform`, `sessionData` on a master,
///    `lowLatency` on a media playlist).
public enum PlaylistSurgery {
    /// What `apply` did that the proxy must know when it rewrites URIs.
    public struct Report: Sendable, Equatable {
        /// For each backup variant added: its index in `playlist.variants` → the index of the primary it copies.
        public var backupOf: [Int: Int] = [:]
        /// Variant indexes (of the origin's master) removed by `stripVariants`.
        public var strippedVariants: [Int] = []
        public var strippedRenditions: Int = 0
        /// MSNs that got EXT-X-GAP / were removed.
        public var gapped: [Int] = []
        public var removed: [Int] = []
        public init() {}
    }

    // MARK: 1. version

    /// The body to serve instead of `upstream` when a `freeze` or `lag` step applies (the first in
    /// file order); `upstream` otherwise. `history` must already contain the upstream body.
    public static func body(serving upstream: [UInt8], steps: [ContentStep], history: PlaylistHistory?,
                            now: Duration) -> [UInt8] {
        guard let history else { return upstream }
        for step in steps {
            switch step.action {
            case .freeze: return history.version(before: step.windowStart) ?? upstream
            case .lag(let lag): return history.version(now: now, lag: lag) ?? upstream
            default: continue
            }
        }
        return upstream
    }

    // MARK: 2. structure

    /// Edits `playlist` for every structural step in order. `backupURI` gives the URI written for the
    /// backup copy of a variant (the proxy's alternate path); it receives the primary variant.
    @discardableResult
    public static func apply(_ steps: [ContentStep], to playlist: inout Playlist,
                             backupURI: (Variant) -> String = { "backup/" + $0.uri }) -> Report {
        var report = Report()
        // Selectors refer to the origin's variant indexes, so facts are taken before any edit.
        let originalFacts = VariantFacts.all(in: playlist)
        let originalVariants = playlist.variants
        for step in steps {
            switch step.action {
            case .stripVariants(let selectors) where playlist.kind == .multivariant:
                let doomed = Set(originalFacts.filter { facts in selectors.contains { $0.selects(facts) } }.map(\.index))
                // Indexes and lines shift once a variant is gone: identify variants by URI and attributes.
                let doomedKeys = Set(originalVariants.filter { doomed.contains($0.index) }.map(VariantKey.init))
                playlist.removeVariants { doomedKeys.contains(VariantKey($0)) }
                report.strippedVariants.append(contentsOf: doomed.sorted())
            case .stripRenditions(let selectors) where playlist.kind == .multivariant:
                let before = playlist.renditions.count
                playlist.removeRenditions { rendition in selectors.contains { $0.selects(RenditionFacts(rendition)) } }
                report.strippedRenditions += before - playlist.renditions.count
            case .gap where playlist.kind == .media:
                guard let selector = step.segments else { continue }
                let chosen = selectedMSNs(selector, in: playlist)
                playlist.addTag("#EXT-X-GAP") { chosen.contains($0.msn) }
                report.gapped.append(contentsOf: chosen.sorted())
            case .remove where playlist.kind == .media:
                guard let selector = step.segments else { continue }
                let chosen = selectedMSNs(selector, in: playlist)
                playlist.removeSegments { chosen.contains($0.msn) }
                report.removed.append(contentsOf: chosen.sorted())
            case .sequenceShift(let shift) where playlist.kind == .media:
                playlist.setHeaderTag("#EXT-X-MEDIA-SEQUENCE", value: String(max(0, playlist.mediaSequence + shift)))
            case .targetDuration(let seconds) where playlist.kind == .media:
                playlist.setHeaderTag("#EXT-X-TARGETDURATION", value: String(seconds))
            case .endList(let change) where playlist.kind == .media:
                playlist.setEndList(change == .add)
            case .backupVariants where playlist.kind == .multivariant:
                addBackups(to: &playlist, backupURI: backupURI, report: &report)
            default:
                continue
            }
        }
        return report
    }

    private struct VariantKey: Hashable {
        var uri: String
        var attributes: [String: String]
        init(_ variant: Variant) { uri = variant.uri; attributes = variant.attributes }
    }

    private static func selectedMSNs(_ selector: SegmentSelector, in playlist: Playlist) -> Set<Int> {
        Set(playlist.segments.filter { segment in
            let (index, time) = SegmentPosition.facts(for: segment, in: playlist)
            return selector.selects(msn: segment.msn, index: index, mediaTime: time)
        }.map(\.msn))
    }

    /// Redundant streams (RFC 8216bis §6.2.3): every EXT-X-STREAM-INF is repeated with identical
    /// attributes after the last variant, its URI pointing at the alternate path.
    private static func addBackups(to playlist: inout Playlist, backupURI: (Variant) -> String, report: inout Report) {
        let primaries = playlist.variants
        guard !primaries.isEmpty,
              let lastURILine = playlist.uriReferences.last(where: { $0.kind == .variant })?.line else { return }
        var lines: [String] = []
        for variant in primaries {
            guard let tag = playlist.line(variant.line - 1) else { continue }
            lines.append(tag)
            lines.append(backupURI(variant))
            report.backupOf[primaries.count + lines.count / 2 - 1] = variant.index
        }
        playlist.insertLines(lines, afterLine: lastURILine - 1)
    }

    // MARK: 3. text damage

    /// Applies `malform` and master-side `sessionData` steps to the serialised playlist, in order.
    public static func damage(_ bytes: [UInt8], steps: [ContentStep], kind: PlaylistKind) -> [UInt8] {
        var text = bytes
        for step in steps {
            switch step.action {
            case .malform(let malformation): text = PlaylistDamage.malform(text, malformation, kind: kind)
            case .sessionData(.malformed) where kind == .multivariant: text = PlaylistDamage.breakSessionData(text)
            case .lowLatency(let damage) where kind == .media: text = damage.apply(to: text)
            default: continue
            }
        }
        return text
    }
}
