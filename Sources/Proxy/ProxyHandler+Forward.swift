import Foundation
import Addressing
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Upstream

/// Forward mode: absolute-form requests and `CONNECT` from devices whose proxy setting points at
/// hlschaos. Requests join the same pipeline as reverse ones; only the session (the proxy user or
/// the client's address) and the upstream (the URL itself) are read differently.
extension ProxyHandler {
    struct Forwarding: Sendable {
        let settings: ProxyConfiguration.ForwardSettings
        let access: ForwardAccess
        /// Contexts for intercepted CONNECTs (the local CA's leaves); nil: every CONNECT is tunnelled.
        let tls: TLSContexts?
        /// This process's listening ports, and the address judgement libcurl's guard makes with
        /// them: forward requests must not loop back into the proxy.
        let ownPorts: ListeningPorts
    }

    /// The setup page's path when `target` asks for it: `/hlschaos/…`, or through a device's proxy
    /// setting `http://<any host>:<one of our ports>/hlschaos/…`.
    func setupPagePath(_ target: String) -> String? {
        if target.utf8.starts(with: SetupPage.prefix.utf8) { return target }  // bytes: asked of every request
        guard Self.isAbsoluteForm(target), let location = UpstreamLocation(absolute: target),
              location.pathAndQuery.hasPrefix(SetupPage.prefix), ownPorts.contains(location.port)
        else { return nil }
        return location.pathAndQuery
    }

    /// The host of a Host header ("host:port" → "host", "[v6]:port" → "[v6]"); nil when absent.
    static func hostOnly(_ header: String?) -> String? {
        guard let header, !header.isEmpty else { return nil }
        let host = UpstreamLocation.host(ofAuthority: header)
        return header.hasPrefix("[") ? "[\(host)]" : String(host)
    }

    /// The request's address in the proxy's grammar.
    func address(_ client: ClientChannel, target: String) async throws(Refusal) -> ProxyPath {
        let head = client.requestHead
        switch client.way {
        case .intercepted(let tunnel, let identity, let scheme):
            guard target.utf8.first == UInt8(ascii: "/") else {
                throw Refusal(.badRequest, "hlschaos: inside a CONNECT tunnel a request target is a path, not \"\(target.prefix(200))\"")
            }
            if let host = head.headers.first(name: "host"), !Self.names(host: host, tunnel) {
                throw Refusal(
                    .misdirectedRequest,
                    "hlschaos: this connection was opened with CONNECT \(tunnel); ask for \(host.prefix(100)) through a CONNECT of its own")
            }
            let url = "\(scheme)://\(tunnel.authority)\(target)"
            client.request.asked(for: url)
            return try parsed { () throws(ProxyPath.ParseError) in
                try ProxyPath(forwarding: url, session: forwardSession(identity.session, client), presets: identity.presets)
            }
        case .direct where Self.isAbsoluteForm(target):
            guard let forwarding else {
                throw Refusal(
                    .badRequest,
                    "hlschaos: \"\(target.prefix(200))\" is a forward-proxy request, and forward mode is off; start hlschaos with --forward (config \"forward\": {\"enabled\": true}), or ask for a path such as /s/tv1/…")
            }
            let identity = try admit(client, forwarding)
            let path = try parsed { () throws(ProxyPath.ParseError) in
                try ProxyPath(forwarding: target, session: forwardSession(identity.session, client), presets: identity.presets)
            }
            if let upstream = path.upstream, let refusal = forwarding.refusal(host: upstream.host, port: upstream.port) {
                throw Refusal(.forbidden, "hlschaos: \(refusal)")
            }
            return path
        case .direct:
            return try parsed { () throws(ProxyPath.ParseError) in try ProxyPath(parsing: target) }
        }
    }

    private func parsed(_ parse: () throws(ProxyPath.ParseError) -> ProxyPath) throws(Refusal) -> ProxyPath {
        do { return try parse() } catch { throw Refusal(.badRequest, "hlschaos: \(error)") }
    }

    /// The client's identity; a 407 or 400 otherwise. The session is the request's from here on.
    private func admit(_ client: ClientChannel, _ forwarding: Forwarding) throws(Refusal) -> ForwardAccess.Identity {
        let ip = String(UpstreamLocation.host(ofAuthority: client.clientAddress))
        switch forwarding.access.decide(headers: client.requestHead.headers, clientIP: ip) {
        case .allowed(let identity):
            client.request.admitted(session: identity.session)
            return identity
        case .needsCredentials(let message):
            throw Refusal(.proxyAuthenticationRequired, message, headers: ["proxy-authenticate": "Basic realm=\"hlschaos\""])
        case .badUser(let message):
            throw Refusal(.badRequest, message)
        }
    }

    /// `CONNECT host:port`: intercepted (TLS terminated with a leaf of the local CA, requests through
    /// the rules), tunnelled blind, or refused (the connection then closes after the refusal).
    func connect(_ client: ClientChannel, _ forwarding: Forwarding) async throws -> Disposition {
        let tunnel: ConnectTarget
        do { tunnel = try ConnectTarget(parsing: client.requestHead.uri) } catch { throw Refusal(.badRequest, "hlschaos: \(error)") }
        let identity = try admit(client, forwarding)
        if let refusal = forwarding.refusal(host: tunnel.host, port: tunnel.port) {
            throw Refusal(.forbidden, "hlschaos: \(refusal)")
        }
        if let tls = forwarding.tls, forwarding.intercepts(tunnel, allowlist: allowlist) {
            let context: NIOSSLContext
            do { context = try tls.interception(host: tunnel.host) } catch {
                logger.error("cannot make a certificate", metadata: ["host": "\(tunnel.host)", "error": "\(error)"])
                throw Refusal(.internalServerError, "hlschaos: cannot make a certificate for \(tunnel.host): \(error)")
            }
            client.request.answeredByConnection(.ok)
            return .switchConnection(.intercept(context, tunnel, identity))
        }
        guard forwarding.settings.tunnel else {
            throw Refusal(
                .forbidden,
                "hlschaos: \(tunnel) is not intercepted (forward.intercept) and forward.tunnel is false, so CONNECTs to other hosts are refused")
        }
        let upstream = try await openTunnel(to: tunnel, on: client.channel.eventLoop, forwarding: forwarding)
        client.request.answeredByConnection(.ok)
        return .switchConnection(.tunnel(upstream))
    }

    /// A TCP connection to the tunnel's target, on the client's event loop, to an address that was
    /// checked after name resolution (a name must not lead to a refused address).
    private func openTunnel(to tunnel: ConnectTarget, on loop: EventLoop, forwarding: Forwarding) async throws -> Channel {
        let address: SocketAddress
        do {
            address = try await NIOThreadPool.singleton.runIfActive {
                try SocketAddress.makeAddressResolvingHost(tunnel.host, port: tunnel.port)
            }
        } catch {
            throw Refusal(.badGateway, "hlschaos: cannot resolve \(tunnel.host): \(error)")
        }
        if let ip = address.ipAddress, let refusal = forwarding.refusal(host: ip, port: tunnel.port) {
            throw Refusal(.forbidden, "hlschaos: \(tunnel.host) resolves to \(ip): \(refusal)")
        }
        do {
            return try await ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelOption(.autoRead, value: true)
                .connectTimeout(TimeAmount(configuration.upstream.connectTimeout))
                .connect(to: address).get()
        } catch {
            throw Refusal(.badGateway, "hlschaos: cannot connect to \(tunnel): \(error)")
        }
    }

    /// `http://…` or `https://…`, in any case. Asked of every request: read in place, no copy.
    static func isAbsoluteForm(_ target: String) -> Bool {
        target.asciiCaseInsensitiveHasPrefix("http://") || target.asciiCaseInsensitiveHasPrefix("https://")
    }

    /// Whether a Host header names the tunnel's target (its port may be left out when it is 443).
    static func names(host: String, _ tunnel: ConnectTarget) -> Bool {
        let host = host.lowercased()
        return host == tunnel.authority || host == tunnel.description || (tunnel.port == 443 && host == tunnel.authority + ":443")
    }
}

extension ProxyHandler.Forwarding {
    /// Why forward requests must not go to `host:port`, or nil: this machine's own listeners (a loop
    /// through the proxy) and link-local addresses (the cloud metadata service), unless allowed.
    /// Judged as libcurl's address guard judges the address a fetch connects to; a name other
    /// than localhost is judged on the address it resolves to (the tunnel's, or libcurl's).
    func refusal(host: String, port: Int) -> String? {
        guard !settings.allowPrivateTargets else { return nil }
        let allow = "(set forward.allowPrivateTargets in the configuration to allow it)"
        if host == "metadata.google.internal" {
            return "\(host) is the cloud metadata service; forward requests may not go there \(allow)"
        }
        // A literal in the spelling the guard reads (no brackets, no zone id); localhost names are loopback.
        let address = host == "localhost" || host.hasSuffix(".localhost") ? "127.0.0.1" : IPAddress(host)?.description ?? host
        guard let refused = ownPorts.refusal(address: address, port: port) else { return nil }
        if refused.isOwnListener {
            return "\(host):\(port) is one of hlschaos's own listeners (\(refused.reason)); a forward request there would loop through the proxy \(allow)"
        }
        return "\(host) is \(refused.reason) (link-local, such as a cloud metadata service); forward requests may not go there \(allow)"
    }

    /// Hosts whose TLS the proxy terminates: the configured patterns, the configured origins and
    /// every host a playlist fetched through the proxy pointed to.
    func intercepts(_ tunnel: ConnectTarget, allowlist: HostAllowlist) -> Bool {
        if settings.intercept.contains(where: { HostName.matches(tunnel.host, pattern: $0) }) { return true }
        guard let location = UpstreamLocation(scheme: "https", authority: tunnel.authority, pathAndQuery: "/") else { return false }
        return allowlist.allows(location)
    }
}
