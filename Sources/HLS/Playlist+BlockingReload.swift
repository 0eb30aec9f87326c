extension Playlist {
    /// How far a media playlist reaches, as LL-HLS blocking reloads see it (rfc8216bis §6.2.5.2):
    /// its last complete segment and how many parts of the segment after it are listed.
    public struct Edge: Sendable, Hashable {
        public var lastComplete: Int
        public var trailingParts: Int

        public init(lastComplete: Int, trailingParts: Int) {
            self.lastComplete = lastComplete
            self.trailingParts = trailingParts
        }

        /// Whether the playlist holds what a blocking reload for `_HLS_msn=msn` (`&_HLS_part=part`)
        /// waits for: segment `msn` complete, or that part of it listed. Segments that have left a
        /// live window count as held.
        public func holds(msn: Int, part: Int?) -> Bool {
            if msn <= lastComplete { return true }
            guard msn == lastComplete + 1, let part else { return false }
            return part < trailingParts
        }

        /// What a client's next blocking reload asks for: the part after the last one listed.
        public var next: (msn: Int, part: Int) { (lastComplete + 1, trailingParts) }
    }

    public var edge: Edge {
        Edge(lastComplete: segments.last?.msn ?? (mediaSequence - 1), trailingParts: trailingParts.count)
    }

    /// What a client's next blocking reload asks for; nil for a playlist without parts (`EXT-X-PART-INF`).
    public var nextPartToAskFor: (msn: Int, part: Int)? { partTarget == nil ? nil : edge.next }
}
