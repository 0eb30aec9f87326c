import Addressing
import Foundation
import Hummingbird
import JSON
import Proxy

/// Devices of the forward proxy and how to set one up. In forward mode a device without a proxy
/// user plays in the session `ip-<address>`; `PUT /api/devices/{address}` gives its address a
/// session name instead (`DELETE` takes it back), and `GET /api/devices` lists every device seen
/// and every named address. `GET /api/setup` says where a device finds the setup page (the local
/// CA's root, the configuration profile, the steps per platform) and whether the proxy has forward
/// mode or an HTTPS listener; the dashboard shows its QR code.
extension ControlAPI {
    struct DeviceJSON: Encodable {
        var address: String
        var session: String
        /// The session is a name given through this API (not `ip-<address>` or the proxy user).
        var named: Bool
        /// When the proxy last saw the device; null for a named address it has not seen.
        var lastSeen: Date?

        init(_ device: DeviceNames.Device) {
            self.init(
                address: device.address, session: device.session, named: device.named,
                lastSeen: device.lastSeen == .distantPast ? nil : device.lastSeen)
        }

        init(address: String, session: String, named: Bool, lastSeen: Date?) {
            self.address = address
            self.session = session
            self.named = named
            self.lastSeen = lastSeen
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(address, forKey: .address)
            try container.encode(session, forKey: .session)
            try container.encode(named, forKey: .named)
            try container.encode(lastSeen, forKey: .lastSeen)
        }
        enum CodingKeys: String, CodingKey { case address, session, named, lastSeen }
    }

    struct DeviceList: Encodable { var devices: [DeviceJSON] }

    struct SetupJSON: Encodable {
        var forward: Bool
        var proxyPort: Int
        var httpsPort: Int?
        var setupURLs: [String]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(forward, forKey: .forward)
            try container.encode(proxyPort, forKey: .proxyPort)
            try container.encode(httpsPort, forKey: .httpsPort)
            try container.encode(setupURLs, forKey: .setupURLs)
        }
        enum CodingKeys: String, CodingKey { case forward, proxyPort, httpsPort, setupURLs }
    }

    func devices() -> Response {
        let devices = proxy.devices().sorted { $0.address < $1.address }
        return JSONOutput.response(DeviceList(devices: devices.map(DeviceJSON.init)))
    }

    func nameDevice(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let address = try deviceAddress(context)
        let body = try await readJSON(request)
        guard case .object(let members) = body else {
            throw APIError.badRequest(
                #"the body must be a JSON object such as {"session": "tv1"}"#,
                problems: [.init(file: "request", path: "$", message: "expected an object, got \(body.typeName)")])
        }
        try Self.checkKeys(members, allowed: ["session"])
        guard let value = body.member("session") else {
            throw APIError.badRequest(
                #"the body needs a "session": the name the device's requests go to (1 to 64 letters, digits, '.', '_' or '-'); DELETE /api/devices/\#(address) gives it back its ip- session"#,
                problems: [.init(file: "request", path: "$.session", message: "missing")])
        }
        guard case .string(let session) = value, ProxyControl.isValidSessionID(session) else {
            let got = if case .string(let text) = value { "\"\(text)\"" } else { value.typeName }
            throw APIError.badRequest(
                #""session" must be a session name: 1 to 64 letters, digits, '.', '_' or '-' (got \#(got))"#,
                problems: [.init(file: "request", path: "$.session", message: "expected 1 to 64 letters, digits, '.', '_' or '-', got \(got)")])
        }
        proxy.nameDevice(address: address, session: session)
        return JSONOutput.response(device(address).map(DeviceJSON.init) ?? DeviceJSON(address: address, session: session, named: true, lastSeen: nil))
    }

    func unnameDevice(_ context: BasicRequestContext) throws -> Response {
        let address = try deviceAddress(context)
        guard device(address)?.named == true else {
            throw APIError(.notFound, "no session name was given to \(address): GET /api/devices lists the named ones")
        }
        proxy.nameDevice(address: address, session: nil)
        return Response(status: .noContent)
    }

    func setup() -> Response {
        JSONOutput.response(SetupJSON(
            forward: proxy.forwardEnabled, proxyPort: proxy.port, httpsPort: proxy.httpsPort,
            setupURLs: configuration.deviceHosts.map { "http://\($0):\(proxy.port)\(ProxyControl.setupPath)" }))
    }

    private func device(_ address: String) -> DeviceNames.Device? {
        proxy.devices().first { $0.address == address }
    }

    /// The address of the path in its one spelling (`IPAddress.description`: dotted decimal without
    /// leading zeros, RFC 5952 for IPv6), which is how the proxy keys devices.
    func deviceAddress(_ context: BasicRequestContext) throws(APIError) -> String {
        let raw = context.parameters.get("address") ?? ""
        let text = raw.removingPercentEncoding ?? raw
        guard let ip = IPAddress(text) else {
            throw APIError.badRequest(
                "\"\(text)\" is not an IP address: give the device's IPv4 or IPv6 address as GET /api/devices lists it (192.168.1.20, fd00::20)",
                problems: [.init(file: "request", path: "address", message: "expected an IPv4 or IPv6 address")])
        }
        // 192.168.001.020 is not how the proxy writes an address (and some read it as octal).
        guard !ip.isV4 || ip.description == text else {
            throw APIError.badRequest(
                "write the IPv4 address \"\(text)\" as \(ip.description), as GET /api/devices lists it",
                problems: [.init(file: "request", path: "address", message: "expected \(ip.description)")])
        }
        return ip.description
    }
}
