/// In forward mode a rewritten URI keeps its own host and scheme (the device goes on using its proxy
/// setting), so the resource tag travels in a query parameter of the proxy's own, added last:
/// `https://cdn.example.com/v2/segment42.ts?token=abc&hlschaos=seg.v2.n42`. The proxy removes it
/// before fetching upstream, so signed URLs stay valid and the origin never sees it.
public enum ForwardTag {
    public static let parameter = "hlschaos"

    public struct Invalid: Error, CustomStringConvertible {
        public var value: Substring
        public var description: String {
            "query parameter \(parameter)=\(value.prefix(60)) is not a resource tag hlschaos wrote; request the playlist again instead of editing its URIs"
        }
    }

    /// The URL without the tag parameter, and the tag (nil when absent).
    public static func split(_ url: String) throws(Invalid) -> (url: String, tag: ResourceTag?) {
        let (kept, values) = OwnQueryParameter.remove(parameter, from: url)
        guard let value = values.first else { return (url, nil) }
        guard values.count == 1, let tag = ResourceTag(component: "~" + value) else { throw Invalid(value: value) }
        return (kept, tag)
    }

    /// The URL a forward-mode playlist carries for `upstream`.
    public static func url(_ upstream: UpstreamLocation, tag: ResourceTag) -> String {
        appending(tag, to: upstream.url)
    }

    /// `target` (a URL, or a path and query) with the tag parameter added last.
    public static func appending(_ tag: ResourceTag, to target: String) -> String {
        target + (target.utf8.contains(UInt8(ascii: "?")) ? "&" : "?") + parameter + "=" + String(tag.description.dropFirst())
    }
}

/// Query parameters of the proxy's own (`hlschaos`, `hlschaos-hop`): found and removed as
/// `name=value` pairs, leaving the other pairs in their order and spelling.
enum OwnQueryParameter {
    static func remove(_ name: String, from target: String) -> (target: String, values: [Substring]) {
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")),
              target.utf8[question...].firstRange(of: name.utf8) != nil
        else { return (target, []) }
        let fragment = target.utf8[question...].firstIndex(of: UInt8(ascii: "#")) ?? target.endIndex
        var values: [Substring] = []
        var kept: [Substring] = []
        let prefix = name + "="
        for pair in target[target.index(after: question)..<fragment].split(separator: "&", omittingEmptySubsequences: false) {
            if pair.hasPrefix(prefix) { values.append(pair.dropFirst(prefix.count)) } else { kept.append(pair) }
        }
        guard !values.isEmpty else { return (target, []) }
        let path = target[..<question]
        return (String(path) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + target[fragment...], values)
    }
}
