import Addressing
import Chaos
import JSON
import Proxy
import Upstream

/// The `forward` and `https` objects of the configuration file.
extension ConfigFile.Reader {
    static let forwardKeys = ["enabled", "users", "password", "allowNetworks", "intercept", "tunnel", "allowPrivateTargets", "sessionFromCMCD"]
    static let httpsKeys = ["port", "certificate", "key"]

    /// `"forward": {"enabled": true, "users": {"tv1": "secret"}, "password": "…", "allowNetworks": ["192.168.1.0/24"],
    /// "intercept": ["*.cdn.example.com"], "tunnel": true, "allowPrivateTargets": false}`.
    mutating func forward(_ value: JSONValue, into configuration: inout ProxyConfiguration) {
        guard case .object(let members) = value else {
            return problem("forward", "expected an object such as {\"enabled\": true, \"intercept\": [\"*.example.com\"]}, got \(value.typeName)")
        }
        var settings = configuration.forward
        for member in members where !member.key.hasPrefix("//") {
            let key = "forward.\(member.key)"
            switch member.key {
            case "enabled", "tunnel", "allowPrivateTargets", "sessionFromCMCD":
                guard case .bool(let flag) = member.value else {
                    problem(key, "expected true or false, got \(member.value.typeName)")
                    continue
                }
                switch member.key {
                case "enabled": settings.enabled = flag
                case "tunnel": settings.tunnel = flag
                case "sessionFromCMCD": settings.sessionFromCMCD = flag
                default: settings.allowPrivateTargets = flag
                }
            case "users":
                guard case .object(let users) = member.value else {
                    problem(key, "expected an object of USER: PASSWORD, got \(member.value.typeName)")
                    continue
                }
                for user in users where !user.key.hasPrefix("//") {
                    guard ProxyPath.isValidName(user.key) else {
                        problem("\(key).\(user.key)", "user names are session names: 1–64 letters, digits, '.', '_' or '-'")
                        continue
                    }
                    guard case .string(let password) = user.value, !password.isEmpty else {
                        problem("\(key).\(user.key)", "expected a non-empty password string")
                        continue
                    }
                    settings.users[user.key] = password
                }
            case "password":
                if case .null = member.value { settings.sharedPassword = nil; continue }
                guard let text = string(key, member.value) else { continue }
                guard !text.isEmpty else {
                    problem(key, "an empty password would let anyone in; remove the key or set one")
                    continue
                }
                settings.sharedPassword = text
            case "allowNetworks":
                guard let items = strings(key, member.value) else { continue }
                var networks: [NetworkRange] = []
                for item in items {
                    guard let network = NetworkRange(item) else {
                        problem(key, "\"\(item)\" is not an address or a network in CIDR form (for example \"192.168.1.0/24\" or \"fd00::/8\")")
                        continue
                    }
                    networks.append(network)
                }
                settings.allowNetworks = networks
            case "intercept":
                guard let items = strings(key, member.value) else { continue }
                for item in items where !(item == "*" || HostName.isValid(item.hasPrefix("*.") ? String(item.dropFirst(2)) : item)) {
                    problem(key, "\"\(item)\" is not a host name, \"*.domain\" or \"*\"")
                }
                settings.intercept = items
            default:
                let hint = ValueSyntax.suggestion(for: member.key, in: Self.forwardKeys).map { " (did you mean \"\($0)\"?)" } ?? ""
                problem(key, "unknown key\(hint); forward takes \(Self.forwardKeys.joined(separator: ", "))")
            }
        }
        configuration.forward = settings
    }

    /// `"https": {"port": 8443, "certificate": "cert.pem", "key": "key.pem"}` (certificate and key together, or neither).
    mutating func https(_ value: JSONValue, into configuration: inout ProxyConfiguration) {
        if case .null = value { configuration.https = nil; return }
        guard case .object(let members) = value else {
            return problem("https", "expected an object such as {\"port\": 8443}, got \(value.typeName)")
        }
        var settings = ProxyConfiguration.HTTPSSettings(port: -1)
        for member in members where !member.key.hasPrefix("//") {
            let key = "https.\(member.key)"
            switch member.key {
            case "port":
                if let port = integer(key, member.value, 0...65535, unit: "port") { settings.port = port }
            case "certificate":
                settings.certificateFile = string(key, member.value)
            case "key":
                settings.keyFile = string(key, member.value)
            default:
                let hint = ValueSyntax.suggestion(for: member.key, in: Self.httpsKeys).map { " (did you mean \"\($0)\"?)" } ?? ""
                problem(key, "unknown key\(hint); https takes \(Self.httpsKeys.joined(separator: ", "))")
            }
        }
        if settings.port < 0 { return problem("https.port", "missing: the port of the HTTPS listener, for example 8443") }
        if (settings.certificateFile == nil) != (settings.keyFile == nil) {
            return problem("https", "give both \"certificate\" and \"key\" (PEM files), or neither to use a certificate from the local CA")
        }
        configuration.https = settings
    }

    /// `"resolve": {"cdn.example.com:443": "203.0.113.7"}`: libcurl connects there instead of resolving.
    mutating func resolve(_ value: JSONValue, into configuration: inout ProxyConfiguration) {
        guard case .object(let members) = value else {
            return problem("resolve", "expected an object of \"HOST:PORT\": \"ADDRESS\", got \(value.typeName)")
        }
        var entries: [String: String] = [:]
        for member in members where !member.key.hasPrefix("//") {
            guard case .string(let address) = member.value else {
                problem("resolve.\(member.key)", "expected an IP address string, got \(member.value.typeName)")
                continue
            }
            entries[member.key] = address
        }
        for message in UpstreamConfiguration.validateResolve(entries) { problem("resolve", message) }
        configuration.upstream.resolve = entries
    }

    mutating func strings(_ key: String, _ value: JSONValue) -> [String]? {
        guard case .array(let items) = value else {
            problem(key, "expected a list of strings, got \(value.typeName)")
            return nil
        }
        var result: [String] = []
        for item in items {
            guard case .string(let text) = item else {
                problem(key, "every entry must be a string, got \(item.typeName)")
                return nil
            }
            result.append(text)
        }
        return result
    }
}
