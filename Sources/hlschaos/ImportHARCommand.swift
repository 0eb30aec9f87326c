import ArgumentParser
import Foundation
import BundleFormat
import HAR

/// `hlschaos import-har FILE.har --out DIR [--redact]`: a scenario that reproduces what the HAR
/// shows went wrong, and a bundle of the content it carries.
struct ImportHARCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-har",
        abstract: "Turn a HAR into a scenario that reproduces what went wrong, and a bundle of its content.",
        discussion: """
            Reads a HAR (Chrome DevTools, Safari Web Inspector, Charles, hlschaos's own export) and \
            writes DIR/scenario.json — one rule per failure the HAR shows (4xx/5xx statuses, resets, \
            hangs, truncated bodies, a first byte or a body much slower than its peers), targeted by \
            resource kind, variant or rendition and media sequence number (from the playlists the \
            HAR carries), or by session time when the HAR says no more; a retry that succeeded \
            replays as fail-then-succeed — and DIR/bundle/, a bundle of every entry (docs/recordings.md). \
            Prints each rule, and what it could not reproduce and why. DIR must not exist or be \
            empty. Exit code 1 when the HAR cannot be read (the message names the JSON path).
            """)

    @Argument(help: "The HAR file.")
    var file: String

    @Option(help: "Directory to write scenario.json and bundle/ into (new or empty).")
    var out: String

    @Flag(help: "Drop cookies, Authorization and query tokens from the bundle before anything is written.")
    var redact = false

    func run() throws {
        do {
            let imported = try HARImport.analyze(path: file)
            let output = try imported.write(to: out, redact: redact)
            print(imported.report(output))
        } catch {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}
