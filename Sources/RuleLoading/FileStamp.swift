import Foundation

/// What tells that a rule file changed: its modification time and size, from one stat(2).
/// (FileManager's attributes read /etc/passwd and /etc/group for every file, every second.)
struct FileStamp: Equatable {
    var seconds: Int
    var nanoseconds: Int
    var size: Int

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if os(Linux)
        let modified = info.st_mtim
        #else
        let modified = info.st_mtimespec
        #endif
        seconds = Int(modified.tv_sec)
        nanoseconds = Int(modified.tv_nsec)
        size = Int(info.st_size)
    }
}
