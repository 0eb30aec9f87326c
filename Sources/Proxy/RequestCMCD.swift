import CMCD
import NIOHTTP1
import Records
import Upstream

/// A request's CMCD (docs/cmcd.md): found, parsed once, kept in the request's state; named in the
/// record; taken off before the upstream fetch when `stripCMCD` says so; naming a forward session.
///
/// Most requests carry none, and they pay for a look at each header name's first bytes and a scan of
/// the query that stops at the first argument that is not `CMCD=`-shaped: nothing is allocated.
enum RequestCMCD {
    /// A request's parsed CMCD, held by reference (a few hundred bytes most requests do without).
    final class Box: Sendable {
        let data: CMCDData
        init(data: CMCDData) { self.data = data }
    }

    /// Whether the request has a `CMCD-*` header or a `CMCD=` query argument.
    static func isCarried(_ head: HTTPRequestHead, target: String) -> Bool {
        for (name, _) in head.headers where name.utf8.count <= 12 && name.asciiCaseInsensitiveHasPrefix("cmcd-") { return true }
        return queryHasArgument(target)
    }

    /// `CMCD=` at the start of an argument of the query (the name matched exactly, as `CMCDQuery` does).
    static func queryHasArgument(_ target: String) -> Bool {
        let name = argumentName
        var inQuery = false, matched = 0
        for byte in target.utf8 {
            if !inQuery {
                if byte == UInt8(ascii: "?") { inQuery = true } else if byte == UInt8(ascii: "#") { return false }
                continue
            }
            switch byte {
            case UInt8(ascii: "#"): return false
            case UInt8(ascii: "&"): matched = 0
            default:
                guard matched >= 0 else { continue }
                if byte == name[matched] {
                    matched += 1
                    if matched == name.count { return true }
                } else {
                    matched = -1
                }
            }
        }
        return false
    }

    private static let argumentName = Array("CMCD=".utf8)

    /// The request's CMCD, parsed within `limits`; nil when it carries none. Never fails.
    static func parse(_ head: HTTPRequestHead, target: String, limits: CMCDLimits) -> CMCDData? {
        guard isCarried(head, target: target) else { return nil }
        let headers = head.headers.filter { CMCDStrip.isCMCDHeader($0.name) }.map { (name: $0.name, value: $0.value) }
        return CMCDData.parse(target: target, headers: headers, limits: limits)
    }

    /// The session a forward device's `sid` puts it in (`forward.sessionFromCMCD`): the device's own
    /// session, a dot, and the `sid` with every character a session name cannot hold made `-`,
    /// cut to the 64 characters a session name may have. nil when the `sid` leaves nothing.
    static func sessionName(device: String, sid: String) -> String? {
        let allowed = { (scalar: Unicode.Scalar) in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
        }
        let cleaned = String(String.UnicodeScalarView(sid.unicodeScalars.prefix(64).map { allowed($0) ? $0 : "-" }))
        guard cleaned.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
        return String((device + "." + cleaned).prefix(64))
    }
}

extension ProxyHandler {
    /// The CMCD limits: a carriage may be as long as the request head may be.
    var cmcdLimits: CMCDLimits { CMCDLimits(maxBytesPerCarriage: configuration.clients.maxRequestHeadBytes) }

    /// The request's CMCD, read into its state (before the address: a forward session may be named from it).
    func readCMCD(_ client: ClientChannel, target: String) {
        if let cmcd = RequestCMCD.parse(client.requestHead, target: target, limits: cmcdLimits) { client.request.carried(cmcd) }
    }

    /// A forward device's session, or the one its CMCD `sid` names when `forward.sessionFromCMCD` is on.
    func forwardSession(_ device: String, _ client: ClientChannel) -> String {
        guard configuration.forward.sessionFromCMCD, let sid = client.request.cmcd?.sid,
              let name = RequestCMCD.sessionName(device: device, sid: sid) else { return device }
        return name
    }

    /// Whether this request's CMCD is taken off before the upstream fetch (the session's setting, else the config's).
    func stripsCMCD(_ client: ClientChannel, _ session: Session) -> Bool {
        client.request.cmcd != nil && (session.stripCMCD ?? configuration.stripCMCD)
    }
}
