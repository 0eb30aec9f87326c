import Foundation
import Records

/// The variant the player was on over time, read off its segment requests: from its first variant
/// segment, then each switch of the reaction report (the new variant's playlist when it was loaded
/// between the two segments, else its first segment). Up and down switches count as switches; a
/// lateral one (the same BANDWIDTH, such as a pathway's twin) changes the variant but is no
/// adaptation.
struct VariantTimeline {
    struct Span {
        var start: Date
        var variant: Int
    }

    /// The first at the first variant segment's request; empty when no variant segment was requested.
    let spans: [Span]
    /// The up and down switches, in time order.
    let switches: [ReactionReport.VariantSwitch]
    /// From the first variant segment's request to the end of the last one's response: when the
    /// player was fetching media.
    let start: Date
    let end: Date

    /// `records` in time order.
    init(records: [RequestRecord], reaction: ReactionReport) {
        let segments = records.filter { $0.isMediaData && $0.variant != nil }
        guard let first = segments.first, let variant = first.variant else {
            spans = []; switches = []; start = .distantPast; end = .distantPast
            return
        }
        let changes = reaction.switches.filter { $0.time >= first.time }
        spans = [Span(start: first.time, variant: variant)] + changes.map { Span(start: $0.time, variant: $0.to) }
        switches = changes.filter { $0.direction != .lateral }
        start = first.time
        end = segments.map { $0.time.addingTimeInterval(max(0, $0.duration)) }.max() ?? first.time
    }

    var isEmpty: Bool { spans.isEmpty }

    /// Seconds from the first variant segment to the end of the last one.
    var seconds: Double { max(0, end.timeIntervalSince(start)) }

    /// Switches per minute of `seconds`; 0 when nothing was fetched for any time.
    var switchesPerMinute: Double { seconds > 0 ? Double(switches.count) * 60 / seconds : 0 }

    /// The variant in use at `time`: the last one switched to at or before it (nil before the first segment).
    func variant(at time: Date) -> Int? {
        spans.last { $0.start <= time }?.variant
    }
}
