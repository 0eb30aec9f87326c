import Addressing
import Foundation
import HLS
import BundleFormat
import Records

/// One request of a recorded session: the body bytes as they go to the device (`ClientChannel`
/// feeds them), the head's headers and instant, then `exchange(for:)` when the response has ended.
/// Touched only by the request's own task.
final class RequestCapture: @unchecked Sendable {
    let writer: BundleWriter
    /// The upstream URL the request stands for (the key a replay answers it by).
    let url: String
    let session: String
    let arrived: Date
    let body: BodyCapture
    /// A playlist as served but with the origin's URIs instead of the proxy's (see `originView`).
    var playlist: [UInt8]?
    var headSent: Date?
    var headers: [Exchange.Header] = []

    init(writer: BundleWriter, url: String, session: String, arrived: Date) {
        self.writer = writer
        self.url = url
        self.session = session
        self.arrived = arrived
        self.body = writer.beginBody()
    }

    /// Headers of the proxy's own making, not the origin's: left out of the recording.
    private static let droppedHeaders: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "x-hlschaos-fault",
        "access-control-allow-origin", "access-control-expose-headers",
    ]

    func head(_ headers: [(name: String, value: String)]) {
        headSent = Date()
        self.headers = headers.filter { !Self.droppedHeaders.contains($0.name.lowercased()) }.map { Exchange.Header($0.name, $0.value) }
    }

    /// Writes the exchange for the ended request (errors stop the recording, never the request).
    func finish(_ record: RequestRecord, recorder: ProxyRecorder) {
        do {
            var exchange = Exchange(
                at: writer.offset(of: arrived), method: record.method, url: url,
                // A range the answer did not honour (a 200 with the whole body, a 503) is not part of
                // what the exchange stands for: a replay answers any request for the resource with it.
                range: record.status == 206 || record.status == 416 ? record.requestHeaders.first { $0.name == "range" }?.value : nil,
                status: record.status, kind: record.kind?.rawValue, session: session)
            exchange.timings = .init(firstByte: headSent.map { $0.timeIntervalSince(arrived) }, total: record.duration)
            exchange.headers = headers
            switch record.ending {
            case .complete:
                exchange.ending = .complete
            case .truncated, .clientAbort:
                exchange.ending = .truncated
                exchange.error = record.ending == .clientAbort
                    ? "the device left after \(record.bytesSent) bytes" : "cut after \(record.bytesSent) bytes"
            case .reset:
                exchange.ending = .reset
                exchange.error = "connection reset after \(record.bytesSent) bytes"
            case .hang:
                exchange.ending = .timeout
                exchange.error = "no answer for \(String(format: "%.1f", record.duration)) s"
            case .closed:
                exchange.ending = .failed
                exchange.error = "closed without \(record.status == nil ? "an answer" : "the whole answer")"
            }
            if let playlist, record.ending == .complete {
                body.discard()
                exchange.headers.removeAll { $0.name.lowercased() == "content-length" }
                exchange.body = try writer.storeBody(playlist)
            } else {
                exchange.body = try body.finish()
            }
            try writer.append(exchange)
        } catch {
            body.discard()
            recorder.writerFailed(writer, error)
        }
    }

    /// A playlist the proxy served, with each URI pointed back at the proxy (`/s/tv1/~seg.v0.n4/http/…`)
    /// turned into the upstream URL it stands for: what the device saw, as an origin would serve it.
    /// nil when the bytes do not parse as a playlist (then the bytes sent are kept as they are).
    static func originView(of served: [UInt8], clientPath: String) -> [UInt8]? {
        let local = clientPath.utf8.first == UInt8(ascii: "/")  // reverse mode; forward mode asks for whole URLs
        guard let base = URL(string: local ? "http://proxy.invalid" + clientPath : clientPath),
              var playlist = try? Playlist(bytes: served, url: base) else { return nil }
        playlist.rewriteURIs { reference in
            guard let absolute = reference.absoluteString else { return nil }
            var written = absolute
            if local {
                guard let parts = URLComponents(string: absolute), parts.host == "proxy.invalid" else { return nil }
                written = parts.percentEncodedPath + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
            }
            return ProxyPath(written: written)?.upstream?.url
        }
        return playlist.serialized()
    }
}
