import Foundation

/// A POSIX ustar archive of a bundle directory (`--archive`): one file to carry to another
/// machine, which `tar -xf` also unpacks. Only what bundles need: regular files under short
/// relative names.
public enum TarArchive {
    static let block = 512

    /// Writes `files` (relative names, read from `directory`) into a new archive at `archive`.
    public static func write(directory: URL, files: [String], to archive: URL) throws(BundleError) {
        let path = archive.path
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let out = FileHandle(forWritingAtPath: path) else {
            throw BundleError(path, "cannot create the archive (check the directory exists and is writable)")
        }
        defer { try? out.close() }
        do {
            for name in files {
                let source = directory.appendingPathComponent(name)
                guard let data = FileManager.default.contents(atPath: source.path) else {
                    throw BundleError(source.path, "vanished while the archive was written")
                }
                try out.write(contentsOf: header(name: name, size: data.count))
                try out.write(contentsOf: data)
                let padding = (block - data.count % block) % block
                if padding > 0 { try out.write(contentsOf: Data(count: padding)) }
            }
            try out.write(contentsOf: Data(count: block * 2))
        } catch let error as BundleError {
            throw error
        } catch {
            throw BundleError(path, "could not write the archive: \(error.localizedDescription)")
        }
    }

    /// Where each regular file of the archive at `path` lies: name → (offset, size).
    public static func index(of path: String) throws(BundleError) -> [String: (offset: UInt64, size: Int)] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BundleError(path, "cannot be opened for reading")
        }
        defer { try? handle.close() }
        let length = (try? handle.seekToEnd()) ?? 0
        var entries: [String: (offset: UInt64, size: Int)] = [:]
        var offset: UInt64 = 0
        while true {
            guard offset + UInt64(block) <= length else {
                if entries.isEmpty { throw BundleError(path, "is not a tar archive (shorter than one 512-byte header)") }
                throw BundleError(path, "is cut short: it ends at byte \(length) without the archive's end marker; copy it again")
            }
            let head: Data
            do {
                try handle.seek(toOffset: offset)
                head = try handle.read(upToCount: block) ?? Data()
            } catch {
                throw BundleError(path, "could not be read at byte \(offset): \(error.localizedDescription)")
            }
            if head.allSatisfy({ $0 == 0 }) { return entries }
            let bytes = [UInt8](head)
            guard checksumMatches(bytes) else {
                throw BundleError(path, offset == 0
                    ? "is not a tar archive (its first header's checksum does not match)"
                    : "is damaged: the header at byte \(offset) has a bad checksum")
            }
            let name = field(bytes, 0, 100)
            let prefix = field(bytes, 345, 155)
            let fullName = prefix.isEmpty ? name : prefix + "/" + name
            guard let size = Int(field(bytes, 124, 12).trimmingCharacters(in: .whitespaces), radix: 8) else {
                throw BundleError(path, "is damaged: entry \"\(fullName)\" has no readable size")
            }
            let dataStart = offset + UInt64(block)
            guard dataStart + UInt64(size) <= length else {
                throw BundleError(path, "is cut short: \"\(fullName)\" declares \(size) bytes but the file ends \(length - dataStart) bytes into it; copy it again")
            }
            let type = bytes[156]
            if type == UInt8(ascii: "0") || type == 0 {
                let clean = fullName.hasPrefix("./") ? String(fullName.dropFirst(2)) : fullName
                entries[clean] = (dataStart, size)
            }
            offset = dataStart + UInt64((size + block - 1) / block * block)
        }
    }

    private static func header(name: String, size: Int) throws(BundleError) -> Data {
        guard name.utf8.count < 100 else { throw BundleError(name, "name too long for a tar header") }
        var bytes = [UInt8](repeating: 0, count: block)
        func put(_ text: String, at start: Int) {
            for (offset, byte) in text.utf8.enumerated() { bytes[start + offset] = byte }
        }
        put(name, at: 0)
        put("0000644", at: 100)
        put("0000000", at: 108)
        put("0000000", at: 116)
        put(String(format: "%011o", size), at: 124)
        put(String(format: "%011o", Int(Date().timeIntervalSince1970)), at: 136)
        put("        ", at: 148)
        bytes[156] = UInt8(ascii: "0")
        put("ustar", at: 257)
        put("00", at: 263)
        let sum = bytes.reduce(0) { $0 + Int($1) }
        put(String(format: "%06o", sum), at: 148)
        bytes[154] = 0
        bytes[155] = UInt8(ascii: " ")
        return Data(bytes)
    }

    private static func checksumMatches(_ bytes: [UInt8]) -> Bool {
        guard let stored = Int(field(bytes, 148, 8).trimmingCharacters(in: .whitespaces), radix: 8) else { return false }
        var sum = 0
        for (index, byte) in bytes.enumerated() { sum += (148..<156).contains(index) ? 32 : Int(byte) }
        return sum == stored
    }

    private static func field(_ bytes: [UInt8], _ start: Int, _ length: Int) -> String {
        let slice = bytes[start..<(start + length)]
        let end = slice.firstIndex(of: 0) ?? slice.endIndex
        return String(decoding: slice[start..<end], as: UTF8.self)
    }
}
