import Foundation

extension ReactionReport {
    /// The player's own account, from CMCD: what its buffer was when each fault hit, its lowest
    /// buffer, its stalls and how long it took to start. Times are seconds since the session's first request.
    public struct PlayerSummary: Sendable, Codable, Equatable {
        public var requestsWithCMCD: Int
        /// Each faulted request, with the buffer the player reported in it (or in its latest earlier request).
        public var faults: [FaultBuffer]
        public var lowestBuffer: PlayerTimeline.BufferMark?
        /// One per stall the player said (`PlayerTimeline.saidStalls`).
        public var stalls: [PlayerTimeline.Stall]
        public var startup: PlayerTimeline.Startup?
        /// A stall the player had (a segment held longer than its claimed buffer, or its driver's
        /// report) that no later request said with `bs` or `sta=r`: the conformance issue in words.
        public var stallsNotSaid: String?
        /// Its claimed buffer beside the page's own (a run with a browser driver).
        public var pageBuffer: PageBufferCheck?
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
            stalls: timeline.saidStalls, startup: timeline.startup,
            stallsNotSaid: CMCDSessionConformance.unsaidStallIssue(records)?.description)
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
        let said = player.stalls
        if !said.isEmpty { clauses.append("it reported \(said.count) stall\(said.count == 1 ? "" : "s") (CMCD, \(said[0].source))") }
        if let startup = player.startup { clauses.append("it started in \(seconds(startup.seconds))") }
        var sentences: [String] = []
        if !clauses.isEmpty {
            let sentence = clauses.joined(separator: "; ")
            sentences.append(sentence.prefix(1).uppercased() + sentence.dropFirst())
        }
        if let check = player.pageBuffer { sentences.append(check.words) }
        if let unsaid = player.stallsNotSaid { sentences.append("CMCD conformance: \(unsaid)") }
        return sentences
    }
}

extension ReactionReport.PageBufferCheck {
    /// "Its CMCD buffer (bl) was 0.2 s off the page's own in the median of 12 requests, at most 2.1 s
    /// (request 31 at 8.3 s: 4.0 s claimed, 1.9 s on the page)", or "… was persistently off …".
    public var words: String {
        func seconds(_ value: Double) -> String { ReactionReport.seconds(value) }
        let most = "at most \(seconds(abs(largest.difference))) (request \(largest.record) at \(seconds(largest.time)): "
            + "\(seconds(largest.claimed)) claimed, \(seconds(largest.page)) on the page)"
        let requests = "\(compared) request\(compared == 1 ? "" : "s")"
        if persistentlyOff {
            return "Its CMCD buffer (bl) was persistently off the page's own: by \(seconds(medianAbsoluteDifference)) in the median of \(requests), "
                + "more than the \(seconds(tolerance)) tolerance (\(medianDifference > 0 ? "claiming more" : "claiming less") than there was); " + most
        }
        return "Its CMCD buffer (bl) was \(seconds(medianAbsoluteDifference)) off the page's own in the median of \(requests), " + most
    }
}
