import Foundation

extension ReactionReport {
    /// The player's own account, from CMCD: what its buffer was when each fault hit, its lowest
    /// buffer, its stalls and how long it took to start. Times are seconds since the session's first request.
    public struct PlayerSummary: Sendable, Codable, Equatable {
        public var requestsWithCMCD: Int
        /// Each faulted request, with the buffer the player reported in it (or in its latest earlier request).
        public var faults: [FaultBuffer]
        public var lowestBuffer: PlayerTimeline.BufferMark?
        public var stalls: [PlayerTimeline.Stall]
        public var startup: PlayerTimeline.Startup?
    }

    public struct FaultBuffer: Sendable, Codable, Equatable {
        public var record: UInt64
        public var time: Double
        /// ms; nil when the player had not reported a buffer yet.
        public var bufferLength: Int?
    }

    /// At most this many faults are listed with their buffer.
    static let maxFaultBuffers = 200

    static func player(in records: [RequestRecord]) -> PlayerSummary? {
        guard let origin = records.first?.time, records.contains(where: { $0.cmcd != nil }) else { return nil }
        let timeline = PlayerTimeline.build(records)
        let faults = records.lazy.filter(\.isFaulted).prefix(maxFaultBuffers).map {
            FaultBuffer(record: $0.id, time: $0.time.timeIntervalSince(origin), bufferLength: timeline.bufferLength(atOrBefore: $0, origin: origin))
        }
        return PlayerSummary(
            requestsWithCMCD: timeline.requestsWithCMCD, faults: Array(faults), lowestBuffer: timeline.lowestBuffer,
            stalls: timeline.stalls, startup: timeline.startup)
    }
}

extension ReactionReport {
    /// "The player reported 1.8 s of buffer at the first fault, 0.4 s at its lowest; it reported 1 stall; it started in 1.2 s".
    static func playerSentences(_ player: PlayerSummary) -> [String] {
        var clauses: [String] = []
        if let first = player.faults.first, let buffer = first.bufferLength {
            clauses.append("the player reported \(seconds(Double(buffer) / 1000)) of buffer at the first fault")
        }
        if let lowest = player.lowestBuffer {
            clauses.append("\(seconds(Double(lowest.bufferLength) / 1000)) at its lowest")
        }
        if !player.stalls.isEmpty { clauses.append("it reported \(player.stalls.count) stall\(player.stalls.count == 1 ? "" : "s") (CMCD)") }
        if let startup = player.startup { clauses.append("it started in \(seconds(startup.seconds))") }
        guard !clauses.isEmpty else { return [] }
        let sentence = clauses.joined(separator: "; ")
        return [sentence.prefix(1).uppercased() + sentence.dropFirst()]
    }
}
