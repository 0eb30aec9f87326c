import Addressing
import AppConfiguration
import ArgumentParser
import DemoOrigin
import Foundation
import Logging
import Proxy

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the embedded demo origin and the proxy in front of it.",
        discussion: """
            Prints the URLs a phone, TV or browser can open: VOD and live, for localhost and for every
            network address of this machine. Stop with Ctrl-C.
            """)

    @OptionGroup var options: ProxyOptions

    @Option(help: "Port of the demo origin itself (default: any free port on 127.0.0.1).")
    var originPort: Int = 0

    func run() async throws {
        var settings = try options.settings()
        let logger = makeLogger(settings.logLevel)
        let origin: DemoOriginServer
        do {
            origin = try await DemoOriginServer.start(origin: DemoOrigin(), host: "127.0.0.1", port: originPort)
        } catch {
            throw CLIError("cannot start the demo origin: \(error)")
        }
        settings.proxy.defaultOrigin = UpstreamLocation(absolute: origin.baseURL)
        let configuration = settings.proxy
        var runner = ProxyRunner(settings: settings, logger: logger, verbose: options.verbose)
        runner.control = try options.controlSetting(settings.control)
        try await runner.run { server, control in
            // Written unbuffered: through a pipe (tee, CI logs) print() would hold the URLs until exit.
            let banner = Self.banner(
                proxyPort: server.port, originURL: origin.baseURL, listenHost: configuration.host,
                controlURL: control.map(\.url), controlNeedsToken: control?.configuration.token != nil,
                httpsPort: server.httpsPort, forward: configuration.forward.enabled)
            FileHandle.standardOutput.write(Data((banner + "\n").utf8))
        }
        try? await origin.shutdown()
    }

    static func banner(
        proxyPort: Int, originURL: String, listenHost: String, controlURL: String? = nil, controlNeedsToken: Bool = false,
        httpsPort: Int? = nil, forward: Bool = false
    ) -> String {
        let hosts = ["localhost"] + (listenHost == "127.0.0.1" || listenHost == "localhost" ? [] : reachableAddresses())
        var lines = ["hlschaos demo: origin \(originURL), proxy on port \(proxyPort)", ""]
        for (path, title) in DemoOrigin.catalogue {
            lines.append("  \(title)")
            for url in entryURLs(hosts: hosts, proxyPort: proxyPort, httpsPort: httpsPort, path: path) { lines.append("    " + url) }
        }
        lines.append("")
        lines += deviceHelp(
            example: hosts.dropFirst().first ?? "localhost", proxyPort: proxyPort, entryPath: "/vod/ts/master.m3u8",
            controlURL: controlURL, controlNeedsToken: controlNeedsToken, httpsPort: httpsPort, forward: forward)
        return lines.joined(separator: "\n")
    }
}
