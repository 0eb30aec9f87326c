import Addressing
import BundleFormat
import Foundation
import HLS
import NIOConcurrencyHelpers

/// A bundle served as an origin, as values: a request in, what to send and when out
/// (`ReplayServer` puts it on the wire).
///
/// - **Mapping.** `/…` is the entry's host, `/_host/<host>/…` any other recorded host. A request
///   matches the exchanges of the same path and query, else of the same path with any query; a
///   `Range` matches exchanges recorded with that range, else is cut out of a recorded whole body.
///   Playlists are served with their absolute URIs on recorded hosts pointed at the replay origin.
/// - **Schedule.** It starts with the first request the recording answers, at `--from`. In a live
///   recording a playlist request at replay second `e` gets the latest
///   version that had arrived (`at + timings.total`) by `e` — or a failure recorded at a request
///   sent by then — and the first version before that. Every other resource, and every resource
///   of a VOD recording, is served in request order: the n-th request for it gets its n-th
///   recorded exchange, the last one repeating (a VOD playlist answered with content always gets
///   its last good version).
/// - **Failures and slow answers** are given as recorded: see `ReplayAnswer`.
public final class ReplayOrigin: Sendable {
    public let bundle: RecordingBundle
    public let options: ReplayOptions
    let catalog: ReplayCatalog
    let clock: ReplayClock
    private let state = NIOLockedValueBox(State())

    private struct State {
        /// When the schedule started (the first request).
        var start: ContinuousClock.Instant?
        /// Requests answered per resource group and pass.
        var counts: [String: Int] = [:]
        /// Playlists with their URIs pointed at the replay origin, per exchange index.
        var rewritten: [Int: [UInt8]] = [:]
        var loopPlans: [String: ReplayLoopPlan?] = [:]
        /// Per playlist exchange: how far the media playlist it holds reaches, and its target
        /// duration (to answer blocking reloads); nil for a body that is no media playlist.
        var edges: [Int: (edge: Playlist.Edge, targetDuration: Int?)?] = [:]
    }

    /// Header naming the exchange an answer comes from (`line 12, sent at 3.021s`), or saying it
    /// was not recorded.
    public static let sourceHeader = "x-hlschaos-replay"

    public init(bundle: RecordingBundle, options: ReplayOptions = ReplayOptions()) throws(ReplayError) {
        let catalog: ReplayCatalog
        do { catalog = try ReplayCatalog(bundle: bundle) } catch { throw ReplayError(error.description) }
        let end = bundle.duration
        guard options.from >= 0, options.from < max(end, 0.001) else {
            throw ReplayError(
                "--from \(ReplayOptions.describe(seconds: options.from)) is past the end of the recording, which lasts \(ReplayOptions.describe(seconds: end))")
        }
        guard options.speed >= ReplayOptions.minimumSpeed, options.speed <= ReplayOptions.maximumSpeed else {
            throw ReplayError("--speed \(options.speed) is outside \(ReplayOptions.minimumSpeed)…\(ReplayOptions.maximumSpeed)")
        }
        self.bundle = bundle
        self.options = options
        self.catalog = catalog
        self.clock = ReplayClock(options: options, end: max(end, options.from + 0.001))
    }

    /// The path of the entry on the replay origin (and on a proxy in front of it).
    public var entryPath: String { catalog.hosts.servedPath(of: catalog.entry) }
    /// The URL the recording started from.
    public var entryURL: String { catalog.entry.url }
    /// Some media playlist was still live when the recording stopped.
    public var isLive: Bool { catalog.isLive }
    /// Seconds from the recording's start to its end.
    public var duration: Double { bundle.duration }
    /// The recorded hosts other than the entry's, served at `/_host/<host>/…`.
    public var otherHosts: [String] { catalog.hosts.schemes.keys.filter { $0 != catalog.hosts.entry }.sorted() }
    /// The entry's host is served at `/…` (false: its paths look like a proxy's own, so it is
    /// served at `/_host/<host>/…`).
    public var entryAtRoot: Bool { catalog.hosts.entryAtRoot }

    /// The schedule has started (a request the recording answers has arrived).
    public var hasStarted: Bool { state.withLockedValue { $0.start != nil } }

    /// Where the schedule is now (nil before the first request).
    public func position(at instant: ContinuousClock.Instant = .now) -> (seconds: Double, loop: Int)? {
        guard let start = state.withLockedValue({ $0.start }) else { return nil }
        let position = clock.position(afterElapsed: (instant - start) / .seconds(1))
        return (position.seconds, position.loop)
    }

    // MARK: - Answering

    /// What to send for one request received at `instant`. `target` is the request target as
    /// received (`/live/index.m3u8?x=1`).
    public func answer(
        method: String, target: String, headers: [(String, String)], at instant: ContinuousClock.Instant = .now
    ) -> ReplayAnswer {
        let method = method.uppercased()
        let address = catalog.hosts.address(ofTarget: target)
        let rangeHeader = headers.first { $0.0.lowercased() == "range" }?.1
        switch catalog.candidates(for: address, method: method, range: rangeHeader) {
        case .missing(let reason):
            return notFound(address: address, target: target, method: method, reason: reason)
        case .found(let candidates):
            // The schedule starts with the first request the recording answers (a stray
            // /favicon.ico does not start it).
            let start = state.withLockedValue { state in
                if state.start == nil { state.start = instant }
                return state.start!
            }
            let position = clock.position(afterElapsed: (instant - start) / .seconds(1))
            let isPlaylist = catalog.isPlaylist(address)
            var index: Int
            var wait = 0.0
            if isPlaylist && catalog.isLive {
                index = scheduled(candidates.indices, at: position.seconds)
                if case .success(let directives) = DeliveryDirectives.parse(target: "?" + (address.query ?? "")),
                   directives.asksToBlock {
                    (index, wait) = blockingReload(asking: directives, candidates: candidates, scheduled: index, at: position)
                } else if address.query?.contains("_HLS_msn=") == true, bundle.exchanges[index].replayMoment > position.seconds {
                    // A reload recorded with directives it does not parse: held until its version is there.
                    wait = min((bundle.exchanges[index].replayMoment - position.seconds) / options.speed, 30)
                }
            } else {
                index = inRequestOrder(candidates, loop: position.loop)
                // A VOD playlist's content is its last good version, whichever request it is; its
                // recorded failures still come in order.
                if isPlaylist, bundle.exchanges[index].isGoodVersion,
                   let last = candidates.indices.last(where: { bundle.exchanges[$0].isGoodVersion }) {
                    index = last
                }
            }
            return answer(
                exchange: index, candidates: candidates, method: method, isPlaylist: isPlaylist, loop: position.loop,
                groupIndices: candidates.indices, wait: wait)
        }
    }

    /// An LL-HLS blocking reload (rfc8216bis §6.2.5.2), answered as the recorded server did: with
    /// the first recorded version of the playlist that holds the asked segment or part, held until
    /// that version had arrived on the schedule. The asked part need not have been asked for while
    /// recording: any version that holds it will do, whatever the query. When none does (past the
    /// end of the recording), the latest version comes after three target durations, as a server
    /// answers what it has when it cannot produce the part in time. Returns the exchange and the
    /// wait in seconds of real time (`--speed` applied).
    private func blockingReload(
        asking directives: DeliveryDirectives, candidates: ReplayCatalog.Candidates, scheduled: Int,
        at now: ReplayClock.Position
    ) -> (Int, Double) {
        guard var msn = directives.msn else { return (scheduled, 0) }
        if now.loop > 0, let plan = loopPlan(candidates.identity, indices: candidates.indices) {
            msn -= now.loop * plan.msnStep  // the recorded numbers of this pass
        }
        let exchanges = bundle.exchanges
        let byMoment = candidates.indices.sorted { (exchanges[$0].replayMoment, $0) < (exchanges[$1].replayMoment, $1) }
        for index in byMoment where exchanges[index].isGoodVersion {
            guard let version = edge(index), version.edge.holds(msn: msn, part: directives.part) else { continue }
            let moment = exchanges[index].replayMoment
            // Arrived already: the latest version in effect holds it too, and more.
            if moment <= now.seconds { return (scheduled, 0) }
            return (index, min((moment - now.seconds) / options.speed, 30))
        }
        let target = edge(scheduled)?.targetDuration.map(Double.init) ?? 2
        return (scheduled, min(3 * target / options.speed, 30))
    }

    private func edge(_ index: Int) -> (edge: Playlist.Edge, targetDuration: Int?)? {
        if let known = state.withLockedValue({ $0.edges[index] }) { return known }
        let playlist = (try? bundle.body(of: bundle.exchanges[index])).flatMap { try? Playlist(bytes: $0) }
        let found = playlist.flatMap { $0.kind == .media ? ($0.edge, $0.targetDuration) : nil }
        state.withLockedValue { $0.edges[index] = .some(found) }
        return found
    }

    /// The latest exchange in effect at `seconds` (see `Exchange.replayMoment`), else the first.
    private func scheduled(_ indices: [Int], at seconds: Double) -> Int {
        let exchanges = bundle.exchanges
        var chosen: Int?
        var chosenMoment = -Double.infinity
        for index in indices {
            let moment = exchanges[index].replayMoment
            if moment <= seconds, moment >= chosenMoment { chosen = index; chosenMoment = moment }
        }
        if let chosen { return chosen }
        return indices.min { exchanges[$0].replayMoment < exchanges[$1].replayMoment } ?? indices[0]
    }

    /// The n-th request of this pass gets the n-th exchange sent at or after `--from` (the last one
    /// repeating; the last one before `--from` when there is none after).
    private func inRequestOrder(_ candidates: ReplayCatalog.Candidates, loop: Int) -> Int {
        let exchanges = bundle.exchanges
        let sequence = candidates.indices.filter { exchanges[$0].at >= options.from }
        let ordered = sequence.isEmpty ? [candidates.indices.last!] : sequence
        let key = "\(loop) \(candidates.identity)"
        let n = state.withLockedValue { state in
            defer { state.counts[key, default: 0] += 1 }
            return state.counts[key, default: 0]
        }
        return ordered[min(n, ordered.count - 1)]
    }

    private func answer(
        exchange index: Int, candidates: ReplayCatalog.Candidates, method: String, isPlaylist: Bool, loop: Int,
        groupIndices: [Int], wait: Double
    ) -> ReplayAnswer {
        let exchange = bundle.exchanges[index]
        var body: [UInt8]
        do {
            body = try bundle.body(of: exchange)
        } catch {
            return ReplayAnswer.text(500, "hlschaos replay: \(error.description)\n", exchange: index)
        }
        var status = exchange.status
        if exchange.body == nil, exchange.ending == .complete, let code = status, (200..<300).contains(code), code != 204,
           let length = exchange.header("content-length").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), length > 0 {
            // A HAR without content, say: an empty 200 would pass for the real thing.
            return ReplayAnswer.text(
                404, "hlschaos replay: \(exchange.url) was recorded (HTTP \(code), \(length) bytes) without its body; "
                    + "nothing to serve (exchanges.jsonl line \(index + 1))\n", exchange: index)
        }
        var headers = Self.servedHeaders(exchange.headers, body: body)
        // Playlists: URIs on recorded hosts lead back here; a looping live playlist moves on.
        if exchange.isGoodVersion, isPlaylist || ResourceGuess.isPlaylist(body: body) {
            body = servedPlaylist(index: index, body: body)
            if loop > 0, catalog.isLive, let plan = loopPlan(candidates.identity, indices: groupIndices),
               var playlist = try? Playlist(bytes: body) {
                plan.apply(to: &playlist, loop: loop)
                body = playlist.serialized()
            }
        }
        headers = headers.map { name, value in
            name.lowercased() == "location" ? (name, redirected(value)) : (name, value)
        }
        // A range cut out of a recorded whole body (or larger range).
        if let range = candidates.range, exchange.ending == .complete, status == 200 || status == 206 {
            let recorded = status == 206 ? ReplayCatalog.contentRange(of: exchange) : ContentRange(first: 0, last: max(body.count - 1, 0), length: body.count)
            if let recorded {
                let length = recorded.length ?? (status == 200 ? body.count : nil)
                let span = range.resolved(length: length ?? recorded.last + 1)
                if let span, span.lowerBound >= recorded.first, span.upperBound <= recorded.last,
                   span.upperBound - recorded.first < body.count {
                    body = Array(body[(span.lowerBound - recorded.first)...(span.upperBound - recorded.first)])
                    status = 206
                    headers.removeAll { $0.0.lowercased() == "content-range" }
                    headers.append(("Content-Range", "bytes \(span.lowerBound)-\(span.upperBound)/\(length.map(String.init) ?? "*")"))
                } else {
                    var answer = ReplayAnswer.text(416, "hlschaos replay: the byte range is outside the \(body.count) bytes recorded\n", exchange: index)
                    answer.headers.append(("Content-Range", "bytes */\(length ?? body.count)"))
                    return answer
                }
            }
        }
        headers.append((Self.sourceHeader, "line \(index + 1), sent at \(ReplayOptions.format(exchange.at))s\(loop > 0 ? ", pass \(loop + 1)" : "")"))
        if !headers.contains(where: { $0.0.lowercased() == "access-control-allow-origin" }) {
            headers.append(("Access-Control-Allow-Origin", "*"))
        }
        let ending: ReplayAnswer.Ending
        switch exchange.ending {
        case .complete: ending = .complete
        case .truncated: ending = .truncated
        case .reset: ending = .reset
        case .timeout: ending = .timeout
        case .failed: ending = .failed
        }
        // A cut answer declares the length it was recorded with (or none: chunked, never ended).
        var declared: Int? = body.count
        if ending != .complete {
            let recordedLength = exchange.header("content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            declared = recordedLength.map { max($0, body.count + 1) }
        }
        let hasBody = !(status.map { (100..<200).contains($0) || $0 == 204 || $0 == 304 } ?? false)
        if let declared, hasBody, status != nil { headers.append(("Content-Length", String(declared))) }
        if method == "HEAD" || !hasBody { body = [] }
        let speed = options.speed
        let total = max(exchange.timings.total ?? 0, 0)
        let firstByte = min(max(exchange.timings.firstByte ?? (status == nil ? total : 0), 0), total)
        return ReplayAnswer(
            status: status, headers: headers, body: body, ending: ending,
            headAfter: wait + firstByte / speed, endAfter: wait + total / speed, exchange: index)
    }

    // MARK: - Playlists

    private func servedPlaylist(index: Int, body: [UInt8]) -> [UInt8] {
        if let done = state.withLockedValue({ $0.rewritten[index] }) { return done }
        let rewritten = pointedHere(body, recordedURL: bundle.exchanges[index].url)
        state.withLockedValue { $0.rewritten[index] = rewritten }
        return rewritten
    }

    /// The playlist with every URI that leads to a recorded host rewritten to where the replay
    /// origin serves it; URIs that already lead there from where the playlist is served (the
    /// usual relative ones) keep their text.
    func pointedHere(_ body: [UInt8], recordedURL: String) -> [UInt8] {
        guard let recorded = ReplayAddress(url: recordedURL), var playlist = try? Playlist(bytes: body, url: URL(string: recordedURL)) else {
            return body
        }
        let hosts = catalog.hosts
        let servedBase = URL(string: "http://replay.invalid" + hosts.servedPath(of: recorded))
        playlist.rewriteURIs { reference in
            guard let absolute = reference.absoluteString, let target = ReplayAddress(url: absolute),
                  hosts.isRecorded(target.authority) else { return nil }
            let mapped = hosts.servedPath(of: target)
            if let servedBase, let resolved = URL(string: reference.original, relativeTo: servedBase)?.absoluteString,
               let asServed = ReplayAddress(url: resolved), asServed.authority == "replay.invalid" {
                let found = hosts.address(ofTarget: ReplayAddress.encodedPath(asServed.path) + (asServed.query.map { "?" + $0 } ?? ""))
                if found.authority == target.authority, found.path == target.path, found.query == target.query { return nil }
            }
            return mapped
        }
        return playlist.serialized()
    }

    private func loopPlan(_ identity: String, indices: [Int]) -> ReplayLoopPlan? {
        if let known = state.withLockedValue({ $0.loopPlans[identity] }) { return known }
        let exchanges = bundle.exchanges
        let good = indices.filter { exchanges[$0].isGoodVersion }.sorted {
            (exchanges[$0].replayMoment, $0) < (exchanges[$1].replayMoment, $1)
        }
        var plan: ReplayLoopPlan?
        if let last = good.last {
            let first = good.last { exchanges[$0].replayMoment <= options.from } ?? good[0]
            if let firstBytes = try? bundle.body(of: exchanges[first]), let lastBytes = try? bundle.body(of: exchanges[last]),
               let firstPlaylist = try? Playlist(bytes: firstBytes), let lastPlaylist = try? Playlist(bytes: lastBytes) {
                plan = ReplayLoopPlan(first: firstPlaylist, last: lastPlaylist)
            }
        }
        state.withLockedValue { $0.loopPlans[identity] = .some(plan) }
        return plan
    }

    /// A `Location` on a recorded host, pointed at the replay origin.
    private func redirected(_ value: String) -> String {
        guard let target = ReplayAddress(url: value), catalog.hosts.isRecorded(target.authority) else { return value }
        return catalog.hosts.servedPath(of: target)
    }

    /// Recorded headers without the ones that describe the recorded connection and framing.
    static func servedHeaders(_ recorded: [Exchange.Header], body: [UInt8]) -> [(String, String)] {
        let dropped: Set<String> = ["connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection",
                                    "te", "trailer", "upgrade"]
        return recorded.compactMap { header in
            let name = header.name.lowercased()
            if dropped.contains(name) { return nil }
            // Bodies are kept decoded unless they still carry the gzip magic.
            if name == "content-encoding", !(header.value.lowercased().contains("gzip") && body.starts(with: [0x1F, 0x8B])) {
                return nil
            }
            return (header.name, header.value)
        }
    }

    // MARK: - Not recorded

    private func notFound(address: ReplayAddress, target: String, method: String, reason: String) -> ReplayAnswer {
        var lines = ["hlschaos replay: not in the recording: \(method) \(address.url)"]
        lines.append("(asked as \(target); \(bundle.location) holds \(bundle.exchanges.count) exchanges)")
        if !reason.isEmpty { lines.append("The resource was recorded, but \(reason).") }
        let nearest = reason.isEmpty ? catalog.nearest(to: address) : []
        if !nearest.isEmpty {
            lines.append("Nearest recorded URLs:")
            for candidate in nearest { lines.append("  \(candidate.url)  (served at \(catalog.hosts.servedPath(of: candidate)))") }
        }
        lines.append("The entry is \(catalog.entry.url), served at \(entryPath).")
        var answer = ReplayAnswer.text(404, lines.joined(separator: "\n") + "\n", exchange: nil)
        if method == "HEAD" { answer.body = [] }
        return answer
    }
}

/// What the replay origin sends for one request, and when.
public struct ReplayAnswer: Sendable {
    public enum Ending: String, Sendable, Equatable {
        /// The whole answer, then the connection stays open (keep-alive).
        case complete
        /// The head and the recorded bytes, declaring more (Content-Length, or chunked without its
        /// end), then the connection closes.
        case truncated
        /// What was recorded before the reset, then a TCP reset.
        case reset
        /// What was recorded (often nothing), held until the recorded time, then the connection closes.
        case timeout
        /// What was recorded (usually nothing), then the connection closes.
        case failed
    }

    /// nil: no response head at all.
    public var status: Int?
    public var headers: [(String, String)]
    /// The bytes to send (empty for HEAD).
    public var body: [UInt8]
    public var ending: Ending
    /// Seconds after the request arrived at which the head goes out, and at which the last byte
    /// goes (or the connection breaks): the recorded `firstByte` and `total`, divided by `--speed`.
    public var headAfter: Double
    public var endAfter: Double
    /// The exchange's index in `RecordingBundle.exchanges` (nil when nothing was recorded).
    public var exchange: Int?

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    static func text(_ status: Int, _ text: String, exchange: Int?) -> ReplayAnswer {
        let body = Array(text.utf8)
        return ReplayAnswer(
            status: status,
            headers: [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.count)),
                      (ReplayOrigin.sourceHeader, exchange.map { "line \($0 + 1)" } ?? "not recorded"),
                      ("Access-Control-Allow-Origin", "*")],
            body: body, ending: .complete, headAfter: 0, endAfter: 0, exchange: exchange)
    }
}
