import Foundation
import Players

/// Plays every cell through one harness, several at once (`jobs`; one at a time through a forward
/// harness), and returns the results in plan order. A player that is not installed, or cannot play
/// through a forward proxy when the harness is one, gives `couldNotRun` cells naming what to do;
/// the others still run.
public enum ChaosRun {
    public static func run(
        _ plans: [CellPlan], harness: RunHarness, evidence: EvidenceLocation?, jobs: Int, creatorVersion: String,
        onResult: @escaping @Sendable (CellResult) -> Void = { _ in }
    ) async -> [CellResult] {
        var missing: [String: String] = [:]
        var checked: Set<String> = []
        for plan in plans where checked.insert(plan.player.name).inserted {
            if harness.route != .reverse && !plan.player.playsThroughProxy {
                missing[plan.player.name] = Self.notThroughProxy(plan.player.name, route: harness.route)
                continue
            }
            if case .missing(let reason, let install) = await plan.player.availability() {
                missing[plan.player.name] = "\(plan.player.name) is not available (\(reason)); install it with: \(install)"
            }
        }
        let runner = CellRunner(harness: harness, evidence: evidence, creatorVersion: creatorVersion)
        var results = [CellResult?](repeating: nil, count: plans.count)
        await withTaskGroup(of: (Int, CellResult).self) { group in
            var next = 0
            // A cancelled run (the command was interrupted) starts no more cells; those in
            // progress stop their players.
            func startNext() {
                while next < plans.count && !Task.isCancelled {
                    let index = next
                    let plan = plans[index]
                    next += 1
                    if let problem = missing[plan.player.name] {
                        let result = CellResult.couldNotRun(
                            scenario: plan.scenario.name, reference: plan.scenario.reference, player: plan.player.name, problem: problem)
                        results[index] = result
                        onResult(result)
                        continue
                    }
                    group.addTask { (index, await runner.run(plan, index: index + 1)) }
                    return
                }
            }
            for _ in 0..<max(1, min(jobs, harness.concurrentCells ?? jobs)) { startNext() }
            for await (index, result) in group {
                results[index] = result
                onResult(result)
                startNext()
            }
        }
        return results.compactMap { $0 }
    }

    static func notThroughProxy(_ player: String, route: RunRoute) -> String {
        let what = route == .forward ? "a proxy and the local CA's root" : "the local CA's root to trust"
        return "\(player) is not supported with --via \(route.rawValue) yet (hlschaos cannot give it \(what)); "
            + "players that are: \(PlayerCatalog.all.filter(\.playsThroughProxy).map(\.name).joined(separator: ", "))"
    }

    /// 0 when every cell passed, 2 when any could not run, else 1.
    public static func exitCode(_ results: [CellResult]) -> Int32 {
        if results.contains(where: { $0.status == .couldNotRun }) { return 2 }
        return results.allSatisfy { $0.status == .passed || $0.status == .notApplicable } ? 0 : 1
    }
}
