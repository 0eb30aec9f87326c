import CurlShim
#if canImport(Glibc)
import Glibc
#endif

extension UpstreamConfiguration {
    /// The form a `resolve` entry takes, for messages.
    static let resolveForm = #""host:port": "address" (IPv4, or IPv6 without brackets), e.g. "cdn.example.com:443": "203.0.113.7""#

    /// What is wrong with `resolve`, one line per problem naming the entry; empty when every entry
    /// is usable. `UpstreamClient.init` throws these as `.setup`; a config reader can show them first.
    public static func validateResolve(_ resolve: [String: String]) -> [String] {
        var problems: [String] = []
        var seen: [String: String] = [:]
        for (key, address) in resolve.sorted(by: { $0.key < $1.key }) {
            let entry = "resolve entry \"\(key.oneLine)\": \"\(address.oneLine)\""
            switch ResolveOverride.parse(key: key, address: address) {
            case .failure(let problem):
                problems.append("\(entry): \(problem); expected \(resolveForm)")
            case .success(let override):
                let id = "\(override.host.lowercased()):\(override.port)"
                if let other = seen[id] {
                    problems.append("\(entry): \"\(other.oneLine)\" names the same host and port (host names ignore case); keep one")
                }
                seen[id] = key
            }
        }
        return problems
    }
}

/// One `resolve` entry, checked: what curl's CURLOPT_RESOLVE gets as "host:port:address".
struct ResolveOverride: Equatable {
    let host: String
    let port: Int
    /// IPv6 in brackets, as curl's list syntax reads it unambiguously.
    let curlAddress: String

    var curlEntry: String { "\(host):\(port):\(curlAddress)" }

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(key: String, address: String) -> Result<ResolveOverride, Problem> {
        guard let colon = key.lastIndex(of: ":") else {
            return .failure(Problem(description: "\"\(key.oneLine)\" has no port"))
        }
        let host = String(key[..<colon])
        let portText = key[key.index(after: colon)...]
        guard !host.isEmpty else { return .failure(Problem(description: "no host name before the port")) }
        guard host.unicodeScalars.allSatisfy(isHostScalar) else {
            return .failure(Problem(description: "\"\(host.oneLine)\" is not a host name (letters, digits, '-', '.' and '_' only)"))
        }
        guard !portText.isEmpty, portText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let port = Int(portText), (1...65535).contains(port)
        else {
            return .failure(Problem(description: "port \"\(String(portText).oneLine)\" is not a number from 1 to 65535"))
        }
        var bare = Substring(address)
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = bare.dropFirst().dropLast() }
        if isIPv4(bare) { return .success(ResolveOverride(host: host, port: port, curlAddress: String(bare))) }
        if isIPv6(bare) { return .success(ResolveOverride(host: host, port: port, curlAddress: "[\(bare)]")) }
        return .failure(Problem(description: "\"\(address.oneLine)\" is not an IPv4 or IPv6 address"))
    }

    private static func isHostScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "_": return true
        default: return false
        }
    }

    private static func isIPv4(_ text: Substring) -> Bool {
        var address = in_addr()
        return String(text).withCString { inet_pton(AF_INET, $0, &address) } == 1
    }

    private static func isIPv6(_ text: Substring) -> Bool {
        var address = in6_addr()
        return String(text).withCString { inet_pton(AF_INET6, $0, &address) } == 1
    }
}

/// The client's CURLOPT_RESOLVE list, built once. Every transfer sets it (curl loads the entries
/// into the multi handle's DNS cache when the transfer starts, and a pooled handle forgets the
/// option at reset), so the list lives as long as the client's curl loop.
final class ResolveList: @unchecked Sendable {
    let list: UnsafeMutablePointer<curl_slist>

    /// nil for an empty map.
    init?(_ resolve: [String: String]) throws(UpstreamError) {
        let problems = UpstreamConfiguration.validateResolve(resolve)
        guard problems.isEmpty else { throw .setup(problems.joined(separator: "; ")) }
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for (key, address) in resolve.sorted(by: { $0.key < $1.key }) {
            guard case .success(let override) = ResolveOverride.parse(key: key, address: address) else { continue }
            guard let appended = override.curlEntry.withCString({ curl_slist_append(list, $0) }) else {
                curl_slist_free_all(list)
                throw .setup("out of memory building the resolve list")
            }
            list = appended
        }
        guard let list else { return nil }
        self.list = list
    }

    deinit { curl_slist_free_all(list) }
}
