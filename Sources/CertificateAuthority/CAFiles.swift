import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The CA's folder on disk: its two files, written whole or not at all, the key readable by its
/// owner only, and a lock so that two processes starting at once make one CA, not two.
struct CAFiles {
    static let certificateName = "root.pem"
    static let privateKeyName = "root-key.pem"
    /// What rotation renames the previous files to.
    static let retiredSuffix = ".old"

    let directory: String
    var certificatePath: String { directory + "/" + Self.certificateName }
    var privateKeyPath: String { directory + "/" + Self.privateKeyName }

    init(directory: String) {
        var path = directory
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.directory = path
    }

    /// Makes the folder (0700, parents as needed) if it is not there.
    func makeDirectory() throws(LocalCA.Error) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw LocalCA.Error(.directoryNotWritable, path: directory, "\(directory) is a file, not a folder: move it away, or give another data folder (--data-dir)")
            }
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        do {
            if !parent.isEmpty { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
        } catch {
            throw LocalCA.Error(.directoryNotWritable, path: directory, "the CA folder \(directory) cannot be made (\(error.localizedDescription)): fix the folders above it, or give another data folder (--data-dir)")
        }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw notWritable(directory, reason: "cannot be made") }
        _ = chmod(directory, 0o700)
    }

    /// Runs `body` holding an exclusive lock on the folder (released when it returns).
    func locked<T>(_ body: () throws(LocalCA.Error) -> T) throws(LocalCA.Error) -> T {
        let descriptor = open(directory, O_RDONLY)
        guard descriptor >= 0 else { throw notWritable(directory, reason: "cannot be opened") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw notWritable(directory, reason: "cannot be locked") }
        }
        return try body()
    }

    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The permission bits of a file, nil when it is not there.
    func permissions(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }

    func read(_ path: String) throws(LocalCA.Error) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = String(cString: strerror(access(path, R_OK) == 0 ? EIO : errno))
            throw LocalCA.Error(.unreadable, path: path, "\(path) cannot be read (\(reason)): run hlschaos as the user who owns it, or fix its permissions")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw LocalCA.Error(.corrupt, path: path, "\(path) is not a PEM text file: restore it, or make a new CA with `hlschaos ca rotate`")
        }
        return text
    }

    /// Writes `text` to a new file beside `path` with mode `permissions` from its first byte,
    /// then renames it over `path`: a reader sees the old file or the whole new one.
    func writeAtomically(_ text: String, to path: String, permissions: mode_t) throws(LocalCA.Error) {
        let temporary = "\(directory)/.\((path as NSString).lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, permissions)
        guard descriptor >= 0 else { throw notWritable(directory, reason: "cannot be written to") }
        _ = fchmod(descriptor, permissions)  // the umask may have taken bits away
        let bytes = Array(text.utf8)
        var written = 0
        var failure: Int32 = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            written += count
        }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        guard failure == 0, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(failure != 0 ? failure : errno))
            unlink(temporary)
            throw LocalCA.Error(.directoryNotWritable, path: path, "\(path) cannot be written (\(reason)): free some space or fix the folder's permissions, or give another data folder (--data-dir)")
        }
    }

    /// Renames the two files to `*.old`, replacing older ones.
    func retire() throws(LocalCA.Error) {
        for path in [certificatePath, privateKeyPath] where exists(path) {
            guard rename(path, path + Self.retiredSuffix) == 0 else {
                throw notWritable(directory, reason: "does not let \(path) be renamed")
            }
        }
    }

    private func notWritable(_ path: String, reason: String) -> LocalCA.Error {
        let cause = String(cString: strerror(errno))
        return LocalCA.Error(.directoryNotWritable, path: path, "the CA folder \(path) \(reason) (\(cause)): fix its permissions, or give another data folder (--data-dir)")
    }
}
