/// The end of the `demo` and `replay` banners: how a device picks a session and presets, what to
/// play with, the control API, how to stop.
func deviceHelp(
    example host: String, proxyPort: Int, entryPath: String, controlURL: String?, controlNeedsToken: Bool
) -> [String] {
    var lines = [
        "A device gets its own session with /s/<name>/ before the path, and presets from rules/",
        "with +<preset> after the name, e.g.",
        "    http://\(host):\(proxyPort)/s/tv1\(entryPath)",
        "    http://\(host):\(proxyPort)/s/tv1+status-503\(entryPath)",
        "Play one with:  ffplay URL   |   mpv URL   |   Safari / VLC on a phone",
    ]
    if let controlURL {
        let token = controlNeedsToken ? ", with Authorization: Bearer <token>" : ""
        lines.append("Control API:    \(controlURL)  (routes: \(controlURL)/api/openapi.json\(token))")
    }
    lines.append("Stop with Ctrl-C.")
    return lines
}
