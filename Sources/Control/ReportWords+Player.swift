import Records

extension ReportWords {
    /// What the player said through CMCD, in one line: "0.8 s of buffer at the first fault · lowest
    /// 0.2 s · 1 stall · started in 1.2 s"; nothing when no request carried CMCD. Then a stall it
    /// never said (CMCD conformance), and a replayed HAR's field player beside it.
    static func player(_ report: ReactionReport) -> [Finding] {
        var found: [Finding] = []
        if let player = report.player, let line = summary(player) {
            found.append(Finding(label: "player (CMCD)", words: line.words, records: line.records, tone: player.stalls.isEmpty ? nil : .bad))
        }
        if let unsaid = report.player?.stallsNotSaid {
            found.append(Finding(label: "CMCD conformance", words: unsaid, tone: .bad))
        }
        if let field = report.fieldPlayer, let line = summary(field) {
            // The field session's records are not this session's: no record ids.
            found.append(Finding(label: "field player (CMCD)", words: line.words + (field.stalls.isEmpty ? " · no stall" : "")))
        }
        return found
    }

    static func summary(_ player: ReactionReport.PlayerSummary) -> (words: String, records: [UInt64])? {
        var parts: [String] = []
        var records: [UInt64] = []
        if let fault = player.faults.first, let buffer = fault.bufferLength {
            parts.append("\(seconds(Double(buffer) / 1000)) of buffer at the first fault")
            records.append(fault.record)
        }
        if let lowest = player.lowestBuffer {
            parts.append("lowest \(seconds(Double(lowest.bufferLength) / 1000))")
            records.append(lowest.record)
        }
        if !player.stalls.isEmpty {
            parts.append("\(player.stalls.count) stall\(player.stalls.count == 1 ? "" : "s")")
            records += player.stalls.prefix(5).map(\.record)
        }
        if let startup = player.startup { parts.append("started in \(seconds(startup.seconds))") }
        guard !parts.isEmpty else { return nil }
        return (parts.joined(separator: " · "), records)
    }
}
