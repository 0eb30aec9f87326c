// The floor under hlschaos's event-loop side, for run.sh's reference row: SwiftNIO's HTTP/1.1
// server, as hlschaos configures it, answering every request with one file's bytes held in memory.
// No upstream, no task per request, no rule, session or record: what any proxy on SwiftNIO pays
// for a response before it does anything of its own.
//
//   nio-floor PORT FILE
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

final class Answer: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let body: ByteBuffer
    private let headers: HTTPHeaders

    init(body: ByteBuffer) {
        self.body = body
        self.headers = HTTPHeaders([("content-type", "video/mp2t"), ("content-length", String(body.readableBytes))])
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]), let data = FileManager.default.contents(atPath: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: nio-floor PORT FILE\n".utf8))
    exit(2)
}
let body = ByteBuffer(bytes: data)
let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .serverChannelOption(.backlog, value: 512)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelOption(.allowRemoteHalfClosure, value: false)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false)
            try channel.pipeline.syncOperations.addHandler(Answer(body: body))
        }
    }
    .bind(host: "127.0.0.1", port: port)
    .wait()
try channel.closeFuture.wait()
