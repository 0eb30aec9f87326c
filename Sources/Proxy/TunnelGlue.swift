import NIOCore

/// One side of a blind `CONNECT` tunnel: what one channel reads is written to the other, unchanged.
/// Reading stops while the other side cannot take more (backpressure both ways), and either side
/// closing closes the other once what it still holds is flushed.
final class TunnelGlue: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: TunnelGlue?
    private var context: ChannelHandlerContext?
    private var pendingRead = false

    /// Two handlers that forward to each other: add one to each channel.
    static func pair() -> (TunnelGlue, TunnelGlue) {
        let first = TunnelGlue(), second = TunnelGlue()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    // Both channels run on the same event loop (the upstream connection is made on the client's).
    private func partnerWrite(_ data: NIOAny) { context?.write(data, promise: nil) }
    private func partnerFlush() { context?.flush() }
    private var partnerWritable: Bool { context?.channel.isWritable ?? false }
    private func partnerCloseAfterFlush() {
        guard let context else { return }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
    private func partnerBecameWritable() {
        if pendingRead {
            pendingRead = false
            context?.read()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { partner?.partnerWrite(data) }
    func channelReadComplete(context: ChannelHandlerContext) { partner?.partnerFlush() }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.partnerCloseAfterFlush()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.partnerBecameWritable() }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)  // a broken socket on one side ends the tunnel
    }

    func read(context: ChannelHandlerContext) {
        if partner?.partnerWritable ?? true {
            context.read()
        } else {
            pendingRead = true
        }
    }
}
