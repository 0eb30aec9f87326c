import Foundation

extension ReactionReport.PlayerSummary {
    /// The summary of a timeline read elsewhere (a field device's, `import-har`'s `player.json`):
    /// its lowest buffer, stalls and startup; no faults (none were made there).
    public init(timeline: PlayerTimeline) {
        self.init(requestsWithCMCD: timeline.requestsWithCMCD, faults: [], lowestBuffer: timeline.lowestBuffer,
                  stalls: timeline.saidStalls, startup: timeline.startup)
    }
}

extension ReactionReport {
    /// A replayed HAR import's field player beside this session's own: `fieldPlayer` is set and
    /// the verdict gains a sentence ("The field player (the HAR's CMCD) reported 0.4 s at its
    /// lowest; 2 stalls; it started in 1.2 s").
    public mutating func addFieldPlayer(_ timeline: PlayerTimeline) {
        let field = PlayerSummary(timeline: timeline)
        fieldPlayer = field
        verdict += (verdict.isEmpty ? "" : " ") + Self.fieldPlayerSentence(field) + "."
    }

    static func fieldPlayerSentence(_ field: PlayerSummary) -> String {
        var clauses: [String] = []
        if let lowest = field.lowestBuffer { clauses.append("reported \(seconds(Double(lowest.bufferLength) / 1000)) of buffer at its lowest") }
        clauses.append(field.stalls.isEmpty ? "no stall" : "\(field.stalls.count) stall\(field.stalls.count == 1 ? "" : "s")")
        if let startup = field.startup { clauses.append("it started in \(seconds(startup.seconds))") }
        return "The field player (the HAR's CMCD, \(field.requestsWithCMCD) request\(field.requestsWithCMCD == 1 ? "" : "s")) "
            + clauses.joined(separator: "; ")
    }
}
