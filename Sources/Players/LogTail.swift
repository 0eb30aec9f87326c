import Foundation

/// Reads a file another process is writing, from where the last read stopped, and hands out the
/// complete lines stamped with the time they were read (seconds since `start`). This is how a driver
/// learns when a player said something, which the players themselves mostly do not print.
final class LogTail: @unchecked Sendable {
    let path: String
    private let start: Date
    private let limit: Int
    private let lock = NSLock()
    private var handle: FileHandle?
    private var offset: UInt64 = 0
    private var pending: [UInt8] = []
    private var lines: [LogLine] = []
    private var kept = 0
    private var cut = false

    init(path: String, start: Date, limit: Int = 4 << 20) {
        self.path = path; self.start = start; self.limit = limit
    }

    /// Reads what was appended; returns the new complete lines (also kept for `allLines`).
    @discardableResult
    func poll() -> [LogLine] {
        lock.withLock { read(final: false) }
    }

    /// After the process ended: reads the rest, including an unterminated last line.
    @discardableResult
    func finish() -> [LogLine] {
        lock.withLock {
            let fresh = read(final: true)
            try? handle?.close()
            handle = nil
            return fresh
        }
    }

    /// Every line read so far (at most `limit` bytes of them; later ones are dropped, with a note).
    var allLines: [LogLine] { lock.withLock { lines } }

    private func read(final: Bool) -> [LogLine] {
        if handle == nil { handle = FileHandle(forReadingAtPath: path) }
        guard let handle else { return [] }
        let data: Data
        do {
            try handle.seek(toOffset: offset)
            data = try handle.readToEnd() ?? Data()
        } catch {
            return []
        }
        offset += UInt64(data.count)
        let now = Date().timeIntervalSince(start)
        var fresh: [LogLine] = []
        pending.append(contentsOf: data)
        var lineStart = 0
        for (index, byte) in pending.enumerated() where byte == 0x0A || byte == 0x0D {
            append(pending[lineStart..<index], time: now, to: &fresh)
            lineStart = index + 1
        }
        pending.removeFirst(lineStart)
        if final, !pending.isEmpty {
            append(pending[...], time: now, to: &fresh)
            pending.removeAll()
        }
        return fresh
    }

    private func append(_ bytes: ArraySlice<UInt8>, time: Double, to fresh: inout [LogLine]) {
        guard !bytes.isEmpty else { return }
        let text = LogLine.clean(String(decoding: bytes, as: UTF8.self))
        guard !text.isEmpty else { return }
        let line = LogLine(time: time, text)
        fresh.append(line)
        guard !cut else { return }
        kept += bytes.count + 1
        if kept > limit {
            cut = true
            lines.append(LogLine(time: time, "[hlschaos: output past \(limit) bytes is not kept here; see \(path)]"))
        } else {
            lines.append(line)
        }
    }
}
