import Foundation

/// Runs a player with `ProcessRunner`, its stdout and stderr in files of the run's work directory
/// (kept as evidence), read while it runs so that every line has the time it arrived. A driver may
/// stop the player once a line shows it is done but will not exit (VLC after a failed start).
struct PlayerProcess {
    struct Run: Sendable {
        var result: ProcessRunner.Result
        var stdout: [LogLine]
        var stderr: [LogLine]
        /// The driver's `stopWhen` matched and the player was stopped (after the grace period).
        var stoppedByDriver: Bool
        var stdoutPath: String
        var stderrPath: String

        var timedOut: Bool { result.timedOut }
        /// Both streams in arrival order.
        var lines: [LogLine] { LogLine.merge(stdout, stderr) }
    }

    /// `name` prefixes the log files (`<name>.stdout.log`, `<name>.stderr.log`). `stopWhen` sees
    /// every line as it is read; once it returns true the player gets `grace` seconds to exit by
    /// itself, then it is stopped like at a timeout.
    static func run(
        _ spec: ProcessRunner.Spec, in directory: URL, name: String, grace: Double = 2,
        stopWhen: @escaping @Sendable (LogLine) -> Bool = { _ in false }
    ) async throws -> Run {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var spec = spec
        let outPath = directory.appendingPathComponent("\(name).stdout.log").path
        let errPath = directory.appendingPathComponent("\(name).stderr.log").path
        spec.stdoutPath = outPath
        spec.stderrPath = errPath
        // The files exist before the child starts, so the tails never race its first write.
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)

        let started = Date()
        let outTail = LogTail(path: outPath, start: started, limit: spec.outputLimit)
        let errTail = LogTail(path: errPath, start: started, limit: spec.outputLimit)
        let finished = Flag()
        let runner = Task { [spec] in
            defer { finished.set() }
            return try await ProcessRunner.run(spec)
        }
        var stopAt: Date?
        var stopped = false
        await withTaskCancellationHandler {
            while !finished.isSet {
                let fresh = outTail.poll() + errTail.poll()
                if stopAt == nil, fresh.contains(where: stopWhen) {
                    stopAt = Date().addingTimeInterval(grace)
                }
                if let stopAt, !stopped, Date() >= stopAt {
                    stopped = true
                    runner.cancel()
                }
                await pause(milliseconds: 200)
            }
        } onCancel: {
            runner.cancel()
        }
        let result = try await runner.value
        outTail.finish()
        errTail.finish()
        return Run(
            result: result, stdout: outTail.allLines, stderr: errTail.allLines, stoppedByDriver: stopped,
            stdoutPath: outPath, stderrPath: errPath)
    }
}

/// Sleeps even in a cancelled task (the loop must keep reading until the player is gone).
private func pause(milliseconds: Int) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { done.resume() }
    }
}

/// A one-way flag shared between tasks.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
