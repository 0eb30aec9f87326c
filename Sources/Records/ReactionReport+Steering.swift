import Foundation

extension ReactionReport {
    /// Content steering in one session: the pathways the player's media came from, and its reloads of
    /// the steering manifest. Absent when the session had no request of a pathway or for a manifest.
    public struct Steering: Sendable, Codable, Equatable {
        /// The pathway of the first variant segment (or part) that named one.
        public var firstPathway: String?
        /// Each change of the pathway the player's variant segments came from.
        public var moves: [PathwayMove]
        /// Ids of the steering manifest requests, in time order.
        public var reloads: [UInt64]
        /// How many of them failed.
        public var failedReloads: Int
        /// Median seconds between two manifest requests (nil with fewer than two).
        public var medianInterval: Double?

        public init(firstPathway: String? = nil, moves: [PathwayMove] = [], reloads: [UInt64] = [],
                    failedReloads: Int = 0, medianInterval: Double? = nil) {
            self.firstPathway = firstPathway; self.moves = moves; self.reloads = reloads
            self.failedReloads = failedReloads; self.medianInterval = medianInterval
        }
    }

    public struct PathwayMove: Sendable, Codable, Equatable {
        /// The first request of the new pathway's segments.
        public var time: Date
        public var from: String
        public var to: String
        /// The last segment request of `from`, the first of `to`.
        public var records: [UInt64]

        public init(time: Date, from: String, to: String, records: [UInt64]) {
            self.time = time; self.from = from; self.to = to; self.records = records
        }
    }

    /// Reads `Steering` off chronological records; nil when nothing in them is about steering.
    ///
    /// A move is the first variant segment (or part) of another pathway for a media sequence number
    /// beyond every one loaded so far: the player carries on from there. Segments of the same
    /// numbers fetched from every variant at start (ffmpeg probes each one) are no move.
    static func steering(in records: [RequestRecord]) -> Steering? {
        var steering = Steering()
        var last: RequestRecord?  // the last segment of the pathway in use
        var highestLoaded: Int?
        for record in records where record.isMediaData && record.variant != nil {
            guard let pathway = record.pathway else { continue }
            if steering.firstPathway == nil { steering.firstPathway = pathway }
            if let from = last?.pathway, from != pathway {
                guard let msn = record.msn, msn > highestLoaded ?? Int.min else { continue }
                steering.moves.append(PathwayMove(time: record.time, from: from, to: pathway, records: [last?.id ?? record.id, record.id]))
            }
            last = record
            if !record.countsAsFailure, let msn = record.msn { highestLoaded = max(highestLoaded ?? msn, msn) }
        }
        let manifests = records.filter { $0.kind == .steering }
        steering.reloads = manifests.map(\.id)
        steering.failedReloads = manifests.filter(\.countsAsFailure).count
        let intervals = zip(manifests, manifests.dropFirst()).map { $1.time.timeIntervalSince($0.time) }.sorted()
        steering.medianInterval = intervals.isEmpty ? nil : intervals[intervals.count / 2]
        return steering.firstPathway == nil && manifests.isEmpty ? nil : steering
    }
}
