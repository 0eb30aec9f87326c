import Foundation
import Logging
import Records

/// Records appended to a file as JSON Lines (`--events FILE`), one object per line, on a serial
/// queue so no request waits for the disk. When the file passes `maxBytes` it is renamed to
/// `FILE.1` (replacing the previous one) and a new file begins: at most twice `maxBytes` on disk.
final class JSONLinesFile: @unchecked Sendable {
    let path: String
    let maxBytes: Int
    private let queue = DispatchQueue(label: "hlschaos.events-file")
    private let logger: Logger
    // Queue only.
    private var handle: FileHandle?
    private var size = 0
    private var failed = false
    private let encoder = RecordTime.jsonEncoder()

    /// Opens (creating or appending to) the file; throws a message naming the path when it cannot.
    init(path: String, maxBytes: Int, logger: Logger) throws {
        self.path = path
        self.maxBytes = maxBytes
        self.logger = logger
        try queue.sync { try open() }
    }

    private func open() throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw JSONLinesError(description: "cannot create the events file \(path) (does its folder exist and is it writable?)")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw JSONLinesError(description: "cannot open the events file \(path) for writing")
        }
        size = Int(try handle.seekToEnd())
        self.handle = handle
    }

    func write(_ record: RequestRecord) {
        queue.async { [self] in
            guard !failed, let handle, var line = try? encoder.encode(record) else { return }
            line.append(0x0A)
            do {
                if size + line.count > maxBytes, size > 0 { try rotate() }
                try self.handle?.write(contentsOf: line)
                size += line.count
            } catch {
                failed = true
                logger.error("events file \(path): \(error); no more records are written to it")
            }
            _ = handle
        }
    }

    private func rotate() throws {
        try handle?.close()
        handle = nil
        let previous = path + ".1"
        try? FileManager.default.removeItem(atPath: previous)
        try FileManager.default.moveItem(atPath: path, toPath: previous)
        try open()
    }

    /// Waits until every record written so far is on disk (tests, shutdown).
    func flush() {
        queue.sync { try? handle?.synchronize() }
    }
}

struct JSONLinesError: Error, CustomStringConvertible {
    var description: String
}
