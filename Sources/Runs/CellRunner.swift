import Chaos
import Foundation
import Players
import Proxy
import Records
import Verdicts

/// Where a run keeps each cell's evidence folder, and how results name it: relative to the
/// matrix's output folder (its pages link there), or absolute (a run's terminal lines and JUnit).
public struct EvidenceLocation: Sendable {
    public var root: URL
    public var relativeTo: URL?

    public init(root: URL, relativeTo: URL? = nil) {
        self.root = root
        self.relativeTo = relativeTo
    }

    func name(of folder: URL) -> String {
        guard let base = relativeTo?.standardizedFileURL.path, folder.standardizedFileURL.path.hasPrefix(base + "/") else { return folder.path }
        return String(folder.standardizedFileURL.path.dropFirst(base.count + 1))
    }
}

/// One scenario × player to run.
public struct CellPlan: Sendable {
    public var scenario: Scenario
    public var player: any PlayerDriver
    /// The demo stream path this scenario plays (a preset's `play` hint); nil: the run's source.
    public var path: String?
    public var live: Bool
    /// Seconds the player may run.
    public var timeout: Double
    /// Check only the documented expectations, not the player's own.
    public var documentedOnly: Bool

    public init(scenario: Scenario, player: any PlayerDriver, path: String? = nil, live: Bool, timeout: Double, documentedOnly: Bool = false) {
        self.scenario = scenario; self.player = player; self.path = path; self.live = live
        self.timeout = timeout; self.documentedOnly = documentedOnly
    }
}

/// Plays one cell through the harness: a fresh session with the scenario, the player on its URL,
/// then the verdict over the session's records and the player's report. Writes the evidence.
struct CellRunner {
    let harness: RunHarness
    /// Where evidence directories go (`<evidence>/<session>`); nil keeps none.
    let evidence: EvidenceLocation?
    let creatorVersion: String

    func run(_ plan: CellPlan, index: Int) async -> CellResult {
        let started = Date()
        let session = Self.sessionID(scenario: plan.scenario.name, player: plan.player.name, index: index)
        let proxy = harness.proxy.control
        proxy.openSession(session, scenario: plan.scenario)
        harness.prepare(session: session)
        let url = harness.sessionURL(session, path: plan.path)
        let evidence = self.evidence?.root.appendingPathComponent(session)
        let scratch = evidence ?? FileManager.default.temporaryDirectory.appendingPathComponent("hlschaos-\(session)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { if evidence == nil { try? FileManager.default.removeItem(at: scratch) } }

        let playing = Date()
        let report = await plan.player.play(PlayRequest(
            url: url, timeout: plan.timeout, live: plan.live, workDirectory: scratch, proxy: harness.playerProxy))
        let records = await settledRecords(session)
        harness.finish(session: session)
        // A live run is judged at its planned end, so that a player that quit early has stopped
        // fetching by then; a VOD run when the player is done, and every quiet player has stopped.
        let ended = plan.live ? max(Date(), playing.addingTimeInterval(plan.timeout)) : Date()
        var reaction = proxy.report(session: session, records: records, at: ended, vodRunEnded: !plan.live)
        reaction.addPlayerAccount(
            records: records, pageBuffer: report.buffer?.map { ($0.at, $0.ahead) } ?? [], stalls: report.stalls.map { ($0.at, $0.duration) })
        let expectations = Evaluator.expectations(for: plan.player.expectationName, in: plan.scenario.expectations, documentedOnly: plan.documentedOnly)
        let verdict = Evaluator.evaluate(
            expectations, records: records, reaction: reaction, player: report, live: plan.live, runEnded: ended,
            link: Self.linkObservation(proxy.link(session: session)))
        let cited = Set(verdict.results.filter { !$0.passed }.flatMap(\.evidence))
        // A response a rule changed, or one the session's link held back: the preset reached it.
        let faulted = records.filter { $0.isFaulted || $0.link != nil }.count
        let notApplicable = faulted == 0 ? Self.notApplicable(plan) : nil
        let result = CellResult(
            scenario: plan.scenario.name, reference: plan.scenario.reference, player: plan.player.name,
            playerVersion: report.version, session: session, url: url, live: plan.live,
            status: notApplicable != nil ? .notApplicable : verdict.passed ? .passed : .failed,
            problem: notApplicable, report: report, verdict: verdict,
            reaction: reaction, reactionWords: ReactionWords.summary(reaction: reaction, player: report, adaptation: verdict.adaptation),
            evidenceRecords: Array(records.filter { cited.contains($0.id) }.prefix(20)),
            requests: records.count, faultedRequests: faulted,
            evidence: evidence.map { self.evidence?.name(of: $0) ?? $0.path }, seconds: Date().timeIntervalSince(started))
        if let evidence {
            Evidence.write(to: evidence, records: records, result: result, baseURL: harness.proxyURL, creatorVersion: creatorVersion)
        }
        _ = proxy.removeSession(session)
        return result
    }

    /// What the session's link offered and delivered, for the adaptation checks; nil when the
    /// session had no link.
    static func linkObservation(_ view: ProxyControl.LinkView?) -> LinkObservation? {
        guard let view, !view.snapshot.buckets.isEmpty else { return nil }
        return LinkObservation(
            buckets: view.snapshot.buckets, clockZero: view.at.addingTimeInterval(-view.snapshot.now.seconds),
            ladder: view.ladder, until: view.snapshot.now)
    }

    /// Why a cell that faulted nothing has nothing to judge: an LL stream played by a player
    /// that reads LL-HLS as ordinary live never makes the requests an LL fault targets, and the
    /// steering stream played by one that ignores content steering never fetches its manifest.
    static func notApplicable(_ plan: CellPlan) -> String? {
        if plan.path?.hasPrefix("/ll/") == true, case .wholeSegments(let reason) = plan.player.lowLatency {
            return "plays LL-HLS as ordinary live: \(reason)"
        }
        if plan.path?.hasPrefix("/steering/") == true, case .ignores(let reason) = plan.player.contentSteering {
            return "ignores content steering: \(reason)"
        }
        return nil
    }

    /// The session's records once every request the proxy counted for it has its record (records
    /// are emitted when a response ends; a stopped player's requests end as client aborts within
    /// moments). Woken by the session's records as they arrive, not by the clock; after
    /// `settlePatience` without that (a record the ring no longer holds), what is there.
    private func settledRecords(_ session: String) async -> [RequestRecord] {
        let proxy = harness.proxy.control
        let arrivals = proxy.subscribe(bufferingNewest: 1) { $0.session == session }
        let settled: @Sendable () -> Bool = {
            let counted = proxy.session(session)?.requestCount ?? 0
            return proxy.records(session: session).count >= counted
        }
        if !settled() {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in arrivals where settled() { return } }
                group.addTask { try? await Task.sleep(for: Self.settlePatience) }
                await group.next()
                group.cancelAll()
            }
        }
        return proxy.records(session: session)
    }

    static let settlePatience = Duration.seconds(5)

    /// "status-503-hlsjs-3": what the proxy accepts as a session name (letters, digits, '.', '_', '-').
    static func sessionID(scenario: String, player: String, index: Int) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let clean = { (text: String) in String(text.map { allowed.contains($0) ? $0 : "_" }.prefix(28)) }
        return "\(clean(scenario))-\(clean(player))-\(index)"
    }
}
