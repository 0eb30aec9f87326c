import Markup

/// The device setup page's content (`/hlschaos/setup`, served by the proxy on its own port so that
/// it is reachable before the local CA is trusted): the root certificate in three forms, and how to
/// install it and set the proxy on each platform. The CA's private key is never among its files.
public struct DeviceSetupPage: Sendable {
    /// What a device installs: the root (PEM, DER), an Apple configuration profile, and the root's
    /// SHA-256 fingerprint to compare with what the device shows.
    public struct Root: Sendable {
        public var pem: String
        public var der: [UInt8]
        public var mobileconfig: [UInt8]
        public var fingerprint: String
        public var commonName: String

        public init(pem: String, der: [UInt8], mobileconfig: [UInt8], fingerprint: String, commonName: String) {
            self.pem = pem
            self.der = der
            self.mobileconfig = mobileconfig
            self.fingerprint = fingerprint
            self.commonName = commonName
        }

        public init(_ ca: LocalCA) {
            self.init(
                pem: ca.rootPEM, der: ca.rootDER, mobileconfig: AppleProfile.mobileconfig(for: ca), fingerprint: ca.fingerprintSHA256,
                commonName: ca.commonName)
        }
    }

    /// One of the page's files, answered 200.
    public struct File: Sendable, Equatable {
        public var body: [UInt8]
        public var contentType: String
        /// Sent as `Content-Disposition: attachment` under this name; nil for the page itself.
        public var attachmentName: String?
    }

    /// Where the page's files are, on the proxy's port.
    public static let prefix = "/hlschaos/"
    /// The page: `prefix` + "setup".
    public static let path = prefix + "setup"

    /// nil: nothing terminates TLS, so there is no root to install.
    public let root: Root?
    /// Whether devices can set the proxy as theirs (forward mode).
    public let forward: Bool

    public init(root: Root?, forward: Bool) {
        self.root = root
        self.forward = forward
    }

    /// The file at `name`, the path after `prefix` without its query ("setup", "ca.pem", …); nil
    /// when there is no such file.
    public func file(named name: Substring, proxyHost: String?, proxyPort: Int) -> File? {
        switch name {
        case "setup", "setup/", "":
            return File(body: Array(html(proxyHost: proxyHost, proxyPort: proxyPort).utf8), contentType: "text/html; charset=utf-8")
        case "ca.pem":
            return root.map { File(body: Array($0.pem.utf8), contentType: "application/x-pem-file", attachmentName: "hlschaos-ca.pem") }
        case "ca.crt":
            return root.map { File(body: $0.der, contentType: "application/x-x509-ca-cert", attachmentName: "hlschaos-ca.crt") }
        case "hlschaos.mobileconfig":
            return root.map { File(body: $0.mobileconfig, contentType: AppleProfile.contentType, attachmentName: "hlschaos.mobileconfig") }
        default:
            return nil
        }
    }

    /// The page itself: how to install the root and set the proxy; `proxyHost` as the device asked
    /// for this page (its `Host`), else a placeholder.
    public func html(proxyHost: String?, proxyPort: Int) -> String {
        let host = Markup.escape(proxyHost ?? "<this machine's address>")
        let rootPart: String
        if let root {
            rootPart = """
            <h2>1. Install the hlschaos root certificate</h2>
            <p>Certificate: <b>\(Markup.escape(root.commonName))</b><br>SHA-256 fingerprint: <code>\(Markup.escape(root.fingerprint))</code><br>
            Compare it with what the device shows before you trust it. It was made on this machine and is trusted only by devices you install it on.</p>
            <ul class="files">
            <li><a href="\(Self.prefix)hlschaos.mobileconfig">hlschaos.mobileconfig</a> — iPhone, iPad, Mac (configuration profile)</li>
            <li><a href="\(Self.prefix)ca.crt">ca.crt</a> — Android, Windows, Apple TV (DER)</li>
            <li><a href="\(Self.prefix)ca.pem">ca.pem</a> — curl, ffmpeg, Firefox, Linux (PEM)</li>
            </ul>
            <h3>iPhone and iPad</h3>
            <ol><li>Open this page in <b>Safari</b> and tap <i>hlschaos.mobileconfig</i>; allow the download.</li>
            <li>Settings → General → VPN &amp; Device Management → <i>hlschaos</i> → Install.</li>
            <li>Settings → General → About → Certificate Trust Settings → turn on full trust for the hlschaos root. Without this step apps refuse its certificates.</li></ol>
            <h3>Mac</h3>
            <ol><li>Download <i>hlschaos.mobileconfig</i>, open System Settings → Privacy &amp; Security → Profiles, and install it.</li>
            <li>In Keychain Access, open the hlschaos certificate and set <i>When using this certificate</i> to <i>Always Trust</i>.</li></ol>
            <h3>Android</h3>
            <ol><li>Download <i>ca.crt</i>; Settings → Security → Encryption &amp; credentials → Install a certificate → CA certificate.</li>
            <li>Since Android 7, apps trust user-installed CAs only when they opt in. In a debug build of your app, add <code>res/xml/network_security_config.xml</code>:
            <pre>&lt;network-security-config&gt;
              &lt;debug-overrides&gt;
                &lt;trust-anchors&gt;
                  &lt;certificates src="user" /&gt;
                &lt;/trust-anchors&gt;
              &lt;/debug-overrides&gt;
            &lt;/network-security-config&gt;</pre>
            and reference it with <code>android:networkSecurityConfig="@xml/network_security_config"</code> on <code>&lt;application&gt;</code> in the manifest. Chrome on Android trusts user CAs without this.</li></ol>
            <h3>Apple TV</h3>
            <p>tvOS installs profiles through Apple Configurator on a Mac (the Apple TV paired over the network): add <i>hlschaos.mobileconfig</i> to the Apple TV, then turn on full trust under Settings → General → About → Certificate Trust Settings. Set the proxy under Settings → Network → (your network) → Configure Proxy.</p>
            <h3>Desktop browsers</h3>
            <p>Chrome and Edge use the system store (install the certificate there; on Linux, Chrome reads the NSS database: <code>certutil -d sql:$HOME/.pki/nssdb -A -t "C,," -n hlschaos -i ca.pem</code>). Firefox has its own: Settings → Privacy &amp; Security → Certificates → View Certificates → Authorities → Import.</p>
            """
        } else {
            rootPart = "<p>TLS interception is off, so there is no certificate to install.</p>"
        }
        let proxyPart = forward
            ? """
            <h2>2. Point the device's proxy at hlschaos</h2>
            <p>Server <b>\(host)</b>, port <b>\(proxyPort)</b>. On iOS: Settings → Wi-Fi → ⓘ → Configure Proxy → Manual. On Android: Wi-Fi → the network → Edit → Advanced → Proxy → Manual. On a Mac: System Settings → Network → Details → Proxies (web and secure web proxy).</p>
            <p>A proxy user name picks the session and presets, for example <code>tv1</code> or <code>tv1+status-503</code>. Without one, the device's session is named after its address (<code>ip-192-168-1-20</code>), which the dashboard can rename.</p>
            """
            : "<p>Forward mode is off: start hlschaos with <code>--forward</code> so that devices can use it as their proxy.</p>"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>hlschaos device setup</title>
            <style>body{font:16px/1.5 system-ui,sans-serif;max-width:46em;margin:1em auto;padding:0 1em;color:#222}code,pre{background:#f3f3f3;padding:0 .2em}pre{padding:.5em;overflow:auto}.files li{margin:.3em 0}</style>
            </head><body>
            <h1>Set up a device for hlschaos</h1>
            <p>hlschaos sits between the device and the stream's servers and makes documented failures happen on demand. Do the steps once per device.</p>
            \(rootPart)
            \(proxyPart)
            <h2>3. Play</h2>
            <p>Start the app as usual. Its stream requests appear in the hlschaos dashboard under the device's session; the presets and rules apply to them.</p>
            </body></html>
            """
    }
}
