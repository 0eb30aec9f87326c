import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TestSupport
@testable import DemoOrigin

/// A clock the tests move by hand.
final class TestClock: Sendable {
    private let current: NIOLockedValueBox<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = NIOLockedValueBox(start)
    }

    var now: Date { current.withLockedValue { $0 } }

    func advance(by seconds: Double) {
        current.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }

    var function: @Sendable () -> Date { { self.now } }
}

/// One parsed HTTP/1.1 response read off the wire.
struct WireResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

struct WireError: Error, CustomStringConvertible {
    var description: String
}

/// A deliberately dumb HTTP/1.1 client: writes raw request bytes on one TCP connection,
/// reads until the server closes, then splits the bytes into responses by Content-Length.
/// No URLSession, so what is checked is exactly what went over the socket.
enum RawHTTPClient {
    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received = NIOLockedValueBox<[UInt8]>([])
        let done: EventLoopPromise<[UInt8]>

        init(done: EventLoopPromise<[UInt8]>) { self.done = done }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLockedValue { $0.append(contentsOf: buffer.readableBytesView) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            done.succeed(received.withLockedValue { $0 })
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            done.fail(error)
            context.close(promise: nil)
        }
    }

    /// Sends `requests` (method, target, extra header lines) on one connection, the last
    /// one with `Connection: close`, and returns the responses in order.
    static func exchange(port: Int, _ requests: [(method: String, target: String, headers: [String])]) async throws -> [WireResponse] {
        let group = MultiThreadedEventLoopGroup.singleton
        let done = group.next().makePromise(of: [UInt8].self)
        let channel: Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Collector(done: done))
                    }
                }
                .connect(host: "127.0.0.1", port: port)
                .get()
        } catch {
            done.fail(error)  // nothing will complete it: NIO traps on a promise left unfulfilled
            throw error
        }
        var raw = ""
        for (index, request) in requests.enumerated() {
            raw += "\(request.method) \(request.target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            for line in request.headers { raw += line + "\r\n" }
            if index == requests.count - 1 { raw += "Connection: close\r\n" }
            raw += "\r\n"
        }
        try await channel.writeAndFlush(ByteBuffer(string: raw)).get()
        let bytes = try await done.futureResult.get()
        return try parse(bytes, methods: requests.map(\.method))
    }

    static func get(port: Int, _ target: String, headers: [String] = []) async throws -> WireResponse {
        try await exchange(port: port, [("GET", target, headers)])[0]
    }

    static func head(port: Int, _ target: String, headers: [String] = []) async throws -> WireResponse {
        try await exchange(port: port, [("HEAD", target, headers)])[0]
    }

    static func parse(_ bytes: [UInt8], methods: [String]) throws -> [WireResponse] {
        var responses: [WireResponse] = []
        var position = 0
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        for method in methods {
            guard let headEnd = find(separator, in: bytes, from: position) else {
                throw WireError(description: "response \(responses.count + 1) has no complete head; \(bytes.count - position) bytes left")
            }
            let headText = String(decoding: bytes[position..<headEnd], as: UTF8.self)
            var lines = headText.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
                throw WireError(description: "bad status line in \(headText)")
            }
            let headers = lines.compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            position = headEnd + separator.count
            var response = WireResponse(status: status, headers: headers, body: [])
            if method != "HEAD" {
                guard let length = response.header("content-length").flatMap(Int.init) else {
                    throw WireError(description: "response without Content-Length: \(headText)")
                }
                guard position + length <= bytes.count else {
                    throw WireError(description: "body shorter than Content-Length \(length)")
                }
                response.body = Array(bytes[position..<(position + length)])
                position += length
            }
            responses.append(response)
        }
        guard position == bytes.count else {
            throw WireError(description: "\(bytes.count - position) unexpected bytes after the last response")
        }
        return responses
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= haystack.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// Runs a command line tool and returns its exit status and outputs.
struct ToolRun {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Runs on a thread of its own: a tool talking to the loopback server may take seconds,
    /// and blocking the few cooperative threads would stall every other test.
    static func run(_ tool: String, _ arguments: [String]) async throws -> ToolRun {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try runBlocking(tool, arguments) }) }.start()
        }
    }

    private static func runBlocking(_ tool: String, _ arguments: [String]) throws -> ToolRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A player that waits forever (e.g. for a live segment that never comes) must fail
        // the test, not hang the run: kill it after a generous deadline.
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        defer { watchdog.cancel() }
        // Read both pipes before waiting so a chatty tool never blocks on a full pipe.
        let errData = NIOLockedValueBox(Data())
        let errRead = DispatchGroup()
        errRead.enter()
        Thread {
            errData.withLockedValue { $0 = err.fileHandleForReading.readAllRetryingInterrupts() }
            errRead.leave()
        }.start()
        let outData = out.fileHandleForReading.readAllRetryingInterrupts()
        process.waitUntilExit()
        errRead.wait()
        return ToolRun(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData.withLockedValue { $0 }, as: UTF8.self))
    }

    static func isInstalled(_ tool: String) -> Bool {
        (try? runBlocking(tool, ["-version"]).status) == 0
    }
}

/// The bundled files as the origin loaded them, to compare served bytes with.
enum BundledMedia {
    private static let library = Result { try MediaLibrary.bundled() }

    static func data(_ relative: String) throws -> Data {
        guard let data = try library.get().files[relative] else {
            throw WireError(description: "no bundled file \(relative)")
        }
        return data
    }
}

/// Runs `body` against a demo origin server on a free loopback port, then shuts it down.
func withDemoServer<T>(clock: @escaping @Sendable () -> Date = Date.init,
                       _ body: (DemoOriginServer) async throws -> T) async throws -> T {
    try await withStarted(
        { try await DemoOriginServer.start(origin: DemoOrigin(clock: clock), host: "127.0.0.1", port: 0) }, stop: { try await $0.shutdown() }, run: body)
}
