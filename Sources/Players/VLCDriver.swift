import Foundation
import PlayerReports

#if canImport(Glibc)
import Glibc
#endif

/// VLC 3 without an interface, its `adaptive` module doing HLS:
///
///     cvlc --intf dummy --vout dummy --aout dummy --play-and-exit --no-video-title-show
///          --no-media-library --no-metadata-network-access [--rate=4 for VOD] -vv URL
///
/// VLC plays at the clock's pace (dummy outputs too), so a VOD runs at `vodRate` × real time; a
/// live stream at 1×. `cvlc` refuses to run as root: as root the driver runs it as `user`
/// (`HLSCHAOS_VLC_USER`, else `nobody`) through `setpriv --reuid --regid --clear-groups`, with a
/// scratch HOME owned by that user (removed afterwards). VLC exits 0 even when nothing played, and
/// after a failed start sometimes does not exit at all: the driver stops it 3 s after it prints
/// `end of playlist, exiting`, and judges the run by what the log shows.
public struct VLCDriver: PlayerDriver {
    public let name = "vlc"
    public var summary: String { "VLC 3 (adaptive module), dummy outputs, VOD at \(OutcomeRules.seconds(vodRate))× speed" }
    public var lowLatency: LowLatencyPlayback {
        .wholeSegments(reason: "VLC 3.0's adaptive module ignores EXT-X-PART: whole segments and plain reloads; on fMP4 live it stops reloading within seconds")
    }
    public var contentSteering: ContentSteeringPlayback {
        .ignores(reason: "VLC 3.0's adaptive module ignores EXT-X-CONTENT-STEERING: it never loads the steering manifest")
    }
    public var executable: String
    /// The account to run VLC as when this process is root; nil: `HLSCHAOS_VLC_USER` or `nobody`.
    public var user: String?
    /// `--rate` for VOD (live always plays at 1×).
    public var vodRate: Double
    public var stallThreshold: Double

    public init(executable: String = "cvlc", user: String? = nil, vodRate: Double = 4, stallThreshold: Double = Stalls.defaultThreshold) {
        self.executable = executable; self.user = user; self.vodRate = vodRate; self.stallThreshold = stallThreshold
    }

    static let install = "apt-get install -y vlc-bin vlc-plugin-base"
    static let userVariable = "HLSCHAOS_VLC_USER"

    /// Who VLC runs as: nil when this process is not root (VLC runs as we do).
    func runAs() throws -> RunAsUser? {
        guard geteuid() == 0 else { return nil }
        let wanted = user ?? ProcessInfo.processInfo.environment[Self.userVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "nobody"
        guard let account = RunAsUser.lookup(wanted) else {
            throw ProcessRunner.LaunchError(
                description: "VLC refuses to run as root and the user \(wanted) does not exist; set \(Self.userVariable) to an existing non-root user")
        }
        guard account.uid != 0 else {
            throw ProcessRunner.LaunchError(description: "VLC refuses to run as root: \(Self.userVariable)=\(wanted) is root; name a non-root user")
        }
        guard ProcessRunner.which("setpriv") != nil else {
            throw ProcessRunner.LaunchError(description: "running VLC as \(wanted) needs setpriv (apt-get install -y util-linux)")
        }
        return account
    }

    public func availability() async -> PlayerAvailability {
        guard let path = ProcessRunner.which(executable) else {
            return .missing(reason: "\(executable) is not installed", install: Self.install)
        }
        let account: RunAsUser?
        do { account = try runAs() } catch { return .missing(reason: "\(error)", install: Self.install) }
        let command = account.map { $0.wrap(path, ["--version"]) } ?? (executable: path, arguments: ["--version"])
        var environment: [String: String] = [:]
        var home: URL?
        if let account { home = try? account.makeHome(); environment["HOME"] = home?.path }
        defer { if let home { try? FileManager.default.removeItem(at: home) } }
        guard let version = await ToolProbe.firstLine(command.executable, command.arguments, environment: environment) else {
            return .missing(reason: "\(executable) --version failed", install: Self.install)
        }
        return .ready(version: version)
    }

    func arguments(url: String, live: Bool) -> [String] {
        var arguments = [
            "--intf", "dummy", "--vout", "dummy", "--aout", "dummy", "--play-and-exit", "--no-video-title-show",
            "--no-media-library", "--no-metadata-network-access",
        ]
        if !live, vodRate != 1 { arguments.append("--rate=\(vodRate)") }
        return arguments + ["-vv", url]
    }

    public func play(_ request: PlayRequest) async -> PlayerReport {
        await playInstalled {
            var home: URL?
            defer { if let home { try? FileManager.default.removeItem(at: home) } }
            guard let path = ProcessRunner.which(executable) else { throw ProcessRunner.LaunchError(description: "\(executable): not found") }
            let account = try runAs()
            var environment: [String: String] = [:]
            if let account {
                home = try account.makeHome()
                environment["HOME"] = home?.path
            }
            let arguments = arguments(url: request.url, live: request.live)
            let command = account.map { $0.wrap(path, arguments) } ?? (executable: path, arguments: arguments)
            return try await PlayerProcess.run(
                .init(command.executable, command.arguments, environment: environment, timeout: request.timeout),
                in: request.workDirectory, name: name, grace: 3
            ) { $0.text.contains(VLCLog.finishedMarker) }
        } read: { run, version in
            let parsed = VLCLog.parse(run.lines)
            var facts = parsed.facts
            // VLC prints the same farewell whether it played or gave up; what played decides.
            facts.ended = parsed.finished
            // VLC always plays at the clock's pace (a VOD at vodRate×): its rebuffers are real.
            let (stalls, outcome) = run.judge(facts, request: request, stallThreshold: stallThreshold, rebuffering: true)
            return run.report(player: name, version: version, facts: facts, stalls: stalls, outcome: outcome, log: run.lines)
        }
    }
}
