import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a player (or any helper) as a child process in a process group of its own, with its output
/// in files, a watchdog, and a teardown that leaves nothing behind: when the child exits, times out
/// or the calling task is cancelled, the whole group gets SIGTERM and, two seconds later, SIGKILL.
/// A browser's driver, a GStreamer pipeline's threads or a shell's children all go with it.
public enum ProcessRunner {
    public struct Spec: Sendable {
        /// A path, or a name looked up in PATH.
        public var executable: String
        public var arguments: [String]
        /// Added to (or replacing in) the current environment.
        public var environment: [String: String]
        public var workingDirectory: String?
        /// Seconds before the watchdog stops the group.
        public var timeout: Double
        /// At most this many bytes of each stream are kept (the end is dropped, with a note).
        public var outputLimit: Int
        /// Where stdout and stderr go, when the caller wants to read them while the child runs or keep
        /// them as evidence (created or truncated; left in place). Without them, a scratch directory
        /// of the run's own holds them and is removed.
        public var stdoutPath: String?
        public var stderrPath: String?

        public init(
            _ executable: String, _ arguments: [String] = [], environment: [String: String] = [:],
            workingDirectory: String? = nil, timeout: Double, outputLimit: Int = 4 << 20,
            stdoutPath: String? = nil, stderrPath: String? = nil
        ) {
            self.executable = executable; self.arguments = arguments; self.environment = environment
            self.workingDirectory = workingDirectory; self.timeout = timeout; self.outputLimit = outputLimit
            self.stdoutPath = stdoutPath; self.stderrPath = stderrPath
        }
    }

    public struct Result: Sendable {
        /// The exit code, or 128 + the signal that ended it.
        public var status: Int32
        /// The watchdog stopped it.
        public var timedOut: Bool
        public var stdout: String
        public var stderr: String
        public var seconds: Double
    }

    public struct LaunchError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The full path of `name` if it is an executable file in PATH (or `name` itself is a path).
    public static func which(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    public static func run(_ spec: Spec) async throws -> Result {
        guard let executable = which(spec.executable) else {
            throw LaunchError(description: "\(spec.executable): not found in PATH")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hlschaos-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outPath = spec.stdoutPath ?? scratch.appendingPathComponent("stdout").path
        let errPath = spec.stderrPath ?? scratch.appendingPathComponent("stderr").path

        let started = Date()
        let pid = try spawn(executable, spec, stdout: outPath, stderr: errPath)
        let exit = ExitWatch(pid: pid)
        let timedOut = await withTaskCancellationHandler {
            await exit.wait(timeout: spec.timeout)
        } onCancel: {
            killpg(pid, SIGTERM)
        }
        // Whatever is left of the group (the child's children) goes too.
        await teardown(group: pid, exit: exit)
        return Result(
            status: exit.status ?? 128 + SIGKILL, timedOut: timedOut,
            stdout: read(outPath, limit: spec.outputLimit), stderr: read(errPath, limit: spec.outputLimit),
            seconds: Date().timeIntervalSince(started))
    }

    private static func spawn(_ executable: String, _ spec: Spec, stdout: String, stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try closeInherited(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A new process group (its id is the child's pid), default signal handling, nothing blocked.
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var environment = ProcessInfo.processInfo.environment
        for (name, value) in spec.environment { environment[name] = value }
        var argv = [executable] + spec.arguments
        var executable = executable
        if let directory = spec.workingDirectory {
            // glibc's posix_spawn_file_actions_addchdir_np is not visible from Swift: a shell changes
            // directory, then becomes the program.
            argv = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory] + argv
            executable = "/bin/sh"
        }
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let code = withCStrings(argv) { argvPointers in
            withCStrings(envp) { envPointers in
                posix_spawn(&pid, executable, &actions, &attributes, argvPointers, envPointers)
            }
        }
        guard code == 0 else {
            throw LaunchError(description: "\(executable): could not start (\(String(cString: strerror(code))))")
        }
        return pid
    }

    /// The child gets stdin, stdout and stderr and nothing else. Without this it inherits every
    /// descriptor of this process that is not close-on-exec, which SwiftNIO's sockets are not: the
    /// proxy's listening sockets and its client connections. A player holding a copy of a client
    /// connection keeps it open after the proxy closes it, so the other end sees neither the FIN of
    /// a cut body or a `Connection: close` nor the RST of a reset until that player exits; and a
    /// port stays bound after the proxy stops.
    ///
    /// glibc (2.34 and later) closes them with `posix_spawn_file_actions_addclosefrom_np`, declared
    /// only under `_GNU_SOURCE` and so not visible from Swift: it is looked up by name.
    private static func closeInherited(_ actions: inout posix_spawn_file_actions_t) throws {
        guard let closeFrom = Self.closeFrom else {
            throw LaunchError(description: "this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later): a player would inherit the proxy's sockets")
        }
        let code = closeFrom(&actions, 3)
        if code != 0 { throw LaunchError(description: "posix_spawn_file_actions_addclosefrom_np failed (\(String(cString: strerror(code))))") }
    }

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// SIGTERM to the group, SIGKILL to what is left two seconds later; reaps the child.
    /// Sleeps even in a cancelled task (teardown must finish).
    private static func teardown(group: pid_t, exit: ExitWatch) async {
        if killpg(group, SIGTERM) == 0 {
            let deadline = Date().addingTimeInterval(2)
            while Date() < deadline, killpg(group, 0) == 0 {
                exit.reapIfExited()
                await pause(milliseconds: 50)
            }
            killpg(group, SIGKILL)
        }
        exit.reapBlocking()
    }

    private static func pause(milliseconds: Int) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { done.resume() }
        }
    }

    private static func read(_ path: String, limit: Int) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
        let text = String(decoding: data.prefix(limit), as: UTF8.self)
        return data.count > limit ? text + "\n[hlschaos: output cut at \(limit) bytes]\n" : text
    }
}

/// Waits for one child to exit without blocking a thread of the cooperative pool: polls
/// `waitpid(WNOHANG)`, gently (every 20 ms at first, then every 100 ms).
private final class ExitWatch: @unchecked Sendable {
    let pid: pid_t
    private let lock = NSLock()
    private var exitStatus: Int32?

    init(pid: pid_t) { self.pid = pid }

    var status: Int32? { lock.withLock { exitStatus } }

    /// Returns true if `timeout` passed first.
    func wait(timeout: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var pause = 20
        while true {
            if poll() { return false }
            if Date() >= deadline || Task.isCancelled { return !Task.isCancelled }
            try? await Task.sleep(for: .milliseconds(pause))
            pause = min(100, pause + 10)
        }
    }

    func reapIfExited() { _ = poll() }

    /// After SIGKILL to the group: the child is gone or about to be.
    func reapBlocking() {
        lock.withLock {
            guard exitStatus == nil else { return }
            var raw: Int32 = 0
            record(waitpid(pid, &raw, 0), raw)
        }
    }

    private func poll() -> Bool {
        lock.withLock {
            if exitStatus != nil { return true }
            var raw: Int32 = 0
            record(waitpid(pid, &raw, WNOHANG), raw)
            return exitStatus != nil
        }
    }

    private func record(_ result: pid_t, _ raw: Int32) {
        if result == pid {
            // WEXITSTATUS / WTERMSIG spelled out (the macros are not imported).
            let signal = raw & 0x7f
            exitStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        } else if result < 0 && errno == ECHILD {
            exitStatus = 128 + SIGKILL  // reaped elsewhere: nothing more to learn
        }
    }
}
