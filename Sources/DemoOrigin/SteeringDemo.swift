/// The content-steering demo (`/steering/<flavour>/…`): the live stream of a flavour offered on two
/// pathways (two "CDNs"), as a multi-CDN service publishes it, and the steering manifest that ranks
/// them. Pathway `cdn-a` is the host the master was asked on (relative URIs); `cdn-b` is the other
/// loopback name of the same port (`localhost` for `127.0.0.1` and the reverse), so the proxy fetches
/// the two pathways from two hosts.
enum SteeringDemo {
    static let pathways = ["cdn-a", "cdn-b"]
    /// Seconds between manifest reloads: a 30 s run sees a few.
    static let ttl = 10

    /// The live master of the flavour (`live`, I-frame playlists already left out), once per
    /// pathway: rendition groups renamed per pathway (`aud-cdn-b`), `PATHWAY-ID` and
    /// `STABLE-VARIANT-ID` on each variant, and `EXT-X-CONTENT-STEERING` naming the manifest.
    /// Nil when `host` (the request's `Host` header) is missing.
    static func master(live: String, flavour: String, host: String?) -> String? {
        guard let host, !host.isEmpty else { return nil }
        let bases = ["../../live/\(flavour)/", "http://\(otherLoopbackName(of: host))/live/\(flavour)/"]
        let lines = live.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = lines.prefix { !$0.hasPrefix("#EXT-X-MEDIA:") && !$0.hasPrefix("#EXT-X-STREAM-INF:") }
            .filter { !$0.isEmpty }
        let body = lines.dropFirst(header.count)
        var output = header + [
            "#EXT-X-CONTENT-STEERING:SERVER-URI=\"manifest.json\",PATHWAY-ID=\"\(pathways[0])\"",
        ]
        for (pathway, base) in zip(pathways, bases) {
            var variant = 0
            var uriLineFollows = false
            for line in body where !line.isEmpty {
                if uriLineFollows {
                    output.append(base + line)
                    uriLineFollows = false
                } else if line.hasPrefix("#EXT-X-MEDIA:") {
                    var line = renamedGroup(line, attribute: "GROUP-ID", pathway: pathway)
                    line = rewritten(line, attribute: "URI") { base + $0 }
                    output.append(line)
                } else if line.hasPrefix("#EXT-X-STREAM-INF:") {
                    var line = line
                    for attribute in ["AUDIO", "SUBTITLES", "VIDEO"] {
                        line = renamedGroup(line, attribute: attribute, pathway: pathway)
                    }
                    output.append(line + ",STABLE-VARIANT-ID=\"v\(variant)\",PATHWAY-ID=\"\(pathway)\"")
                    variant += 1
                    uriLineFollows = true
                } else if !line.hasPrefix("#EXT-X-INDEPENDENT-SEGMENTS") {
                    output.append(line)
                }
            }
        }
        return output.joined(separator: "\n") + "\n"
    }

    /// The steering manifest (draft-pantos-content-steering §4): both pathways, `cdn-a` first.
    static var manifest: String {
        let priority = pathways.map { "\"\($0)\"" }.joined(separator: ",")
        return "{\"VERSION\":1,\"TTL\":\(ttl),\"RELOAD-URI\":\"manifest.json\",\"PATHWAY-PRIORITY\":[\(priority)]}\n"
    }

    /// `127.0.0.1:8080` → `localhost:8080`; any other name → `127.0.0.1` with the same port.
    static func otherLoopbackName(of host: String) -> String {
        var name = host
        var port = ""
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
            name = String(host[..<colon])
            port = String(host[colon...])
        }
        return (name.lowercased() == "localhost" ? "127.0.0.1" : "localhost") + port
    }

    private static func renamedGroup(_ line: String, attribute: String, pathway: String) -> String {
        rewritten(line, attribute: attribute) { "\($0)-\(pathway)" }
    }

    /// `line` with the quoted value of `attribute` (after `:` or `,`) passed through `change`.
    private static func rewritten(_ line: String, attribute: String, _ change: (String) -> String) -> String {
        for lead in [":", ","] {
            guard let start = line.range(of: lead + attribute + "=\"") else { continue }
            guard let end = line[start.upperBound...].firstIndex(of: "\"") else { return line }
            return line[..<start.upperBound] + change(String(line[start.upperBound..<end])) + line[end...]
        }
        return line
    }
}
