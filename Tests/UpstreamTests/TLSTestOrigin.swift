import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway certificate authority made with `openssl req` in a temporary folder: its root
/// (`certificatePath`, PEM) and leaf certificates it signs for given names.
final class TestCA: @unchecked Sendable {
    private let temporaryFolder: TemporaryFolder
    let name: String
    var folder: String { temporaryFolder.path }
    var certificatePath: String { folder + "/ca.pem" }

    init(name: String) throws {
        self.name = name
        temporaryFolder = try TemporaryFolder("upstream-ca-\(name)")
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=hlschaos test CA \(name)",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
    }

    /// Also when `init` threw after making the folder: a class whose stored properties are all set is deinitialised.
    deinit { temporaryFolder.remove() }

    /// A leaf for `dnsNames`, signed by this CA: (certificate, key) paths.
    func leaf(_ dnsNames: [String]) throws -> (certificate: String, key: String) {
        let stem = "leaf-\(UUID().uuidString)"
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "\(stem).key", "-out", "\(stem).csr", "-subj", "/CN=\(dnsNames[0])",
        ])
        try openssl([
            "req", "-x509", "-in", "\(stem).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-out", "\(stem).pem", "-days", "2",
            "-addext", "subjectAltName=" + dnsNames.map { "DNS:\($0)" }.joined(separator: ","),
            "-addext", "basicConstraints=CA:FALSE", "-addext", "extendedKeyUsage=serverAuth",
        ])
        return (folder + "/\(stem).pem", folder + "/\(stem).key")
    }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readAllRetryingInterrupts()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TLSOriginFailure(message: "openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self))")
        }
    }
}

struct TLSOriginFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// An HTTPS origin on loopback: `openssl s_server -WWW` serving the files it was given from a
/// temporary folder (HTTP/1.0, one connection at a time), with a leaf of `ca` for `names`.
/// Until the CA module gives the tests a TLS origin of their own.
final class TLSTestOrigin: @unchecked Sendable {
    let port: Int
    private let process: Process
    private let folder: TemporaryFolder

    static func start(ca: TestCA, names: [String], files: [String: [UInt8]]) async throws -> TLSTestOrigin {
        let (certificate, key) = try ca.leaf(names)
        let folder = try TemporaryFolder("upstream-tls")
        do {
            for (name, bytes) in files { try folder.file(name, bytes) }
        } catch {
            folder.remove()
            throw error
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", certificate, "-key", key, "-WWW"]
        process.currentDirectoryURL = folder.url
        let output = OutputCollector()
        process.standardOutput = output.pipe
        process.standardError = output.pipe
        do { try process.run() } catch {
            folder.remove()
            throw error
        }
        var port: Int?
        _ = await eventually {
            port = Self.acceptedPort(in: output.text)
            return port != nil || !process.isRunning
        }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            folder.remove()
            throw TLSOriginFailure(message: "openssl s_server did not start: \(output.text)")
        }
        return TLSTestOrigin(port: port, process: process, folder: folder)
    }

    private init(port: Int, process: Process, folder: TemporaryFolder) {
        self.port = port
        self.process = process
        self.folder = folder
    }

    /// "ACCEPT 127.0.0.1:40123" → 40123.
    private static func acceptedPort(in text: String) -> Int? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
              let colon = line.lastIndex(of: ":")
        else { return nil }
        return Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// SIGKILL: the child inherits the test process's signal mask, in which SIGTERM is blocked.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        folder.remove()
    }

    deinit { stop() }
}
