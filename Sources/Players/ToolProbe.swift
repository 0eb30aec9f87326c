import Foundation

/// Short helper commands the drivers run to learn about a player (`ffmpeg -version`,
/// `gst-inspect-1.0 hlsdemux2`, …), with a small time limit.
enum ToolProbe {
    /// stdout and stderr of a quick command, or nil when it cannot start.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 15) async
        -> ProcessRunner.Result?
    {
        try? await ProcessRunner.run(.init(executable, arguments, environment: environment, timeout: timeout, outputLimit: 1 << 20))
    }

    /// The first non-empty line the command prints (stdout first), when it exits with 0.
    static func firstLine(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async -> String? {
        guard let result = await run(executable, arguments, environment: environment), result.status == 0 else { return nil }
        return firstLine(of: result.stdout) ?? firstLine(of: result.stderr)
    }

    static func firstLine(of text: String) -> String? {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
    }
}

/// Values worth computing once per process (the options a player's build supports).
final class ProbeCache<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Value] = [:]

    func value(_ key: String, _ compute: () async -> Value) async -> Value {
        if let known = lock.withLock({ values[key] }) { return known }
        let value = await compute()
        lock.withLock { values[key] = value }
        return value
    }
}
