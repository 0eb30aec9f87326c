import Foundation

/// The figures in words: the one place that puts them so, for the reaction words of a run and
/// the matrix ("went down 3.4 s after the link fell below variant 3; back up 11.0 s after it
/// recovered; 2 stalls, 4.1 s in all; used 71 % of the link; 2 switches (1.3 a minute)") and
/// for what the link checks say they saw.
extension AdaptationFigures {
    public var words: String {
        var parts: [String] = []
        if !falls.isEmpty { parts.append(Self.downWords(falls)) }
        let recoveries = falls.filter(\.judgesUp)
        if !recoveries.isEmpty { parts.append(Self.upWords(recoveries)) }
        if let stalls { parts.append(Self.stallWords(count: stalls, seconds: stallSeconds ?? 0) + (stallSource == .cmcd ? " (the player's CMCD)" : "")) }
        if let utilisation { parts.append("used \(Self.percent(utilisation)) of the link") }
        parts.append(switches == 0 ? "no switch" : "\(switches) switch\(switches == 1 ? "" : "es") (\(Self.number(switchesPerMinute)) a minute)")
        if overshoot > 0 { parts.append(overshootWords) }
        return parts.joined(separator: "; ")
    }

    /// "5.2 s on a variant the link could not carry".
    var overshootWords: String { "\(Self.seconds(overshoot)) on a variant the link could not carry" }

    /// One fall: "went down 3.4 s after the link fell below variant 3"; several: "went down 2.1–3.4 s
    /// after the link fell below the variant in use (3 times)", "went down 2 of 3 times …".
    static func downWords(_ falls: [Fall]) -> String {
        if falls.count == 1 { return falls[0].downWords }
        let delays = falls.compactMap(\.wentDownAfter)
        let times = "the link fell below the variant in use"
        if delays.isEmpty { return "did not go down the \(falls.count) times \(times)" }
        if delays.count == falls.count { return "went down \(range(delays)) after \(times) (\(falls.count) times)" }
        return "went down \(delays.count) of \(falls.count) times \(times) (\(range(delays)) after)"
    }

    /// The falls the link recovered from with the player below where it had been.
    static func upWords(_ recoveries: [Fall]) -> String {
        if recoveries.count == 1 { return recoveries[0].upWords(subject: "it") }
        let delays = recoveries.compactMap(\.wentUpAfter)
        if delays.isEmpty { return "did not go back up the \(recoveries.count) times it recovered" }
        if delays.count == recoveries.count { return "back up \(range(delays)) after it recovered (\(recoveries.count) times)" }
        return "back up \(delays.count) of \(recoveries.count) times it recovered (\(range(delays)) after)"
    }

    /// "no stall", "1 stall, 2.0 s", "2 stalls, 4.1 s in all".
    static func stallWords(count: Int, seconds total: Double) -> String {
        switch count {
        case 0: "no stall"
        case 1: "1 stall, \(seconds(total))"
        default: "\(count) stalls, \(seconds(total)) in all"
        }
    }

    /// "3.4 s".
    static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }

    /// "71 %".
    static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded())) %" }

    /// "2", "1.5", "0.33".
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// "3.4 s", "2.1–3.4 s".
    static func range(_ values: [Double]) -> String {
        guard let low = values.min(), let high = values.max() else { return "" }
        let lowText = String(format: "%.1f", low), highText = String(format: "%.1f", high)
        return lowText == highText ? "\(highText) s" : "\(lowText)–\(highText) s"
    }
}

extension AdaptationFigures.Fall {
    /// The link recovered while the player was below the variant it had been on: an up-switch is
    /// what it should answer.
    var judgesUp: Bool { recoveredAfter != nil && neededUp }

    /// "went down 3.4 s after the link fell below variant 3", "did not go down in the 20.0 s the
    /// link stayed below variant 3".
    var downWords: String {
        if let after = wentDownAfter {
            return "went down \(AdaptationFigures.seconds(after)) after the link fell below variant \(variant)"
        }
        return "did not go down in the \(AdaptationFigures.seconds(below)) the link stayed below variant \(variant)"
    }

    /// "back up 11.0 s after it recovered", "did not go back up in the 30.0 s after it recovered";
    /// `subject` names the link ("it" after words about the fall).
    func upWords(subject: String) -> String {
        if let after = wentUpAfter { return "back up \(AdaptationFigures.seconds(after)) after \(subject) recovered" }
        return "did not go back up in the \(AdaptationFigures.seconds(recoveredFor ?? 0)) after \(subject) recovered"
    }
}
