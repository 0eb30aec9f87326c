import Foundation
import TestSupport

/// What a device on a shaped link receives, measured where it arrives: clients on their own threads
/// fetch a target again and again, each on a fresh connection, and every read is noted with its
/// time since `start`. All clients of one meter add up (one session's link).
final class LinkMeter: @unchecked Sendable {
    let start = Date()
    private let lock = NSLock()
    private var samples: [(time: Double, bytes: Int)] = []
    /// Seconds each complete response took, by target.
    private var took: [String: [Double]] = [:]

    var elapsed: Double { Date().timeIntervalSince(start) }

    /// Fetches `target` from the proxy at `port` until `seconds` after `start`, pausing `pause`
    /// seconds between responses; a response still arriving then is abandoned.
    func fetch(port: Int, _ target: String, for seconds: Double, pause: Double = 0) async throws {
        try await RawHTTP.run { [self] in
            while elapsed < seconds {
                let begun = elapsed
                let connection = try RawHTTPConnection(port: port, readTimeout: 2)
                connection.sendRaw(Array("GET \(target) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n".utf8))
                var complete = false
                while elapsed < seconds {
                    let (count, ending) = connection.readSome(limit: 16 * 1024)
                    if count > 0 { note(count) }
                    if ending == .complete { complete = true; break }
                    if ending != nil { break }
                    _ = connection.takeBuffered()
                }
                connection.close()
                if complete { lock.withLock { took[target, default: []].append(elapsed - begun) } }
                if pause > 0 { Thread.sleep(forTimeInterval: pause) }
            }
        }
    }

    private func note(_ count: Int) {
        let time = elapsed
        lock.withLock { samples.append((time, count)) }
    }

    /// Bytes that arrived between two times (seconds since `start`).
    func bytes(from: Double, to: Double) -> Int {
        lock.withLock { samples.filter { $0.time >= from && $0.time < to }.reduce(0) { $0 + $1.bytes } }
    }

    /// Bits per second that arrived between two times.
    func rate(from: Double, to: Double) -> Double { Double(bytes(from: from, to: to)) * 8 / (to - from) }

    func durations(of target: String) -> [Double] { lock.withLock { took[target] ?? [] } }
}
