import Chaos
import BundleFormat
import Foundation
import Records

/// `hlschaos import-har`: a HAR read, each request classified and judged, the faults turned into a
/// scenario, and what could not be reproduced listed with why. `write(to:)` writes the scenario
/// and a bundle of the content the HAR carries.
public struct HARImport: Sendable {
    public let file: String
    public let log: HARLog
    public let classifications: [HARClassification]
    public let observations: [HARObservation]
    public let rules: [HARRuleSpec]
    public let scenarioName: String
    /// The rule file; nil when the HAR shows nothing that went wrong (a scenario needs a rule).
    public let scenarioText: String?
    /// What could not be reproduced, and why, one line each.
    public let notes: [String]
    /// When the first HLS request started (the clock origin of the rules' time windows).
    public let origin: Date?
    /// Seconds of each entry from `origin`.
    public let offsets: [Double]
    public let catalog: HARPlaylistCatalog
    /// What the field device's player said through CMCD (`HARFieldPlayer`); nil when no HLS
    /// request carried CMCD.
    public let fieldPlayer: PlayerTimeline?

    /// Reads and analyses the HAR at `path`.
    public static func analyze(path: String, thresholds: HARThresholds = .init(), useProxyTags: Bool = true) throws(HARImportError) -> HARImport {
        try analyze(HARReader.read(path: path), file: path, thresholds: thresholds, useProxyTags: useProxyTags)
    }

    public static func analyze(_ log: HARLog, file: String, thresholds: HARThresholds = .init(), useProxyTags: Bool = true) throws(HARImportError) -> HARImport {
        let classifier = HARClassifier(entries: log.entries, useProxyTags: useProxyTags)
        let classifications = log.entries.map(classifier.classify)
        let reader = HAROutcomeReader(log: log, classifications: classifications, thresholds: thresholds)
        let observations = zip(log.entries, classifications).map { entry, classification in
            classification.isHLS ? reader.observe(entry, classification) : HARObservation(outcome: .ok, evidence: "not HLS")
        }
        let (origin, offsets) = Self.offsets(log.entries, classifications: classifications)
        var planner = HARRulePlanner(entries: log.entries, classifications: classifications, observations: observations,
                                     catalog: classifier.catalog, offsets: offsets)
        var rules = planner.plan()
        HARScenarioWriter.name(&rules, catalog: classifier.catalog)
        let name = HARScenarioWriter.name(forHAR: file)

        var scenarioText: String?
        if !rules.isEmpty {
            let text = HARScenarioWriter.text(name: name, description: Self.scenarioDescription(log, file: file, classifications: classifications,
                                                                                                 origin: origin, offsets: offsets, rules: rules),
                                              specs: rules)
            do {
                _ = try RuleDecoder.decode(Array(text.utf8), file: "scenario.json")
            } catch {
                // A bug here, not a problem with the HAR: say so rather than write a file that does not load.
                throw HARImportError(file: file, "the scenario made from it does not validate (a bug in import-har, please report it): "
                                     + error.problems.map(\.description).joined(separator: "; "))
            }
            scenarioText = text
        }
        let notes = Self.notes(log, classifications: classifications, observations: observations, unpinned: planner.unpinned,
                               thresholds: thresholds, reader: reader)
        return HARImport(file: file, log: log, classifications: classifications, observations: observations, rules: rules,
                         scenarioName: name, scenarioText: scenarioText, notes: notes, origin: origin, offsets: offsets,
                         catalog: classifier.catalog,
                         fieldPlayer: HARFieldPlayer.timeline(log, classifications: classifications, origin: origin))
    }

    /// Entries without a start time take the start of the entry before them (HAR order).
    static func starts(_ entries: [HAREntry]) -> [Date?] {
        var last: Date? = entries.compactMap(\.started).min()
        return entries.map { entry in
            if let started = entry.started { last = started }
            return last
        }
    }

    static func offsets(_ entries: [HAREntry], classifications: [HARClassification]) -> (Date?, [Double]) {
        let starts = starts(entries)
        let hls = zip(starts, classifications).compactMap { $1.isHLS ? $0 : nil }
        guard let origin = hls.min() ?? starts.compactMap({ $0 }).min() else { return (nil, entries.map { _ in 0 }) }
        return (origin, starts.map { $0.map { $0.timeIntervalSince(origin) } ?? 0 })
    }

    static func scenarioDescription(_ log: HARLog, file: String, classifications: [HARClassification], origin: Date?,
                                    offsets: [Double], rules: [HARRuleSpec]) -> String {
        let name = (file as NSString).lastPathComponent
        let hls = classifications.filter(\.isHLS).count
        var text = "What \(name) shows went wrong (a HAR by \(log.creatorText), \(hls) HLS request\(hls == 1 ? "" : "s")"
        if let origin {
            let span = zip(offsets, classifications).filter { $1.isHLS }.map(\.0).max() ?? 0
            text += " from \(RecordTime.iso8601(origin)) over \(HARFault.secondsText(span)) s"
        }
        text += "), as \(rules.count) rule\(rules.count == 1 ? "" : "s") made by hlschaos import-har."
        text += " Counters (requests) and times count from the session's first request, as the HAR's did from its first HLS request."
        return text
    }

    // MARK: - What was not reproduced

    static func notes(_ log: HARLog, classifications: [HARClassification], observations: [HARObservation],
                      unpinned: [(index: Int, reason: String)], thresholds: HARThresholds, reader: HAROutcomeReader) -> [String] {
        var notes: [String] = []
        let entries = log.entries

        let expectingBody = entries.filter { entry in
            entry.method != "HEAD" && entry.status != 204 && entry.status != 304 && entry.status != 0
                && ((entry.receivedBytes ?? 0) > 0 || (entry.contentSize ?? 0) > 0)
        }
        let missing = expectingBody.filter { $0.body == nil && $0.bodyProblem == nil }
        let missingFailed = missing.filter { $0.error != nil }
        let missingSaved = missing.filter { $0.error == nil }
        if !missingSaved.isEmpty {
            let why = log.isHLSChaos
                ? "hlschaos's HAR export keeps no bodies"
                : "the HAR was saved without content; export it with content to keep them"
            notes.append("bodies: \(missingSaved.count) of \(expectingBody.count) responses have no body in the HAR (\(why)): the bundle keeps those exchanges without their bodies, so a replay cannot serve them")
        }
        if !missingFailed.isEmpty {
            notes.append("bodies: \(missingFailed.count) response\(missingFailed.count == 1 ? "" : "s") that failed ha\(missingFailed.count == 1 ? "s" : "ve") no body in the HAR (\(HARScenarioWriter.entryList(missingFailed.map(\.index)))): a browser keeps none for a load that failed; the rules reproduce the failure, the bundle has no bytes for it")
        }
        for entry in entries { if let problem = entry.bodyProblem { notes.append("\(entry.path): body not kept: \(problem)") } }

        let undated = entries.filter { $0.started == nil }
        if !undated.isEmpty {
            notes.append("times: \(undated.count) entr\(undated.count == 1 ? "y has" : "ies have") no startedDateTime (\(HARScenarioWriter.entryList(undated.map(\.index)))): placed at the time of the entry before")
        }

        let others = zip(entries, classifications).filter { !$1.isHLS }.map(\.0)
        if !others.isEmpty {
            let failed = others.filter { $0.status == 0 || $0.status >= 400 }
            var line = "not HLS: \(others.count) request\(others.count == 1 ? " is" : "s are") not part of the stream (the page, scripts, images, API calls…): in the bundle, no rules"
            if !failed.isEmpty {
                let list = failed.prefix(4).map { "\($0.path) \($0.status == 0 ? ($0.error ?? "failed") : String($0.status)) \(Self.shortURL($0.url))" }
                line += "; \(failed.count) of them failed (\(list.joined(separator: ", "))\(failed.count > 4 ? ", …" : ""))"
            }
            notes.append(line)
        }

        let cancelled = zip(entries, observations).compactMap { entry, observation -> (HAREntry, String)? in
            if case .cancelled(let why) = observation.outcome { return (entry, why) }
            return nil
        }
        if !cancelled.isEmpty {
            notes.append("cancelled: \(cancelled.count) request\(cancelled.count == 1 ? " was" : "s were") \(cancelled[0].1) (\(HARScenarioWriter.entryList(cancelled.map(\.0.index)))): the client's choice (a player switching level or seeking), not a fault of the server")
        }

        let redirects = zip(entries, classifications).filter { $1.isHLS && (300..<400).contains($0.status) && $0.status != 304 }
        if !redirects.isEmpty {
            notes.append("redirects: \(redirects.count) HLS request\(redirects.count == 1 ? " was" : "s were") redirected (\(HARScenarioWriter.entryList(redirects.map(\.0.index)))): the origin's own answers, not faults; replay the bundle to get them")
        }

        for (index, reason) in unpinned {
            let evidence = observations[index].evidence
            let kind = classifications[index].target?.kind.rawValue ?? "playlist"
            notes.append("\(entries[index].path) (\(kind), \(evidence)): not pinned to a resource: \(reason); reproduced by session time instead")
        }

        // A request that looks slow but has too few peers to be judged against.
        for (index, entry) in entries.enumerated() where classifications[index].isHLS && observations[index].outcome == .ok {
            let group = HARPeers.group(classifications[index])
            let wait = HARPeers.serverWait(entry, isHLSChaos: log.isHLSChaos) ?? 0
            let receive = entry.timings.receive ?? 0
            guard wait >= thresholds.minimumDelay || receive >= thresholds.minimumSlowBody else { continue }
            let waitUnjudged = wait >= thresholds.minimumDelay && reader.peers.medianWait(group, minimum: thresholds.minimumPeers) == nil
            let bodyUnjudged = receive >= thresholds.minimumSlowBody && reader.peers.medianRate(group, minimum: thresholds.minimumPeers) == nil
            guard waitUnjudged || bodyUnjudged else { continue }
            let took = waitUnjudged ? "\(HARFault.secondsText(wait)) s to its first byte" : "\(HARFault.secondsText(receive)) s for its body"
            notes.append("\(entry.path) (\(group)) took \(took), but fewer than \(thresholds.minimumPeers) \(group) requests were answered normally to tell whether that is slow: not reproduced")
        }
        return notes
    }

    /// "cdn.example.com/live/seg1.ts" (no scheme, no query: tokens stay out of messages).
    static func shortURL(_ url: String) -> String {
        guard let components = URLComponents(string: url) else { return String(url.prefix(80)) }
        let text = (components.host ?? "") + (components.port.map { ":\($0)" } ?? "") + components.path
        return text.count > 80 ? String(text.prefix(77)) + "…" : text
    }
}
