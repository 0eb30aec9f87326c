import BundleFormat
import Foundation
import Synchronization

/// Running counts of a recording, for the progress line and the closing summary. Constant size,
/// whatever the recording's length.
public final class RecordTally: Sendable {
    public struct Counts: Sendable, Equatable {
        /// Exchanges written.
        public var requests = 0
        /// Of those, the ones with a status of 400 or more or an ending other than complete.
        public var failures = 0
        /// Body bytes received (before bodies are stored once).
        public var bytes = 0
        /// Playlist loads written (master included).
        public var playlistLoads = 0
        /// Segments, keys and init sections written.
        public var mediaFetches = 0
        /// Requests under way.
        public var inFlight = 0
        /// Segments, keys and init sections waiting for a free connection.
        public var queued = 0
        /// Media left out because the recorder fell too far behind a live stream (its queue was full).
        public var skipped = 0
    }

    private let state = Mutex(Counts())

    public init() {}

    public var counts: Counts { state.withLock { $0 } }

    func started() { state.withLock { $0.inFlight += 1 } }
    func ended() { state.withLock { $0.inFlight -= 1 } }
    func received(_ count: Int) { state.withLock { $0.bytes += count } }
    func queued(_ count: Int) { state.withLock { $0.queued = count } }
    func skipped(_ count: Int) { state.withLock { $0.skipped += count } }

    func recorded(_ exchange: Exchange) {
        state.withLock { counts in
            counts.requests += 1
            if exchange.isFailure { counts.failures += 1 }
            if exchange.isPlaylist { counts.playlistLoads += 1 } else { counts.mediaFetches += 1 }
        }
    }
}
