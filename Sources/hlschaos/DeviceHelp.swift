import Proxy

/// The end of the `demo` and `replay` banners: how a device picks a session and presets, what to
/// play with, the control API, how to stop.
func deviceHelp(
    example host: String, proxyPort: Int, entryPath: String, controlURL: String?, controlNeedsToken: Bool,
    httpsPort: Int? = nil, forward: Bool = false
) -> [String] {
    var lines = [
        "A device gets its own session with /s/<name>/ before the path, and presets from rules/",
        "with +<preset> after the name, e.g.",
        "    http://\(host):\(proxyPort)/s/tv1\(entryPath)",
        "    http://\(host):\(proxyPort)/s/tv1+status-503\(entryPath)",
        "Play one with:  ffplay URL   |   mpv URL   |   Safari / VLC on a phone",
    ]
    if forward {
        lines.append("Unmodified apps: set the device's Wi-Fi proxy to \(host):\(proxyPort) (a proxy user such as tv1+status-503 picks")
        lines.append("the session and presets) and install the root certificate from the setup page.")
    }
    if forward || httpsPort != nil {
        lines.append("Set up a device (root certificate, proxy, per platform):  http://\(host):\(proxyPort)\(ProxyControl.setupPath)")
    }
    if let controlURL {
        let token = controlNeedsToken ? ", with Authorization: Bearer <token>" : ""
        lines.append("Control API:    \(controlURL)  (routes: \(controlURL)/api/openapi.json\(token))")
    }
    lines.append("Stop with Ctrl-C.")
    return lines
}

/// The device URLs of one entry path: http on the proxy's port, and https on the HTTPS listener's.
func entryURLs(hosts: [String], proxyPort: Int, httpsPort: Int?, path: String) -> [String] {
    hosts.map { "http://\($0):\(proxyPort)\(path)" } + (httpsPort.map { port in hosts.map { "https://\($0):\(port)\(path)" } } ?? [])
}
