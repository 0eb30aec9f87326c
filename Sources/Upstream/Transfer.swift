import CurlShim
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

typealias HeadContinuation = UnsafeContinuation<Result<UpstreamResponse, UpstreamError>, Never>
typealias ChunkContinuation = UnsafeContinuation<Void, Never>

/// One request: its curl easy handle (touched only by the curl thread once submitted), the
/// response head parser, and the body buffer shared with the consumer under a lock.
///
/// The consumer is woken at most once per pass of the curl loop, after curl has handed over
/// everything its sockets had (`wakeConsumer`): a small response whose head and body arrive
/// together reaches the consumer complete, in one wake-up instead of one per callback.
final class Transfer: @unchecked Sendable {
    let url: String
    let handle: UnsafeMutableRawPointer
    private let loop: CurlLoop
    private let followRedirects: Bool
    private let decodeContent: Bool
    private let highWatermark: Int
    private let totalTimeout: Duration?
    /// This request's own first-byte timeout; nil for the configured one.
    let firstByteTimeoutNs: UInt64?
    private let connectTimeout: Duration

    // Curl thread only (or the setup thread before submission).
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Guarded transfers only: the policy and the refusal the callbacks record.
    private let addressGuard: UnsafeMutablePointer<cs_address_guard>?
    private var parser = ResponseHeadParser()
    /// Whether the handle may go back to the pool when it is released; see `releaseHandle`.
    private var handleReusable = true
    private var handleReleased = false
    /// The head was delivered or the fetch failed: header lines now are trailers.
    private(set) var headSettledOnLoop = false
    var startNs: UInt64 = 0
    /// When the last followed redirect's head ended: the next request starts about then.
    private(set) var lastRedirectNs: UInt64 = 0
    /// The head (or the failure before it), held until the loop's pass ends.
    private var pendingHead: Result<UpstreamResponse, UpstreamError>?
    /// Queued on the loop for `wakeConsumer` in this pass.
    var wakeScheduled = false
    /// `UpstreamRequest.expectedBody` while the body received so far equals its first `matched` bytes.
    private var expected: ByteBuffer?
    private var matched = 0

    /// What the curl thread and the consumer share (`TransferHandOver`), under a lock.
    private typealias HandOver = TransferHandOver<HeadContinuation, ChunkContinuation>
    private let shared = NIOLockedValueBox(HandOver())
    private static let allocator = ByteBufferAllocator()

    init(request: UpstreamRequest, configuration: UpstreamConfiguration, loop: CurlLoop) throws(UpstreamError) {
        guard let handle = loop.handles.take() else { throw .setup("curl_easy_init failed for \(request.url)") }
        self.url = request.url
        self.handle = handle
        self.loop = loop
        self.followRedirects = request.followRedirects
        self.decodeContent = request.decodeContent
        self.highWatermark = max(configuration.bufferHighWatermark, 1)
        self.totalTimeout = request.totalTimeout ?? configuration.totalTimeout
        self.firstByteTimeoutNs = request.firstByteTimeout?.nanoseconds
        self.connectTimeout = configuration.connectTimeout
        self.expected = request.expectedBody
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        if request.guardAddresses {
            let state = UnsafeMutablePointer<cs_address_guard>.allocate(capacity: 1)
            state.initialize(to: cs_address_guard())
            state.pointee.policy = loop.sharedOptions.addressPolicy.pointer
            self.addressGuard = state
        } else {
            self.addressGuard = nil
        }
        do {
            try configure(request, configuration)
        } catch {
            // A class whose init throws with every property set is deinitialised: deinit frees it.
            handleReusable = false
            throw error
        }
    }

    deinit {
        releaseHandle(reusable: handleReusable)
        errorBuffer.deallocate()
        addressGuard?.deallocate()
    }

    // MARK: setup

    private func configure(_ request: UpstreamRequest, _ configuration: UpstreamConfiguration) throws(UpstreamError) {
        let easy = EasyHandleConfigurator(handle: handle)
        try easy.set(CURLOPT_URL, request.url)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_TCP_NODELAY, 1)
        try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        try easy.set(CURLOPT_BUFFERSIZE, Self.receiveBufferSize(highWatermark: highWatermark))
        // Through an HTTP proxy (http_proxy and friends are honoured), its CONNECT answer is no origin head.
        try easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.curlMilliseconds)
        if let total = totalTimeout { try easy.set(CURLOPT_TIMEOUT_MS, total.curlMilliseconds) }
        try easy.set(CURLOPT_SSL_VERIFYPEER, configuration.verifyTLS ? 1 : 0)
        try easy.set(CURLOPT_SSL_VERIFYHOST, configuration.verifyTLS ? 2 : 0)
        if request.followRedirects {
            try easy.set(CURLOPT_FOLLOWLOCATION, 1)
            try easy.set(CURLOPT_MAXREDIRS, 10)
        }
        if request.decodeContent { try easy.set(CURLOPT_ACCEPT_ENCODING, "") }
        if request.method == .head { try easy.set(CURLOPT_NOBODY, 1) }
        try easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try loop.sharedOptions.apply(to: easy)
        // A pooled handle was reset (curl_easy_reset): an earlier transfer's guard is gone.
        if let addressGuard, cs_easy_set_address_guard(handle, addressGuard) != CURLE_OK {
            throw .setup("curl rejected the address guard callbacks for \(request.url)")
        }

        var hasUserAgent = false
        var hasAccept = false
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for (name, value) in request.headers {
            try Self.validateHeader(name: name, value: value, url: request.url)
            let lowercased = name.lowercased()
            if Self.headersCurlOwns.contains(lowercased) { continue }
            if lowercased == "user-agent" { hasUserAgent = true }
            if lowercased == "accept" { hasAccept = true }
            // curl offers its own Accept-Encoding when it decodes.
            if request.decodeContent, lowercased == "accept-encoding" { continue }
            // "Name;" is curl's syntax for a header with an empty value ("Name:" would remove it).
            let line = value.isEmpty ? "\(name);" : "\(name): \(value)"
            list = try Self.append(line, to: list)
        }
        list = try Self.append("Expect:", to: list)
        // Forward what the player sent: no "Accept: */*" of curl's own when it sent none.
        if !hasAccept { list = try Self.append("Accept:", to: list) }
        headerList = list
        try easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(list))
        if !hasUserAgent { try easy.set(CURLOPT_USERAGENT, configuration.userAgentFallback) }

        let userdata = Unmanaged.passUnretained(self).toOpaque()
        let writeCode = cs_easy_set_write_callback(handle, { data, size, count, userdata in
            guard let data, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            return transfer.onBody(UnsafeRawBufferPointer(start: data, count: size * count))
        }, userdata)
        let headerCode = cs_easy_set_header_callback(handle, { data, size, count, userdata in
            guard let data, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            return transfer.onHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
        }, userdata)
        guard writeCode == CURLE_OK, headerCode == CURLE_OK else {
            throw .setup("curl rejected the transfer callbacks for \(request.url)")
        }
    }

    /// Headers that describe the client connection or a request body: the URL decides Host,
    /// curl manages the connection, and a GET/HEAD has no body. Dropped even if the caller passes them.
    static let headersCurlOwns: Set<String> = [
        "host", "connection", "keep-alive", "proxy-connection", "te", "upgrade",
        "transfer-encoding", "content-length", "expect",
    ]

    /// curl's receive buffer, which is also the largest piece one write callback delivers. Large
    /// reads cost less CPU per byte (measured: 256 KB needs about half the CPU of 64 KB per 1 MB
    /// segment); never above the high watermark, so the buffered bytes stay within twice of it.
    static func receiveBufferSize(highWatermark: Int) -> Int {
        min(max(highWatermark, 16 * 1024), 256 * 1024)
    }

    private static func validateHeader(name: String, value: String, url: String) throws(UpstreamError) {
        if HTTPField.Name(name) == nil { throw .setup("invalid request header name \"\(name.oneLine)\" for \(url)") }
        if !HTTPField.isValidValue(value) {
            throw .setup("request header \(name) has a control character, or a space at either end, for \(url)")
        }
    }

    private static func append(_ line: String, to list: UnsafeMutablePointer<curl_slist>?) throws(UpstreamError) -> UnsafeMutablePointer<curl_slist>? {
        guard let appended = line.withCString({ curl_slist_append(list, $0) }) else {
            curl_slist_free_all(list)
            throw .setup("out of memory building request headers")
        }
        return appended
    }

    /// Returns the easy handle to the pool, or frees it when it is not `reusable`. Called in two
    /// places only: by the curl thread once the handle is out of the multi (`CurlLoop.detach`), and
    /// by deinit for a transfer that never reached the multi (its handle is clean unless setting it
    /// up failed).
    ///
    /// A transfer taken out before curl finished it is not reusable: libcurl (7.88) allocates the
    /// receive buffer before a transfer waits for a connection slot, and removing it there leaves
    /// that state behind, which curl_easy_reset does not clear; the next CURLOPT_BUFFERSIZE on the
    /// handle then fails, and every transfer given that handle answered 502.
    func releaseHandle(reusable: Bool = true) {
        guard !handleReleased else { return }
        handleReleased = true
        if reusable { loop.handles.give(handle) } else { curl_easy_cleanup(handle) }
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    // MARK: consumer side (any thread)

    /// Submits the transfer and waits for the response head.
    func start() async -> Result<UpstreamResponse, UpstreamError> {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: HeadContinuation) in
                let proceed = shared.withLockedValue { $0.awaitHead(continuation) }
                guard proceed else {
                    continuation.resume(returning: .failure(.cancelled))
                    return
                }
                if !loop.submit(self) {
                    settleHead(.failure(.setup("the upstream client is shut down (\(url))")))
                }
            }
        } onCancel: {
            cancel()
        }
    }

    func nextChunk() async -> Result<ByteBuffer?, UpstreamError> {
        while true {
            if let ready = takeReady() { return ready }
            await withTaskCancellationHandler {
                await withUnsafeContinuation { (continuation: ChunkContinuation) in
                    if !park(continuation) { continuation.resume() }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// Parks `waiter` until bytes or the end arrive; false (not parked) when they already have.
    private func park(_ waiter: ChunkContinuation) -> Bool {
        shared.withLockedValue { $0.park(waiter) }
    }

    /// True once the origin has sent the whole body and the consumer has taken every byte: the
    /// chunk just taken was the last one (lets the proxy send it and the end in one write).
    var isDrained: Bool {
        shared.withLockedValue { $0.isDrained }
    }

    /// Buffered bytes, or the end of the body, or nil when neither has arrived.
    private func takeReady() -> Result<ByteBuffer?, UpstreamError>? {
        let (result, unpause) = shared.withLockedValue { $0.take() }
        if unpause { loop.enqueue(.unpause(self)) }
        return result
    }

    /// Stops the transfer now: waiters get `.cancelled`, the curl thread removes the handle, which
    /// closes (or returns to the pool) the origin connection.
    func cancel() {
        guard let cancellation = shared.withLockedValue({ $0.cancel() }) else { return }
        cancellation.head?.resume(returning: .failure(.cancelled))
        cancellation.body?.resume()
        if cancellation.removeFromMulti { loop.enqueue(.remove(self)) }
    }

    var bufferedByteCount: Int { shared.withLockedValue { $0.bufferedBytes } }
    var pauseCount: Int { shared.withLockedValue { $0.pauseCount } }

    // MARK: curl thread

    /// Curl thread: resumes whoever waits for the head or the body, once the loop's pass is over.
    func wakeConsumer() {
        wakeScheduled = false
        if let head = pendingHead {
            pendingHead = nil
            settleHead(head)
        }
        shared.withLockedValue { $0.takeBodyWaiterIfReady() }?.resume()
    }

    private func scheduleWake() {
        if !wakeScheduled { loop.scheduleWake(self) }
    }

    private func settleHead(_ result: Result<UpstreamResponse, UpstreamError>) {
        shared.withLockedValue { $0.takeHeadWaiter() }?.resume(returning: result)
    }

    private func onHeaderLine(_ line: UnsafeRawBufferPointer) -> Int {
        guard !headSettledOnLoop else { return line.count }  // trailers
        if case let .endOfBlock(status) = parser.consume(line) {
            if isInterim(status) {
                if status >= 300 { lastRedirectNs = cs_monotonic_ns() }
            } else {
                deliverHead()
            }
        }
        return line.count
    }

    /// 1xx answers, and redirects curl is about to follow, are not the response the caller wants.
    private func isInterim(_ status: Int) -> Bool {
        if (100..<200).contains(status) { return true }
        return followRedirects && (300..<400).contains(status) && status != 304 && parser.header("Location") != nil
    }

    private func deliverHead() {
        headSettledOnLoop = true
        var headers = parser.headers
        if decodeContent, let encoding = parser.header("Content-Encoding"), !encoding.asciiCaseInsensitiveEquals("identity") {
            headers = headers.removingAll(named: ["Content-Encoding", "Content-Length"])
        }
        let response = UpstreamResponse(
            status: parser.status,
            headers: headers,
            effectiveURL: lastRedirectNs > 0 ? handle.curlInfoString(CURLINFO_EFFECTIVE_URL) ?? url : url,
            httpVersion: parser.httpVersion,
            reusedConnection: handle.curlInfoLong(CURLINFO_NUM_CONNECTS) == 0,
            timings: UpstreamTimings(
                connect: Self.seconds(handle.curlInfoOff(CURLINFO_CONNECT_TIME_T)),
                firstByte: Self.seconds(handle.curlInfoOff(CURLINFO_STARTTRANSFER_TIME_T))),
            body: UpstreamBody(transfer: self)
        )
        pendingHead = .success(response)
        scheduleWake()
    }

    private func onBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if !headSettledOnLoop { deliverHead() }
        if expected != nil, matchesExpected(bytes) { return bytes.count }
        switch shared.withLockedValue({ $0.received(bytes, highWatermark: highWatermark, allocator: Self.allocator) }) {
        case .abort: return 0
        case .pause: return cs_writefunc_pause()
        case .buffered(let wake):
            if wake { scheduleWake() }
            return bytes.count
        }
    }

    /// Whether `bytes` continue the expected body. At the first difference the expectation is
    /// dropped, and the bytes matched so far are copied into the chunk that the rest joins: a
    /// playlist that changed still reaches the consumer in one buffer.
    private func matchesExpected(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let body = expected else { return false }
        let same = bytes.count <= body.readableBytes - matched && body.withUnsafeReadableBytes {
            memcmp($0.baseAddress! + matched, bytes.baseAddress!, bytes.count) == 0
        }
        if same {
            matched += bytes.count
            return true
        }
        expected = nil
        if matched > 0 {
            var chunk = Self.allocator.buffer(capacity: max(matched + bytes.count, HandOver.minimumChunkCapacity))
            chunk.writeBytes(body.readableBytesView.prefix(matched))
            handOver(chunk)
        }
        return false
    }

    /// The body has ended while it matched: the expected buffer itself when it matched whole, else
    /// the slice of it that the body was.
    private func handOverMatched() {
        guard let body = expected else { return }
        expected = nil
        guard matched > 0 else { return }
        handOver(matched == body.readableBytes ? body : body.getSlice(at: body.readerIndex, length: matched)!)
    }

    /// Queues `chunk` for the consumer and wakes it: the bytes that follow may pause the transfer
    /// (the chunk alone can pass the watermark), and a paused transfer whose consumer was not told
    /// of this chunk would never be taken from and unpaused.
    private func handOver(_ chunk: ByteBuffer) {
        if shared.withLockedValue({ $0.handOver(chunk) }) { scheduleWake() }
    }

    /// Microseconds from curl as seconds; nil for 0 (not reached, or nothing to do: a reused connection).
    static func seconds(_ microseconds: Int64) -> Double? {
        microseconds > 0 ? Double(microseconds) / 1_000_000 : nil
    }

    /// curl's total time for the transfer, once it has ended (any thread).
    var totalSeconds: Double? { shared.withLockedValue { $0.totalSeconds } }

    /// curl reported the transfer finished (CURLMSG_DONE); the handle is already out of the multi.
    func completed(_ code: CURLcode, nowNs: UInt64) {
        let total = Self.seconds(handle.curlInfoOff(CURLINFO_TOTAL_TIME_T))
        shared.withLockedValue { $0.totalSeconds = total }
        if code == CURLE_OK {
            if !headSettledOnLoop { deliverHead() }
            handOverMatched()
            finishBody(.success(()))
            return
        }
        if let refused = refusal(code) {
            fail(refused)
            return
        }
        let context = CurlErrorMapping.Context(
            url: url,
            detail: String(cString: errorBuffer),
            elapsedNs: nowNs &- startNs,
            totalTimeout: totalTimeout,
            connectTimeout: connectTimeout,
            connected: handle.curlInfoOff(CURLINFO_CONNECT_TIME_T) > 0
        )
        fail(CurlErrorMapping.error(for: code, context))
    }

    /// The guard's refusal, when it is why the transfer failed: curl reports a refused socket as
    /// COULDNT_CONNECT (like a closed port) and a refused reused connection as ABORTED_BY_CALLBACK.
    private func refusal(_ code: CURLcode) -> UpstreamError? {
        guard let addressGuard, code == CURLE_COULDNT_CONNECT || code == CURLE_ABORTED_BY_CALLBACK,
              let refusal = AddressRefusal(rawValue: addressGuard.pointee.verdict)
        else { return nil }
        let address = withUnsafeBytes(of: addressGuard.pointee.address) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var reason = refusal.reason
        if lastRedirectNs > 0, let effective = handle.curlInfoString(CURLINFO_EFFECTIVE_URL) {
            reason += " (reached by a redirect to \(effective))"
        }
        return .refusedAddress(url: url, address: address, reason: reason)
    }

    /// Ends the transfer with `error` (the curl thread has removed the handle).
    func fail(_ error: UpstreamError) {
        expected = nil
        if !headSettledOnLoop {
            headSettledOnLoop = true
            pendingHead = .failure(error)
        }
        finishBody(.failure(error))
    }

    private func finishBody(_ end: Result<Void, UpstreamError>) {
        shared.withLockedValue { $0.finish(end) }
        scheduleWake()
    }

    /// When the curl thread must give up waiting for the head, or nil when the head is not
    /// awaited any more. `nowNs` bounds the estimate while the request is not yet sent.
    func firstByteDeadline(timeoutNs: UInt64, nowNs: UInt64) -> UInt64? {
        guard !headSettledOnLoop else { return nil }
        let sentAfterUs = handle.curlInfoOff(CURLINFO_PRETRANSFER_TIME_T)
        guard sentAfterUs > 0 else { return nowNs &+ timeoutNs }
        let base = lastRedirectNs > 0 ? lastRedirectNs : startNs
        return base &+ UInt64(sentAfterUs) &* 1000 &+ timeoutNs
    }
}
