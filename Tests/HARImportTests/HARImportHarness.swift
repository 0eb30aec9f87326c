import Addressing
import Chaos
import Control
import DemoOrigin
import Foundation
import Proxy
import RuleLoading
import Records
import TestSupport
import Upstream

#if canImport(Glibc)
import Glibc
#endif

/// The real proxy in front of the demo origin with the control API next to it, in this process, for
/// HAR import end to end: sessions are opened with scenarios through the API, HARs taken from it.
final class HARImportHarness: Sendable {
    let proxy: ProxyServer
    let control: ControlServer
    let upstream: UpstreamClient
    let demo: DemoOriginServer

    static func with(_ body: (HARImportHarness) async throws -> Void) async throws {
        // One scope per server: each is stopped when a later one fails to start, and all of them
        // after `body`, the last started first.
        try await withStarted({ try await DemoOriginServer.start(origin: DemoOrigin()) }, stop: { try await $0.shutdown() }) { demo in
            var configuration = ProxyConfiguration()
            configuration.host = "127.0.0.1"
            configuration.port = 0
            configuration.defaultOrigin = UpstreamLocation(absolute: demo.baseURL)
            let upstream = try UpstreamClient(configuration: configuration.upstream)
            try await withTeardown { await upstream.shutdown() } run: {
                let proxy = try await ProxyServer.bind(configuration: configuration, upstream: upstream, rules: try RuleBook(ruleFiles: []))
                let proxyTask = Task { await proxy.run() }
                try await withTeardown({ proxy.shutdown(); await proxyTask.value }) {
                    var settings = ControlConfiguration(host: "127.0.0.1", port: 0, token: nil, deviceHosts: ["127.0.0.1"])
                    settings.version = "test"
                    try await withStarted({ try await ControlServer.start(proxy: proxy, configuration: settings) }, stop: { await $0.shutdown() }) { control in
                        try await body(HARImportHarness(proxy: proxy, control: control, upstream: upstream, demo: demo))
                    }
                }
            }
        }
    }

    private init(proxy: ProxyServer, control: ControlServer, upstream: UpstreamClient, demo: DemoOriginServer) {
        self.proxy = proxy; self.control = control; self.upstream = upstream; self.demo = demo
    }

    /// One request to the proxy, as a device makes it.
    func get(_ target: String) async throws -> RawHTTPConnection.Response {
        try await RawHTTP.get(port: proxy.port, target)
    }

    /// One call to the control API (`Connection: close`, the whole answer).
    func api(_ method: String, _ path: String, json: String? = nil) async throws -> (status: Int, body: [UInt8]) {
        let port = control.port
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        let body = json.map { Array($0.utf8) } ?? []
        if json != nil { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        return try await RawHTTP.run {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            connection.sendRaw(request)
            return try Self.parse(connection.readUntilClosed().bytes)
        }
    }

    /// Status and body of a whole HTTP/1.1 answer (Content-Length or chunked).
    static func parse(_ bytes: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        guard let end = RawHTTPConnection.find(Array("\r\n\r\n".utf8), in: bytes) else {
            throw HarnessError("no HTTP answer: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var body = Array(bytes[(end + 4)...])
        if head.lowercased().contains("transfer-encoding: chunked") {
            var decoded: [UInt8] = []
            var position = 0
            while let lineEnd = RawHTTPConnection.find(Array("\r\n".utf8), in: Array(body[position...])) {
                let sizeText = String(decoding: body[position..<(position + lineEnd)], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16), size > 0 else { break }
                let start = position + lineEnd + 2
                decoded += body[start..<min(start + size, body.count)]
                position = start + size + 2
                if position >= body.count { break }
            }
            body = decoded
        }
        return (status, body)
    }

    /// Opens session `id` with `scenario` (a rule file's JSON) through the control API.
    func openSession(_ id: String, scenario: String) async throws {
        let answer = try await api("POST", "/api/sessions", json: #"{"id": "\#(id)", "scenario": \#(scenario)}"#)
        guard answer.status == 201 else {
            throw HarnessError("POST /api/sessions answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
    }

    /// The session's records once `count` of them are in (records are emitted as responses end).
    func records(_ session: String, count: Int) async throws -> [RequestRecord] {
        if await eventually({ proxy.control.records(session: session).count >= count }) {
            return proxy.control.records(session: session)
        }
        throw HarnessError("session \(session) has \(proxy.control.records(session: session).count) records, expected \(count)")
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What the proxy's records say each resource got: per kind, variant, rendition and MSN, the
/// statuses of its requests in the order they arrived (0 for none).
struct StatusesByResource: Equatable, CustomStringConvertible {
    var byResource: [String: [Int]]

    init(_ records: [RequestRecord]) {
        var map: [String: [Int]] = [:]
        for record in records.sorted(by: RequestRecord.chronological) {
            let key = [record.kind?.rawValue ?? "?", record.variant.map { "v\($0)" } ?? "", record.rendition.map { "r\($0)" } ?? "",
                       record.msn.map { "n\($0)" } ?? ""].filter { !$0.isEmpty }.joined(separator: ".")
            map[key, default: []].append(record.status ?? 0)
        }
        byResource = map
    }

    var faulted: [String: [Int]] { byResource.filter { $0.value.contains { $0 >= 400 || $0 == 0 } } }

    var description: String {
        byResource.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.map(String.init).joined(separator: ","))" }.joined(separator: "; ")
    }
}
