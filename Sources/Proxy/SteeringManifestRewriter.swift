import Addressing
import Chaos
import Foundation

/// Points a content-steering manifest's `RELOAD-URI` back at the proxy, so the player's next
/// reload comes through it in the same session, after the plan's `steering` damage. A manifest
/// without `RELOAD-URI` and without damage keeps its bytes; one that is no JSON object too (the
/// player reports it), but for `malformed`.
struct SteeringManifestRewriter {
    /// The request that fetched the manifest: gives the session and the way URIs are written.
    var request: ProxyPath
    var allowlist: HostAllowlist

    func rewrite(_ body: [UInt8], upstreamURL: String, steps: [ContentStep]) -> [UInt8] {
        let damages = steps.compactMap { step -> SteeringDamage? in
            guard case .steering(let damage) = step.action else { return nil }
            return damage
        }
        return SteeringDamage.apply(damages, to: body) { proxied($0, base: upstreamURL) }
    }

    /// `uri` resolved against the manifest's URL and written as a URI on the proxy; nil when it is
    /// no http(s) URL (the player is left to fail on it, as it would without the proxy).
    private func proxied(_ uri: String, base: String) -> String? {
        guard let resolved = URL(string: uri, relativeTo: URL(string: base))?.absoluteString,
              let location = UpstreamLocation(absolute: resolved) else { return nil }
        allowlist.learn(location)
        return request.rewrittenURI(tag: ResourceTag(kind: .steering), upstream: location)
    }
}
