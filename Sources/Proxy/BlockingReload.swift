import Addressing

/// LL-HLS blocking playlist reloads (rfc8216bis 6.2.5.2): a request carrying `_HLS_msn` is answered
/// when the segment or part it asks for exists, and a server that cannot answer within three target
/// durations answers 503. Until then the origin sends nothing, which is not a timeout.
enum BlockingReload {
    /// The target duration assumed before the session has learnt one from a media playlist.
    static let assumedTargetDuration = 10

    /// How long the origin may hold a blocking reload on purpose: three target durations.
    static func hold(targetDuration: Int?) -> Duration {
        .seconds(3 * max(targetDuration ?? assumedTargetDuration, 1))
    }

    /// Whether the request's query asks to block (`_HLS_msn`, valid delivery directives).
    static func asksToBlock(_ pathAndQuery: String) -> Bool {
        guard case .success(let directives) = DeliveryDirectives.parse(target: pathAndQuery) else { return false }
        return directives.asksToBlock
    }
}
