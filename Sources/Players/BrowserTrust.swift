import Foundation

/// A HOME for Chromium whose NSS database (`~/.pki/nssdb`, where Chromium on Linux keeps the
/// roots a user added) trusts one CA root, as a user who installed the proxy's root would have it.
/// Made with NSS's own `certutil`, so that Chromium verifies the intercepted hosts' certificates
/// for real (no flag that ignores certificate errors).
enum BrowserTrust {
    static let install = "apt-get install -y libnss3-tools"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `<directory>/chromium-home` with `.pki/nssdb` trusting `rootFile` for TLS servers.
    static func home(trusting rootFile: String, in directory: URL) async throws(Failure) -> URL {
        guard let certutil = ProcessRunner.which("certutil") else {
            throw Failure(description: "certutil is not installed (it puts the proxy's root into Chromium's NSS database); install it with: \(install)")
        }
        let home = directory.appendingPathComponent("chromium-home")
        let database = home.appendingPathComponent(".pki/nssdb")
        do {
            try? FileManager.default.removeItem(at: home)
            try FileManager.default.createDirectory(at: database, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(description: "cannot make \(database.path): \(error.localizedDescription)")
        }
        let steps: [[String]] = [
            ["-d", "sql:\(database.path)", "-N", "--empty-password"],
            ["-d", "sql:\(database.path)", "-A", "-t", "C,,", "-n", "hlschaos", "-i", rootFile],
        ]
        for arguments in steps {
            let result = await ToolProbe.run(certutil, arguments, timeout: 30)
            guard let result, result.status == 0 else {
                let said = (result.map { $0.stderr + $0.stdout } ?? "it did not start").trimmingCharacters(in: .whitespacesAndNewlines)
                throw Failure(description: "certutil \(arguments.joined(separator: " ")) failed: \(said)")
            }
        }
        return home
    }
}
