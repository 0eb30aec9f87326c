import Foundation
import TestSupport

/// nginx as a child of the test: in the foreground, one process (`master_process off`), listening
/// on a loopback port, with its pid file, logs and temporary folders in a folder of its own.
/// The caller gives the content of the `http` block; `stop()` kills it and removes the folder.
final class NginxProcess: @unchecked Sendable {
    /// What to do when nginx is missing (`scripts/install-deps.sh test` installs it).
    static let missing = "nginx is not installed: run scripts/install-deps.sh test (it installs nginx-light)"

    /// The nginx binary: on PATH, or in the sbin folders a non-root PATH often lacks.
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin"]
        return folders.map { $0 + "/nginx" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    let port: Int
    let folder: TemporaryFolder
    private let process: Process
    private let output: OutputCollector

    private init(port: Int, folder: TemporaryFolder, process: Process, output: OutputCollector) {
        self.port = port
        self.folder = folder
        self.process = process
        self.output = output
    }

    /// What nginx wrote (its error log goes to stderr).
    var log: String { output.text }

    struct StartFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts nginx with `http(port)` as its http block on a free loopback port. nginx cannot say
    /// which port it got for port 0, so a free one is picked first; should another process take it
    /// in between, nginx exits with "Address already in use" and the next attempt takes another.
    static func start(http: (_ port: Int) throws -> String) async throws -> NginxProcess {
        guard let executable else { throw StartFailed(description: missing) }
        var logs: [String] = []
        for _ in 0..<3 {
            let port = try RefusingPort().port
            let nginx = try launch(executable, port: port, http: try http(port))
            if await nginx.waitUntilListening() { return nginx }
            nginx.stop()
            await nginx.output.waitForEnd(timeout: .seconds(2))
            logs.append(nginx.log)
            guard nginx.log.contains("Address already in use") else { break }
        }
        throw StartFailed(description: "nginx did not start:\n" + logs.joined(separator: "\n"))
    }

    private static func launch(_ executable: String, port: Int, http: String) throws -> NginxProcess {
        let folder = try TemporaryFolder("nginx")
        let configuration = folder.url("nginx.conf")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-p", folder.path, "-e", "stderr", "-c", configuration.path, "-g", "daemon off;"]
        process.standardInput = FileHandle.nullDevice
        let output = OutputCollector()
        process.standardOutput = output.pipe
        process.standardError = output.pipe
        do {
            try mainConfiguration(directory: folder.path, http: http).write(to: configuration, atomically: true, encoding: .utf8)
            try process.run()
        } catch {
            folder.remove()
            throw error
        }
        return NginxProcess(port: port, folder: folder, process: process, output: output)
    }

    /// Everything around the http block that a test run needs and a deployment does not.
    private static func mainConfiguration(directory: String, http: String) -> String {
        """
        master_process off;
        pid \(directory)/nginx.pid;
        error_log stderr notice;
        events { worker_connections 1024; }
        http {
            access_log off;
            client_body_temp_path \(directory)/client_body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;

        \(http)
        }

        """
    }

    /// Whether nginx accepts connections on its port before it exits or 30 s pass.
    private func waitUntilListening() async -> Bool {
        let port = self.port
        let accepted = await eventually {
            if !process.isRunning { return true }
            return (try? await RawHTTP.run { try RawHTTPConnection(port: port, readTimeout: 1).close() }) != nil
        }
        return accepted && process.isRunning
    }

    /// Kills nginx (SIGKILL: nothing of it needs to be kept) and removes its folder. Safe to call twice.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        folder.remove()
    }
}
