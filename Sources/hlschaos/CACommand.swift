import ArgumentParser
import CertificateAuthority
import Foundation

/// `hlschaos ca`: where the local certificate authority is, its fingerprint and the device setup
/// URL; `--pem` / `--der FILE` export the root; `hlschaos ca rotate` replaces it.
struct CACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Show hlschaos's local certificate authority (made on first use), or export its root.",
        discussion: """
            The CA signs the certificates hlschaos shows devices for HTTPS. Devices trust it once, \
            from the setup page of a running proxy (http://<this machine>:<port>/hlschaos/setup). \
            Its private key stays in the CA folder (mode 0600) and is never served. \
            Example: curl --cacert <(hlschaos ca --pem) https://...
            """,
        subcommands: [CARotateCommand.self]
    )

    @OptionGroup var options: CAOptions

    @Flag(help: "Print only the root certificate, in PEM, on stdout.")
    var pem = false

    @Option(help: ArgumentHelp("Write the root certificate in DER (.cer) to FILE.", valueName: "FILE"))
    var der: String?

    func run() throws {
        let ca = try options.load()
        // With --pem, stdout carries the certificate alone.
        let say: (String) -> Void = { [pem] text in
            (pem ? FileHandle.standardError : FileHandle.standardOutput).write(Data((text + "\n").utf8))
        }
        if ca.isNew { say("Made a new local CA in \(ca.directory).") }
        if pem { FileHandle.standardOutput.write(Data(ca.rootPEM.utf8)) }
        if let der {
            do {
                try Data(ca.rootDER).write(to: URL(fileURLWithPath: der))
            } catch {
                throw CLIError("--der \(der): cannot write the file (\(error.localizedDescription))")
            }
            say("Wrote the root certificate in DER to \(der).")
        }
        guard !pem && der == nil else { return }
        print(options.summary(of: ca).joined(separator: "\n"))
    }
}

/// `hlschaos ca rotate`: a new root; the old files are kept as `*.old`.
struct CARotateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Replace the local CA's root with a new one (devices must then install the new root).",
        discussion: """
            The previous root.pem and root-key.pem are renamed to root.pem.old and root-key.pem.old \
            (replacing older ones). Restart running proxies so that they use the new root.
            """
    )

    @OptionGroup var options: CAOptions

    func run() throws {
        let directory = options.caDirectory
        let hadOne = FileManager.default.fileExists(atPath: directory + "/root.pem")
        let ca: LocalCA
        do {
            ca = try LocalCA.rotate(directory: directory)
        } catch {
            throw CLIError(error.description)
        }
        var lines = ["Made a new local CA in \(ca.directory)."]
        if hadOne {
            lines.append("The previous root is kept as \(ca.certificatePath).old, its key as \(ca.privateKeyPath).old.")
            lines.append("Devices that trusted the previous root no longer accept hlschaos's certificates: install the new")
            lines.append("root on each (and remove the old one), and restart running proxies.")
        }
        print((lines + [""] + options.summary(of: ca)).joined(separator: "\n"))
    }
}

/// Where the CA lives (`--data-dir`) and the port the setup URL names.
struct CAOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: ArgumentHelp(
        "The data folder; the CA is in its ca/ folder (default \(LocalCA.defaultDataDirectory)).", valueName: "DIR"))
    var dataDirectory: String?

    @Option(help: "The proxy's port, for the setup URL (as serve).")
    var port: Int = 8080

    var caDirectory: String {
        dataDirectory.map { LocalCA.directory(inDataDirectory: $0) } ?? LocalCA.defaultDirectory
    }

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port \(port) is not a port number (1–65535)") }
    }

    func load() throws -> LocalCA {
        do {
            return try LocalCA.loadOrCreate(directory: caDirectory)
        } catch {
            throw CLIError(error.description)
        }
    }

    func summary(of ca: LocalCA) -> [String] {
        let host = reachableAddresses().first { !$0.hasPrefix("[") } ?? "127.0.0.1"
        return [
            "Local certificate authority",
            "  folder:       \(ca.directory)",
            "  certificate:  \(ca.certificatePath)",
            "  private key:  \(ca.privateKeyPath)  (stays here, never served)",
            "  name:         \(ca.commonName)",
            "  SHA-256:      \(ca.fingerprintSHA256)",
            "  expires:      \(ca.notAfter.formatted(.iso8601))",
            "Devices install the root from  http://\(host):\(port)/hlschaos/setup",
            "while hlschaos serve or demo runs on port \(port); the fingerprint a device shows must be the one above.",
            "Export it with  hlschaos ca --pem > root.pem  or  hlschaos ca --der root.cer",
        ]
    }
}
