import Chaos
import NIOHTTP1

extension ResourceTag.Kind {
    /// The rule schema's name for this kind of resource.
    var ruleKind: ResourceKind {
        switch self {
        case .master: .master
        case .media: .media
        case .segment, .part, .asset: .segment
        case .initSection: .`init`
        case .key: .key
        case .sessionData: .sessionData
        case .steering: .steering
        }
    }
}

extension RequestFacts {
    /// What the rules see of a request: its tag, and what the session learnt from earlier playlists.
    init(tag: ResourceTag, session: Session, catalog: SessionCatalog, head: HTTPRequestHead, upstream: UpstreamLocation) {
        let position = catalog.position(of: tag)
        self.init(
            sessionID: session.id,
            kind: tag.kind.ruleKind,
            variant: tag.variant.map { catalog.variants[$0] ?? VariantFacts(index: $0, bandwidth: 0) },
            rendition: tag.rendition.flatMap { catalog.renditions[$0] },
            msn: tag.msn,
            index: position?.index,
            mediaTime: position?.mediaTime,
            copy: tag.backup ? .backup : .primary,
            isRangeRequest: head.headers.contains(name: "range"),
            method: head.method.rawValue,
            resource: String(upstream.path))
    }
}
