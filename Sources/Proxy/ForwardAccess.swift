import Addressing
import NIOHTTP1

/// Who may use the forward proxy, and in which session: hlschaos is not an open relay. A client
/// from `allowNetworks` needs no password; any other must send a configured user's password or
/// the shared one. The proxy user (if sent) names the session, else the client's address does.
struct ForwardAccess: Sendable {
    let settings: ProxyConfiguration.ForwardSettings
    let devices: DeviceNames

    /// The session a forward request or a tunnel runs in, decided once per request or CONNECT.
    struct Identity: Sendable, Equatable {
        var session: String
        var presets: [String]
        /// The proxy user as sent, when there was one.
        var user: String?
    }

    enum Decision: Equatable {
        case allowed(Identity)
        /// 407: credentials missing or wrong (the message says which).
        case needsCredentials(String)
        /// 400: the user name is not a session name.
        case badUser(String)
    }

    func decide(headers: HTTPHeaders, clientIP: String) -> Decision {
        let address = IPAddress(clientIP)
        let fromAllowedNetwork = address.map { ip in settings.allowNetworks.contains { $0.contains(ip) } } ?? false
        let header = headers.first(name: "proxy-authorization")
        guard let header else {
            guard fromAllowedNetwork else {
                return .needsCredentials(
                    "hlschaos forward proxy: \(clientIP) is not in forward.allowNetworks (\(networksText)); send proxy credentials (a user and the password of forward.users or forward.password), or add this network to forward.allowNetworks")
            }
            return .allowed(Identity(session: devices.session(forAddress: clientIP), presets: [], user: nil))
        }
        guard let credentials = ProxyCredentials(header: header) else {
            return .needsCredentials("hlschaos forward proxy: the Proxy-Authorization header is not Basic user:password credentials")
        }
        let named: (session: String, presets: [String])
        do { named = try credentials.session() } catch { return .badUser("hlschaos: \(error)") }
        if !fromAllowedNetwork {
            let expected = settings.users[named.session]
            guard credentials.password == expected || (settings.sharedPassword.map { $0 == credentials.password } ?? false) else {
                return .needsCredentials(
                    settings.hasPasswords
                        ? "hlschaos forward proxy: wrong password for proxy user \"\(named.session)\""
                        : "hlschaos forward proxy: \(clientIP) is not in forward.allowNetworks (\(networksText)) and no passwords are configured (forward.users, forward.password)")
            }
        }
        devices.saw(address: clientIP, session: named.session)
        return .allowed(Identity(session: named.session, presets: named.presets, user: credentials.user))
    }

    private var networksText: String {
        settings.allowNetworks.isEmpty ? "none" : settings.allowNetworks.map(\.description).joined(separator: ", ")
    }
}
