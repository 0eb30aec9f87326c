import Addressing
import CMCD
import Chaos
import NIOHTTP1

extension RequestFacts {
    /// What the rules see of a request: its tag, and what the session learnt from earlier playlists.
    init(tag: ResourceTag, session: Session, catalog: SessionCatalog, head: HTTPRequestHead, upstream: UpstreamLocation, cmcd: CMCDData? = nil) {
        let position = catalog.position(of: tag)
        self.init(
            sessionID: session.id,
            kind: tag.resourceKind,
            variant: tag.variant.map { catalog.variants[$0] ?? VariantFacts(index: $0, bandwidth: 0) },
            rendition: tag.rendition.flatMap { catalog.renditions[$0] },
            msn: tag.msn,
            part: tag.part,
            index: position?.index,
            mediaTime: position?.mediaTime,
            copy: tag.backup ? .backup : .primary,
            pathway: tag.pathway,
            isRangeRequest: head.headers.contains(name: "range"),
            isBlockingReload: tag.kind == .media && BlockingReload.asksToBlock(upstream.pathAndQuery),
            method: head.method.rawValue,
            resource: String(upstream.path))
        self.cmcd = cmcd
    }
}
