@preconcurrency import Dispatch
import AppConfiguration
import CertificateAuthority
import Control
import Foundation
import Logging
import NIOCore
import NIOPosix
import Proxy
import RuleLoading
import Synchronization
import Upstream

/// Runs the data plane until SIGINT or SIGTERM, then lets in-flight responses finish and returns.
struct ProxyRunner {
    /// The config file and flags: each part goes to its owner (data plane, rules, CA, control API).
    var settings: AppSettings
    var configuration: ProxyConfiguration { settings.proxy }
    var logger: Logger
    /// Every request on the terminal, not only faults and session starts.
    var verbose = false
    /// The control API to start next to the proxy (`--control`, `--control-token`); none by default here.
    var control = ControlOptions.Setting(configuration: nil, explicit: false)

    /// `started` runs once the ports are bound (the demo prints its URLs there).
    func run(started: (ProxyServer, ControlServer?) -> Void = { _, _ in }) async throws {
        let rules: RuleBook
        do {
            rules = try RuleBook(settings: settings.rules, logger: logger)
        } catch {
            throw CLIError("rules not loaded:\n\(error)")
        }
        if !rules.scenarios.isEmpty {
            logger.info("rules for every session: \(rules.scenarios.map(\.name).joined(separator: ", "))")
        }
        MallocTuning.keepFreedMemoryForReuse()
        let certificates = try loadCertificateAuthority()
        // Forward fetches must not loop into this process: the proxy adds each listener's port to
        // the client's address guard once bound.
        let upstream: UpstreamClient
        do { upstream = try UpstreamClient(configuration: configuration.upstream) } catch { throw CLIError("\(error)") }
        let server: ProxyServer
        do {
            server = try await ProxyServer.bind(
                configuration: configuration, upstream: upstream, rules: rules, certificates: certificates, logger: logger)
        } catch {
            await upstream.shutdown()
            throw CLIError(String(describing: error))
        }
        let control = try await startControl(next: server, upstream: upstream)
        let drain = configuration.shutdownTimeout
        let stopping = Stopping()
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { signal in
            let name = SignalWatcher.name(signal)
            guard stopping.begin() else {
                // The operator means it: no more waiting for anything.
                FileHandle.standardError.write(Data("hlschaos: second \(name): exiting now\n".utf8))
                exit(130)
            }
            logger.info("received \(name): finishing in-flight responses for at most \(String(format: "%gs", drain)) (again to exit now)")
            server.shutdown()
            Task {
                try? await Task.sleep(for: .seconds(drain))
                let open = server.connectionCount
                guard open > 0 else { return }
                logger.notice("shutdown: \(open) connection(s) still busy after \(String(format: "%gs", drain)) (config \"shutdownTimeout\"), closing them")
                server.closeAllConnections()
            }
        }
        let reload = SignalWatcher(signals: [SIGHUP]) { _ in
            logger.info("received SIGHUP: reloading rules")
            rules.reload()
        }
        let watcher = Task { await rules.watch() }
        let printer = Task { [verbose] in
            var printer = RecordPrinter(verbose: verbose)
            for await record in server.control.subscribe(bufferingNewest: 10_000, where: RecordPrinter.wants(verbose: verbose)) {
                let lines = printer.lines(for: record)
                if !lines.isEmpty { FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8)) }
            }
        }
        started(server, control)
        await server.run()
        await control?.shutdown()
        server.control.flushRecords()
        watcher.cancel()
        printer.cancel()
        signals.cancel()
        reload.cancel()
        await upstream.shutdown()
        logger.info("stopped")
    }
}

extension ProxyRunner {
    /// The local CA when something terminates TLS (forward mode, the HTTPS listener without a
    /// certificate of the user's): made on first use under the data folder.
    private func loadCertificateAuthority() throws -> LocalCA? {
        guard configuration.needsCertificates else { return nil }
        let directory = LocalCA.directory(inDataDirectory: settings.dataDirectory ?? LocalCA.defaultDataDirectory)
        let ca: LocalCA
        do { ca = try LocalCA.loadOrCreate(directory: directory) } catch {
            throw CLIError("the local certificate authority could not be loaded: \(error)")
        }
        if ca.isNew {
            logger.notice("made a new local certificate authority in \(directory) (SHA-256 \(ca.fingerprintSHA256)); devices install its root from http://<this machine>:\(configuration.port)\(ProxyControl.setupPath)")
        } else {
            logger.info("local certificate authority \(directory) (SHA-256 \(ca.fingerprintSHA256))")
        }
        return ca
    }

    /// The control API next to the proxy; it lives as long as the proxy. An address asked for with
    /// `--control` or the config file that cannot be used stops start-up; when the default one is
    /// taken (another hlschaos runs), the proxy runs without a control API and says so.
    private func startControl(next server: ProxyServer, upstream: UpstreamClient) async throws -> ControlServer? {
        guard var settings = control.configuration else { return nil }
        settings.deviceHosts = deviceHosts(listenHost: configuration.host)
        var controlLogger = Logger(label: "hlschaos.control")
        controlLogger.logLevel = logger.logLevel
        do {
            let control = try await ControlServer.start(proxy: server, configuration: settings, logger: controlLogger)
            server.control.addOwnListener(port: control.port)
            return control
        } catch {
            guard control.explicit else {
                logger.warning("running without the control API: \(error)")
                return nil
            }
            server.shutdown()
            await server.run()
            await upstream.shutdown()
            throw CLIError(String(describing: error))
        }
    }
}

/// How devices reach a proxy listening on `host`: localhost, plus every network address of this
/// machine when it listens on all interfaces (what a session's device URLs are built from).
func deviceHosts(listenHost host: String) -> [String] {
    if host.isEmpty || host == "0.0.0.0" || host == "::" || host == "[::]" { return ["localhost"] + reachableAddresses() }
    if ControlConfiguration.isLoopback(host) { return ["localhost"] }
    return [host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host]
}

/// Whether a shutdown has begun: the first signal starts it, a second one exits at once.
final class Stopping: Sendable {
    private let started = Mutex(false)
    /// True for the first call only.
    func begin() -> Bool {
        started.withLock { started in
            defer { started = true }
            return !started
        }
    }
}

/// Delivers POSIX signals on a dispatch queue instead of interrupting the process.
/// (Dispatch sources are thread-safe; they are only created in init and cancelled once.)
final class SignalWatcher: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }

    /// "SIGINT" or "SIGTERM", for the messages that say which one came.
    static func name(_ signal: Int32) -> String { signal == SIGINT ? "SIGINT" : "SIGTERM" }
}

/// An error whose message is shown to the user as is, with exit code 1.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Addresses a device on the network can use to reach this machine (non-loopback IPv4 first).
func reachableAddresses() -> [String] { MachineNames.reachableAddresses() }
