import CertificateAuthority
import NIOHTTP1

/// Answers the device setup page's paths (`/hlschaos/…`) on the proxy's own listener; what the page
/// holds comes from `DeviceSetupPage`.
struct SetupPage: Sendable {
    static let prefix = DeviceSetupPage.prefix
    let content: DeviceSetupPage

    /// Answers a request for one of the page's paths; false when `path` is not one of them.
    func answer(path: String, proxyHost: String?, proxyPort: Int, client: ClientChannel) async throws -> Bool {
        let bare = path.prefix { $0 != "?" }
        guard bare.hasPrefix(Self.prefix) else { return false }
        guard let file = content.file(named: bare.dropFirst(Self.prefix.count), proxyHost: proxyHost, proxyPort: proxyPort) else {
            throw Refusal(.notFound, "hlschaos: no such setup file; the setup page is \(DeviceSetupPage.path)")
        }
        var headers: HTTPHeaders = ["content-type": file.contentType]
        if let name = file.attachmentName { headers.add(name: "content-disposition", value: "attachment; filename=\"\(name)\"") }
        try await client.sendBody(file.body, status: .ok, headers: headers)
        return true
    }
}
