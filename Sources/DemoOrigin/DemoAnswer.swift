import Foundation

/// What the demo origin says to one request: a response now, or, for an LL-HLS request whose
/// part is not published yet (a blocking playlist reload, the preload-hinted part), to ask
/// again later. `DemoOriginServer` holds the connection meanwhile without blocking a thread.
public enum DemoAnswer: Sendable {
    case response(DemoResponse)
    /// Ask again in this many seconds (by the origin's clock).
    case retry(after: TimeInterval)
}
