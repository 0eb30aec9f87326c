import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Running a player as another user, for players that refuse root (VLC). `setpriv` (util-linux)
/// changes the user and group and then becomes the player: same pid, same process group, so the
/// runner's teardown still reaches it. The environment is kept; a scratch HOME owned by the user
/// gives the player somewhere to write its configuration and cache.
struct RunAsUser: Sendable {
    var name: String
    var uid: uid_t
    var gid: gid_t

    /// The account `name` as the system knows it.
    static func lookup(_ name: String) -> RunAsUser? {
        guard let entry = getpwnam(name) else { return nil }
        return RunAsUser(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    /// `setpriv --reuid=U --regid=G --clear-groups <executable> <arguments…>`.
    func wrap(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        ("setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", executable] + arguments)
    }

    /// A fresh directory under /tmp, owned by the user (0700); the driver removes it when the player
    /// ends. Under /tmp and not `TMPDIR`: the user must reach it, and a private `TMPDIR` (0700, as
    /// `mktemp -d` makes one) is closed to other users.
    func makeHome() throws -> URL {
        let home = URL(fileURLWithPath: "/tmp").appendingPathComponent("hlschaos-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        guard chown(home.path, uid, gid) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: home)
            throw ProcessRunner.LaunchError(description: "cannot give \(home.path) to \(name): \(reason)")
        }
        return home
    }
}
