import Addressing
import AppConfiguration
import ArgumentParser
import Chaos
import Foundation
import Logging
import Proxy
import Upstream
import BundleFormat

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the proxy in front of your origin.",
        discussion: """
            Devices open http://<this machine>:<port>/<path> instead of <upstream>/<path>.
            Give each device its own session with /s/<id>/<path>.
            Example: hlschaos serve --upstream https://cdn.example.com/live --port 8080
            """)

    @OptionGroup var options: ProxyOptions

    func run() async throws {
        let settings = try options.settings()
        let configuration = settings.proxy
        guard configuration.defaultOrigin != nil || !configuration.origins.isEmpty || configuration.forward.enabled else {
            throw CLIError("no origin to proxy: give --upstream URL, --origin NAME=URL, or a --config file with \"upstream\" or \"origins\" (or --forward, for devices whose proxy setting points here)")
        }
        let logger = makeLogger(settings.logLevel)
        var runner = ProxyRunner(settings: settings, logger: logger, verbose: options.verbose)
        runner.control = try options.controlSetting(settings.control)
        try await runner.run { server, control in
            let entry = configuration.defaultOrigin.map { "\($0.url) as http://<this machine>:\(server.port)/" } ?? ""
            logger.info("hlschaos listening on \(configuration.host):\(server.port) \(entry)")
            if let httpsPort = server.httpsPort { logger.info("HTTPS (HTTP/2 and HTTP/1.1) on \(configuration.host):\(httpsPort)") }
            if configuration.forward.enabled {
                let intercept = configuration.forward.intercept.isEmpty ? "origins and the hosts their playlists name" : configuration.forward.intercept.joined(separator: ", ")
                logger.info("forward proxy on port \(server.port): TLS intercepted for \(intercept); other CONNECTs \(configuration.forward.tunnel ? "tunnelled" : "refused")")
            }
            if configuration.forward.enabled || server.httpsPort != nil {
                logger.info("device setup page: http://<this machine>:\(server.port)\(ProxyControl.setupPath)")
            }
            if let control {
                let token = control.configuration.token == nil ? "" : ", bearer token required"
                logger.info("control API on \(control.url) (routes: \(control.url)/api/openapi.json\(token))")
            }
        }
    }
}

/// Options shared by `serve` and `demo`.
struct ProxyOptions: ParsableArguments {
    @Option(help: "JSON configuration file (see config.example.json). Flags override it.")
    var config: String?

    @Option(help: "The default origin: /<path> on the proxy fetches <upstream>/<path>.")
    var upstream: String?

    @Option(name: .customLong("origin"), help: ArgumentHelp("A named origin, reached as /@NAME/<path>. Repeatable.", valueName: "NAME=URL"))
    var origins: [String] = []

    @Option(help: "Address to listen on (default 0.0.0.0: reachable from other devices).")
    var host: String?

    @Option(help: "Port to listen on (default 8080).")
    var port: Int?

    @Option(name: .customLong("rules"), parsing: .upToNextOption,
            help: ArgumentHelp("Rule files (scenarios) applied to every session; reloaded when they change or on SIGHUP.", valueName: "FILE"))
    var ruleFiles: [String] = []

    @Option(help: "Folder of extra presets a device URL can pick with /s/<id>+<preset>/; its *.json files add to the built-in presets and override them by name.")
    var presets: String?

    @Option(help: ArgumentHelp("Append every request's record to FILE as JSON Lines (rotated to FILE.1 past eventsMaxBytes).", valueName: "FILE"))
    var events: String?

    @Option(help: ArgumentHelp("Keep what every device fetched (statuses, headers, bodies, timings, faults included) in a recording bundle for `hlschaos replay`; a path ending in .tar is packed into one file when the proxy stops.", valueName: "BUNDLE"))
    var record: String?

    @Flag(help: "Recordings (--record and the control API's) drop cookies, Authorization and query tokens before anything is written.")
    var recordRedact = false

    @Option(help: ArgumentHelp("A recording stops once it reaches this size (default 10GB).", valueName: "SIZE"))
    var recordMaxSize: String?

    @Option(help: ArgumentHelp("Every session's link unless its rules or the API give one: a profile (slow-3g, slow-4g, fast-3g, fast-4g), a link spec as JSON ('{\"rate\": \"2Mbps\"}'), or a JSON file holding one (docs/link.md).", valueName: "LINK"))
    var link: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String?

    @Flag(name: .shortAndLong, help: "Print a line for every request, not only for faulted ones and session starts.")
    var verbose = false

    @OptionGroup var control: ControlOptions

    @Flag(help: "Forward-proxy mode: devices set this machine as their HTTP proxy; CONNECTs to intercepted hosts get TLS from the local CA (see `hlschaos ca`).")
    var forward = false

    @Option(name: .customLong("intercept"), help: ArgumentHelp("With --forward: a host whose HTTPS is intercepted (TLS terminated, requests through the rules): cdn.example.com, *.example.com or *. Repeatable. Origins and hosts their playlists name are intercepted anyway.", valueName: "HOST"))
    var intercept: [String] = []

    @Option(help: ArgumentHelp("Also serve the proxy's paths over HTTPS (HTTP/2 and HTTP/1.1) on this port, with a certificate from the local CA or --tls-cert/--tls-key.", valueName: "PORT"))
    var httpsPort: Int?

    @Option(help: ArgumentHelp("Certificate chain (PEM) for the HTTPS listener, instead of one from the local CA.", valueName: "FILE"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("Private key (PEM) of --tls-cert.", valueName: "FILE"))
    var tlsKey: String?

    @Option(name: .customLong("resolve"), help: ArgumentHelp("Connect to ADDRESS for HOST:PORT instead of resolving HOST, as curl --resolve does: pin a CDN edge, or give a name to a test origin. Repeatable.", valueName: "HOST:PORT:ADDRESS"))
    var resolve: [String] = []

    @Option(help: ArgumentHelp("Trust the CA certificates of FILE (PEM) for origins, besides the system's: a private origin's CA.", valueName: "FILE"))
    var upstreamCAFile: String?

    @Option(help: ArgumentHelp("Where hlschaos keeps its local certificate authority (default: $XDG_DATA_HOME/hlschaos, else ~/.local/share/hlschaos).", valueName: "DIR"))
    var dataDir: String?

    /// The control API to start: flags, then HLSCHAOS_CONTROL_TOKEN, then the config file's part,
    /// then the default address.
    func controlSetting(_ file: AppSettings.ControlSettings) throws -> ControlOptions.Setting {
        try control.setting(fileListen: file.listen, fileToken: file.token)
    }

    /// The config file's settings (`--config`), each part with its flags put over it.
    func settings() throws -> AppSettings {
        var settings = AppSettings()
        if let config {
            do {
                settings = try ConfigFile.load(path: config)
            } catch {
                throw CLIError(String(describing: error))
            }
        }
        try apply(to: &settings.proxy)
        if !ruleFiles.isEmpty { settings.rules.ruleFiles = ruleFiles }
        if let presets { settings.rules.presetDirectory = presets }
        if let dataDir { settings.dataDirectory = dataDir }
        if let logLevel {
            guard Logger.Level(rawValue: logLevel) != nil else {
                throw CLIError("--log-level \"\(logLevel)\" is not one of trace, debug, info, notice, warning, error")
            }
            settings.logLevel = logLevel
        }
        return settings
    }

    /// The data plane's flags over the file's part.
    private func apply(to configuration: inout ProxyConfiguration) throws {
        if let upstream {
            guard let location = UpstreamLocation(absolute: upstream) else {
                throw CLIError("--upstream \"\(upstream)\" is not an absolute http(s) URL, for example https://cdn.example.com/live")
            }
            configuration.defaultOrigin = location
        }
        for spec in origins {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, ConfigFile.isValidOriginName(parts[0]) else {
                throw CLIError("--origin \"\(spec)\" must be NAME=URL, with a name of letters, digits, '.', '_' or '-'")
            }
            guard let location = UpstreamLocation(absolute: parts[1]) else {
                throw CLIError("--origin \(parts[0]): \"\(parts[1])\" is not an absolute http(s) URL")
            }
            configuration.origins[parts[0]] = location
        }
        if let link {
            do {
                configuration.link = LinkChoice(spec: try LinkSetting.argument(link), from: "serve --link")
            } catch {
                throw CLIError("--link \"\(link)\": \(error.problems.map(\.description).joined(separator: "; "))")
            }
        }
        if let host { configuration.host = host }
        if let port {
            guard (0...65535).contains(port) else { throw CLIError("--port \(port) is not a port number (0–65535)") }
            configuration.port = port
        }
        if let events { configuration.eventsFile = events }
        if let record { configuration.recordPath = record }
        if recordRedact { configuration.recordRedact = true }
        if let recordMaxSize {
            guard let bytes = ByteSize.parse(recordMaxSize) else {
                throw CLIError("--record-max-size \"\(recordMaxSize)\" is not a size: write it like 500MB or 2GB")
            }
            configuration.recordMaxBytes = bytes
        }
        try applyTLSOptions(to: &configuration)
    }
}

extension ProxyOptions {
    /// --forward, --intercept, --https-port, --tls-cert, --tls-key, --resolve, --upstream-ca-file over the file's settings.
    func applyTLSOptions(to configuration: inout ProxyConfiguration) throws {
        if forward { configuration.forward.enabled = true }
        if !intercept.isEmpty {
            for host in intercept where !(host == "*" || HostName.isValid(host.hasPrefix("*.") ? String(host.dropFirst(2)) : host)) {
                throw CLIError("--intercept \"\(host)\" is not a host name, *.domain or *")
            }
            configuration.forward.intercept += intercept
        }
        if let upstreamCAFile { configuration.upstream.extraCAFile = upstreamCAFile }
        for entry in resolve {
            // HOST:PORT:ADDRESS, the address possibly an IPv6 literal in brackets.
            let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 else { throw CLIError("--resolve \"\(entry)\" must be HOST:PORT:ADDRESS, for example cdn.example.com:443:203.0.113.7") }
            let address = parts[2].hasPrefix("[") && parts[2].hasSuffix("]") ? String(parts[2].dropFirst().dropLast()) : parts[2]
            configuration.upstream.resolve[parts[0] + ":" + parts[1]] = address
        }
        if let problem = UpstreamConfiguration.validateResolve(configuration.upstream.resolve).first { throw CLIError("--resolve: \(problem)") }
        if (tlsCert == nil) != (tlsKey == nil) { throw CLIError("--tls-cert and --tls-key go together (a PEM certificate chain and its private key)") }
        if let httpsPort {
            guard (0...65535).contains(httpsPort) else { throw CLIError("--https-port \(httpsPort) is not a port number (0–65535)") }
            configuration.https = ProxyConfiguration.HTTPSSettings(port: httpsPort, certificateFile: tlsCert, keyFile: tlsKey)
        } else if let tlsCert, let tlsKey {
            guard var https = configuration.https else { throw CLIError("--tls-cert and --tls-key need --https-port (or \"https\" in the config file)") }
            https.certificateFile = tlsCert
            https.keyFile = tlsKey
            configuration.https = https
        }
    }
}

func makeLogger(_ level: String) -> Logger {
    var logger = Logger(label: "hlschaos")
    logger.logLevel = Logger.Level(rawValue: level) ?? .info
    return logger
}
