import Foundation
import TestSupport

/// The `hlschaos` binary built next to the test bundle (`swift build --build-tests` builds both).
enum CLI {
    static let binary: String = {
        let bundle = Bundle.main.bundleURL
        var directory = bundle.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("hlschaos").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/hlschaos").path
    }()

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `hlschaos ARGS` to completion.
    static func run(_ arguments: [String], timeout: TimeInterval = 60) async throws -> Result {
        let process = Running(arguments)
        try process.start()
        return await process.wait(timeout: timeout)
    }

    /// A running `hlschaos` whose output is collected as it arrives.
    final class Running: @unchecked Sendable {
        let process = Process()
        private let out = OutputCollector()
        private let err = OutputCollector()

        init(_ arguments: [String]) {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = arguments
            process.currentDirectoryURL = CLI.repository
            process.standardInput = FileHandle.nullDevice
        }

        func start() throws {
            process.standardOutput = out.pipe
            process.standardError = err.pipe
            try process.run()
        }

        var stdout: String { out.text }
        var stderr: String { err.text }

        /// Waits until `text` shows up in stdout or stderr.
        func waitForOutput(containing text: String, timeout: TimeInterval = 30) async -> Bool {
            func said() -> Bool { stdout.contains(text) || stderr.contains(text) }
            _ = await eventually(timeout: .seconds(timeout)) { said() || !process.isRunning }
            return said()
        }

        func signal(_ number: Int32) { kill(process.processIdentifier, number) }

        /// The port number printed right after `text` (started with `--port 0`, the process says
        /// which port it got: no other test can take it in between, as with a port probed first),
        /// once its line is whole: output arrives in pieces, and another line may say "listening"
        /// first.
        func port(after text: String, timeout: TimeInterval = 30) async -> Int? {
            func said() -> Int? { Self.port(in: stdout, after: text) ?? Self.port(in: stderr, after: text) }
            _ = await eventually(timeout: .seconds(timeout)) { said() != nil || !process.isRunning }
            return said()
        }

        private static func port(in output: String, after text: String) -> Int? {
            guard let range = output.range(of: text) else { return nil }
            let rest = output[range.upperBound...]
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard digits.endIndex < rest.endIndex else { return nil }  // the number may go on
            return Int(digits)
        }

        func wait(timeout: TimeInterval) async -> Result {
            _ = await eventually(timeout: .seconds(timeout)) { !process.isRunning }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            await out.waitForEnd()
            await err.waitForEnd()
            return Result(status: process.terminationStatus, stdout: stdout, stderr: stderr)
        }
    }
}
