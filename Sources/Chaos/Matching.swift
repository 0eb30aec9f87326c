import Addressing

/// Condition checks of a `Match` against request facts. The stateful parts (window, request counter,
/// attempts) live in `RuleEngine`; everything here is a pure function of the facts.
extension Match {
    /// Conditions about the resource itself (not the session clock or counters).
    func resourceConditionsHold(_ facts: RequestFacts, kinds effectiveKinds: Set<ResourceKind>?) -> Bool {
        if let effectiveKinds, !effectiveKinds.contains(facts.kind) { return false }
        if let variant {
            guard let facts = facts.variant, variant.selects(facts) else { return false }
        }
        if let rendition {
            guard let facts = facts.rendition, rendition.selects(facts) else { return false }
        }
        // Only variants have backup copies (`backupVariants`): renditions, the master and session
        // data are neither primary nor backup, so a `copy` condition never holds for them.
        if let copy, facts.variant == nil || facts.copy != copy { return false }
        if let pathways {
            guard let pathway = facts.pathway, pathways.contains(pathway) else { return false }
        }
        if let session, !Glob.matches(session, facts.sessionID) { return false }
        if let methods, !methods.contains(facts.method.uppercased()) { return false }
        if let range, facts.isRangeRequest != range { return false }
        if let blocking, facts.isBlockingReload != blocking { return false }
        if let cmcd, !cmcd.holds(facts.cmcd) { return false }
        return segmentConditionsHold(facts)
    }

    /// msn, part, index and time: a condition given on a resource without that fact does not hold.
    func segmentConditionsHold(_ facts: RequestFacts) -> Bool {
        if let msn {
            guard let value = facts.msn, msn.contains(value) else { return false }
        }
        if let part {
            guard let value = facts.part, part.contains(value) else { return false }
        }
        if let index {
            guard let value = facts.index, index.contains(value) else { return false }
        }
        if let time {
            guard let value = facts.mediaTime, time.contains(seconds: value) else { return false }
        }
        return true
    }

    /// The session-clock window [after, after + for).
    func windowContains(sessionTime: Duration) -> Bool {
        let opens = after ?? .zero
        if sessionTime < opens { return false }
        if let duration, sessionTime >= opens + duration { return false }
        return true
    }

    /// The seeded coin: the same session, rule, resource and attempt always give the same answer.
    func draw(_ facts: RequestFacts, rule: RuleReference, ordinal: Int) -> Bool {
        guard let probability else { return true }
        if probability >= 1 { return true }
        if probability <= 0 { return false }
        var hash = StableHash()
        hash.combine(seed)
        hash.combine(facts.sessionID)
        hash.combine(rule.scenario)
        hash.combine(rule.id)
        hash.combine(facts.resourceIdentity)
        hash.combine(ordinal)
        return hash.unitInterval < probability
    }
}
