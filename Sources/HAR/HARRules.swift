import Addressing
import Chaos
import BundleFormat
import Foundation

/// One rule of the imported scenario, before it is written: which requests it matches, what it
/// does, and which entries of the HAR it stands for.
public struct HARRuleSpec: Sendable, Equatable {
    public var id = ""
    public var kind: ResourceKind?
    /// Matches both playlist kinds (a playlist whose body the HAR did not keep).
    public var anyPlaylist = false
    public var variant: Int?
    public var rendition: RenditionFacts?
    public var backup = false
    public var msn: ClosedRange<Int>?
    /// An LL-HLS part's index (with `msn`).
    public var part: Int?
    /// The n-th matching requests (1-based, inclusive; `to` nil: from `from` on). nil: every one.
    public var requests: (from: Int, to: Int?)?
    /// A window on the session clock, in seconds, for faults the HAR does not pin to a resource.
    public var window: (after: Double, duration: Double)?
    public var fault: HARFault
    /// `log.entries` indexes it reproduces.
    public var entries: [Int]
    /// The status of the request that came after the faulted ones, when one succeeded (a retry),
    /// and its entry.
    public var thenStatus: Int?
    public var thenEntry: Int?
    public var pinning: HARPinning?
    public var approximation: String?
    public var description = ""

    public static func == (a: HARRuleSpec, b: HARRuleSpec) -> Bool {
        a.id == b.id && a.kind == b.kind && a.anyPlaylist == b.anyPlaylist && a.variant == b.variant && a.rendition == b.rendition
            && a.backup == b.backup && a.msn == b.msn && a.part == b.part && a.requests?.from == b.requests?.from && a.requests?.to == b.requests?.to
            && a.window?.after == b.window?.after && a.window?.duration == b.window?.duration && a.fault == b.fault
            && a.entries == b.entries && a.thenStatus == b.thenStatus && a.thenEntry == b.thenEntry
    }
}

/// Turns the faulted entries into rules. Pinned faults (kind, and variant or rendition, and MSN for
/// segments) become rules on that resource; repeated requests for it (retries, reloads) are told
/// apart by the `requests` counter, so that a retry that succeeded replays as fail-then-succeed.
/// Faults the HAR does not pin become rules on a window of the session clock.
struct HARRulePlanner {
    let entries: [HAREntry]
    let classifications: [HARClassification]
    let observations: [HARObservation]
    let catalog: HARPlaylistCatalog
    /// Seconds of each entry from the first HLS request (the replay session's clock origin).
    let offsets: [Double]
    /// Entries that could not be turned into a rule, with why.
    var unpinned: [(index: Int, reason: String)] = []

    init(entries: [HAREntry], classifications: [HARClassification], observations: [HARObservation],
         catalog: HARPlaylistCatalog, offsets: [Double]) {
        self.entries = entries; self.classifications = classifications; self.observations = observations
        self.catalog = catalog; self.offsets = offsets
    }

    /// The resource a rule can name for this target; nil with a reason when a rule cannot.
    private func resourceKey(_ target: HARTarget) -> (HARTarget?, String?) {
        if target.iFrameVariant != nil { return (nil, "an I-frame playlist's request: a rule cannot single out I-frame playlists") }
        if let rendition = target.rendition {
            guard let facts = catalog.renditions[rendition] else {
                return (nil, "rendition \(rendition) of a master the HAR does not carry: a rule names renditions by type and language")
            }
            guard HARScenarioWriter.renditionSelector(facts) != nil else {
                return (nil, "its rendition has no language or name a rule can select it by")
            }
        }
        switch target.kind {
        case .segment:
            guard target.msn != nil else { return (nil, "the HAR does not say which segment (no media playlist in it lists this URL)") }
            if target.variant == nil, target.rendition == nil, catalog.masterCount > 0 || catalog.mediaPlaylistCount > 1 {
                return (nil, "the HAR does not say which variant or rendition the segment belongs to")
            }
        case .part:
            guard target.msn != nil, target.part != nil else { return (nil, "the HAR does not say which part (no media playlist in it lists this URL)") }
            if target.variant == nil, target.rendition == nil, catalog.masterCount > 0 || catalog.mediaPlaylistCount > 1 {
                return (nil, "the HAR does not say which variant or rendition the part belongs to")
            }
        case .media, .`init`, .key:
            guard target.variant != nil || target.rendition != nil || catalog.masterCount == 0 else {
                return (nil, "the HAR does not say which variant or rendition it belongs to")
            }
        case .master, .sessionData, .steering:
            break
        }
        var key = target
        if key.kind != .segment && key.kind != .part { key.msn = nil }
        if key.kind != .part { key.part = nil }
        return (key, nil)
    }

    mutating func plan() -> [HARRuleSpec] {
        var attempts: [HARTarget: [Int]] = [:]
        var order: [HARTarget] = []
        var loose: [Int] = []
        let ordered = entries.indices.sorted { (offsets[$0], $0) < (offsets[$1], $1) }
        for index in ordered where classifications[index].isHLS {
            if observations[index].outcome == .cached { continue }
            guard let target = classifications[index].target else {
                if observations[index].outcome.fault != nil {
                    loose.append(index)
                    unpinned.append((index, "a playlist whose body the HAR did not keep: master or media playlist, and which one, it does not say"))
                }
                continue
            }
            let (key, reason) = resourceKey(target)
            guard let key else {
                if observations[index].outcome.fault != nil {
                    loose.append(index)
                    unpinned.append((index, reason ?? "its resource could not be pinned"))
                }
                continue
            }
            if attempts[key] == nil { order.append(key) }
            attempts[key, default: []].append(index)
        }

        var pinned: [HARRuleSpec] = []
        for key in order { pinned += rules(for: key, attempts: attempts[key] ?? []) }
        var specs = mergeRanges(pinned)
        specs += windowRules(loose)
        return specs
    }

    /// Runs of identical faults among the requests for one resource, each a rule with the
    /// ordinals it covers.
    private func rules(for key: HARTarget, attempts: [Int]) -> [HARRuleSpec] {
        var specs: [HARRuleSpec] = []
        var position = 0
        while position < attempts.count {
            guard let fault = observations[attempts[position]].outcome.fault else { position += 1; continue }
            var end = position
            while end + 1 < attempts.count, observations[attempts[end + 1]].outcome.fault == fault { end += 1 }
            var spec = HARRuleSpec(fault: fault, entries: Array(attempts[position...end]))
            spec.kind = key.kind
            spec.variant = key.variant
            spec.rendition = key.rendition.flatMap { catalog.renditions[$0] }
            spec.backup = key.backup
            spec.msn = key.msn.map { $0...$0 }
            spec.part = key.part
            spec.pinning = classifications[attempts[position]].pinning
            spec.approximation = observations[attempts[position]].approximation
            let whole = position == 0 && end == attempts.count - 1
            if !whole { spec.requests = (position + 1, end == attempts.count - 1 ? nil : end + 1) }
            if end + 1 < attempts.count {
                let next = entries[attempts[end + 1]]
                if observations[attempts[end + 1]].outcome.fault == nil, next.status != 0 {
                    spec.thenStatus = next.status
                    spec.thenEntry = attempts[end + 1]
                }
            }
            specs.append(spec)
            position = end + 1
        }
        return specs
    }

    /// Segment rules that hold for every request of consecutive MSNs of one variant or rendition,
    /// with the same fault, become one rule with an MSN range.
    private func mergeRanges(_ specs: [HARRuleSpec]) -> [HARRuleSpec] {
        var merged: [HARRuleSpec] = []
        for spec in specs {
            if spec.kind == .segment, spec.requests == nil, let msn = spec.msn,
               let last = merged.indices.last(where: { candidate in
                   let other = merged[candidate]
                   return other.kind == .segment && other.requests == nil && other.variant == spec.variant
                       && other.rendition == spec.rendition && other.backup == spec.backup && other.fault == spec.fault
                       && other.msn.map { range in
                           (range.upperBound < Int.max && range.upperBound + 1 == msn.lowerBound)
                               || (msn.upperBound < Int.max && range.lowerBound == msn.upperBound + 1)
                       } == true
               }) {
                let range = merged[last].msn!
                merged[last].msn = min(range.lowerBound, msn.lowerBound)...max(range.upperBound, msn.upperBound)
                merged[last].entries += spec.entries
                if merged[last].approximation == nil { merged[last].approximation = spec.approximation }
                continue
            }
            merged.append(spec)
        }
        return merged
    }

    /// Faults the HAR does not pin to a resource: a window of the session clock around them
    /// (half a second before the first, a second after the last, clusters split by gaps over 2 s),
    /// narrowed to the kind when it is known and to the n-th requests of that kind in the window.
    private func windowRules(_ loose: [Int]) -> [HARRuleSpec] {
        struct Group: Hashable { var kind: ResourceKind?; var fault: HARFault }
        var groups: [Group: [Int]] = [:]
        var order: [Group] = []
        for index in loose {
            guard let fault = observations[index].outcome.fault else { continue }
            let group = Group(kind: classifications[index].target?.kind, fault: fault)
            if groups[group] == nil { order.append(group) }
            groups[group, default: []].append(index)
        }
        var specs: [HARRuleSpec] = []
        for group in order {
            let members = (groups[group] ?? []).sorted { (offsets[$0], $0) < (offsets[$1], $1) }
            var clusters: [[Int]] = []
            for index in members {
                if let last = clusters.last?.last, offsets[index] - offsets[last] <= 2 {
                    clusters[clusters.count - 1].append(index)
                } else {
                    clusters.append([index])
                }
            }
            for cluster in clusters {
                let first = offsets[cluster.first!], last = offsets[cluster.last!]
                let after = max(0, ((first - 0.5) * 10).rounded(.down) / 10)
                let duration = ((last + 1.0 - after) * 10).rounded(.up) / 10
                // The requests of that kind the session makes in the window, as the HAR shows them.
                let inWindow = entries.indices.filter { index in
                    guard classifications[index].isHLS, observations[index].outcome != .cached,
                          offsets[index] >= after, offsets[index] < after + duration else { return false }
                    guard let kind = group.kind else {
                        let target = classifications[index].target
                        return target == nil || target?.kind == .master || target?.kind == .media
                    }
                    return classifications[index].target?.kind == kind
                }.sorted { (offsets[$0], $0) < (offsets[$1], $1) }
                let ordinals = cluster.compactMap { index in inWindow.firstIndex(of: index).map { $0 + 1 } }
                for run in Self.contiguousRuns(ordinals) {
                    var spec = HARRuleSpec(fault: group.fault, entries: run.map { inWindow[$0 - 1] })
                    spec.kind = group.kind
                    spec.anyPlaylist = group.kind == nil
                    spec.window = (after, duration)
                    if !(run.first == 1 && run.last == inWindow.count) {
                        spec.requests = (run.first!, run.last == inWindow.count ? nil : run.last!)
                    }
                    spec.pinning = nil
                    spec.approximation = observations[spec.entries[0]].approximation
                    specs.append(spec)
                }
            }
        }
        return specs
    }

    static func contiguousRuns(_ numbers: [Int]) -> [[Int]] {
        var runs: [[Int]] = []
        for number in numbers.sorted() {
            if let last = runs.last?.last, last + 1 == number { runs[runs.count - 1].append(number) } else { runs.append([number]) }
        }
        return runs
    }
}
