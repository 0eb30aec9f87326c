import Records

extension ReportWords {
    /// What the player said through CMCD, in one line: "0.8 s of buffer at the first fault · lowest
    /// 0.2 s · 1 stall · started in 1.2 s"; nothing when no request carried CMCD.
    static func player(_ report: ReactionReport) -> [Finding] {
        guard let player = report.player else { return [] }
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
        guard !parts.isEmpty else { return [] }
        return [Finding(label: "player (CMCD)", words: parts.joined(separator: " · "), records: records, tone: player.stalls.isEmpty ? nil : .bad)]
    }
}
