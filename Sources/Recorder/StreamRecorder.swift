import Addressing
import BundleFormat
import Foundation
import HLS
import JSON
import Synchronization
import Upstream

/// `hlschaos record`: fetches a stream like a player would and writes everything it received to a
/// bundle. The entry (a master, or a media playlist given directly) is fetched once; every
/// variant, rendition and I-frame playlist it names is loaded, and reloaded while it is live
/// following the HLS rules (RFC 8216 §6.3.4: the target duration after a load that changed the
/// playlist, half of it after one that did not, counted from when the previous load began); the
/// segments, keys and init sections of the chosen variants (and of their groups' renditions) are
/// fetched by `parallelism` connections. Every response — failures included — is one exchange.
///
/// Memory does not grow with the recording's length: bodies stream to disk, each playlist keeps
/// only the highest MSN it queued, the queue and the set of recently fetched media are bounded.
public final class StreamRecorder: Sendable {
    public struct Settings: Sendable {
        /// The master playlist's URL (or a media playlist's).
        public var entry: String
        /// How long to record; nil: a VOD until it is whole, a live stream until `stop`.
        public var duration: Duration?
        public var variants: VariantChoice = .all
        /// Segments, keys and init sections fetched at once.
        public var parallelism = 4
        /// Time allowed for a response head, and for a whole playlist.
        public var timeout: Duration = .seconds(10)
        /// Time allowed for a whole segment, key or init section.
        public var mediaTimeout: Duration = .seconds(60)
        /// Once the recording stops (its time is up, or `stop`): how long requests under way may
        /// take to end before they are cancelled (and left out of the bundle).
        public var grace: Duration = .seconds(5)
        /// Media waiting for a connection, at most (see `MediaQueue`).
        public var queueLimit = 2000
        /// A playlist that never loaded is given up after this many failed tries in a row.
        public var playlistTries = 5
        /// On the first load of a live playlist, how many of its newest segments are fetched (a
        /// player starts near the live edge; a long DVR window is not fetched whole).
        public var liveBackfill = 12

        public init(entry: String, duration: Duration? = nil, variants: VariantChoice = .all) {
            self.entry = entry
            self.duration = duration
            self.variants = variants
        }
    }

    /// Why the recording ended.
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        /// Every playlist ended (a VOD, or a live stream that added EXT-X-ENDLIST) and all their media was fetched.
        case complete
        /// `Settings.duration` ran out. `whole` is false when a VOD was still being fetched.
        case durationReached(whole: Bool)
        /// `stop(reason)` was called (Ctrl-C).
        case stopped(String)
        /// The bundle reached its size cap (the writer's reason).
        case sizeCap(String)
        /// The bundle could not be written (disk full…).
        case writeFailed(String)

        /// What the manifest's `stopReason` should say (nil: the recording ran its course; the
        /// size cap's reason is already in the manifest).
        public var manifestReason: String? {
            switch self {
            case .complete, .durationReached(whole: true), .sizeCap: nil
            case .durationReached(whole: false): "the recording time ran out before the VOD was fetched whole"
            case .stopped(let reason): reason
            case .writeFailed(let reason): "the bundle could not be written: \(reason)"
            }
        }

        public var description: String {
            switch self {
            case .complete: "every playlist ended and all of its media was fetched"
            case .durationReached(whole: true): "the recording time is up"
            case .durationReached(whole: false): "the recording time ran out before the VOD was fetched whole"
            case .stopped(let reason): reason
            case .sizeCap(let reason): reason
            case .writeFailed(let reason): "the bundle could not be written: \(reason)"
            }
        }
    }

    /// What the entry holds and what will be recorded of it.
    public struct Plan: Sendable, Equatable {
        public var isMaster: Bool
        public var variantCount = 0
        public var renditionCount = 0
        public var iFrameCount = 0
        /// Indexes of the variants whose media is fetched.
        public var chosenVariants: [Int] = []
        /// "AUDIO aud English" for each rendition whose media is fetched.
        public var chosenRenditions: [String] = []
        /// Media playlists loaded (and reloaded while live).
        public var playlists = 0
        /// The content-steering manifest's URL (`EXT-X-CONTENT-STEERING` `SERVER-URI`), fetched
        /// again at every `TTL` while the recording lasts.
        public var steeringServer: String?
        /// `EXT-X-SESSION-DATA` files fetched (once).
        public var sessionData = 0
    }

    public let settings: Settings
    public let tally = RecordTally()
    private let writer: BundleWriter
    private let fetcher: StreamFetcher
    private let queue: MediaQueue
    private let state = Mutex(State())

    private struct State {
        var ending: Ending?
        var stopAsked: ContinuousClock.Instant?
        var hard = false
        var deadline: ContinuousClock.Instant?
        var sawLive = false
        /// A live playlist's watcher stopped because the time was up (not because it ended).
        var cutShort = false
        var recent = RecentKeys(capacity: 20_000)
    }

    public init(client: UpstreamClient, writer: BundleWriter, settings: Settings) {
        self.settings = settings
        self.writer = writer
        self.fetcher = StreamFetcher(client: client, writer: writer, tally: tally, timeout: settings.timeout,
                                     mediaTimeout: settings.mediaTimeout)
        self.queue = MediaQueue(producers: 0, limit: settings.queueLimit)
    }

    /// Stops the recording: no new request starts; those under way get `Settings.grace` to end.
    /// Calling it again (a second Ctrl-C) cancels them at once.
    public func stop(_ reason: String) {
        let again = state.withLock { state -> Bool in
            if state.stopAsked != nil { state.hard = true; return true }
            return false
        }
        if !again { finish(.stopped(reason), hard: false) }
    }

    /// Records until the stream ends, the time is up, `stop` is called or the bundle is full. Throws
    /// when the entry cannot be recorded at all (unreachable, an error status, not a playlist, a
    /// `--variants` the master does not have); its exchange is in the bundle all the same.
    /// `planned` is told what will be recorded once the entry is read. The bundle is not finished
    /// here: call `writer.finish(stopReason: ending.manifestReason)`.
    public func run(planned: @Sendable (Plan) -> Void = { _ in }) async throws(RecordError) -> Ending {
        if let duration = settings.duration {
            state.withLock { $0.deadline = ContinuousClock.now + duration }
        }
        let started = ContinuousClock.now
        let entry = await fetcher.fetch(.init(url: settings.entry, kind: "master"))
        let (targets, seeds, plan) = try plan(from: entry)
        guard let targets else { return endingNow() }
        planned(plan)

        let queue = self.queue
        await queue.addProducers(targets.count)
        for seed in seeds where claim(seed) { _ = await queue.push(seed, wait: true) }
        let work = Task {
            await withTaskGroup(of: Void.self) { group in
                for target in targets {
                    group.addTask {
                        await self.watch(target)
                        await queue.producerFinished()
                    }
                }
                if let steering = plan.steeringServer {
                    group.addTask { await self.watchSteering(steering) }
                }
                for _ in 0..<max(1, self.settings.parallelism) {
                    group.addTask { await self.fetchMedia() }
                }
            }
        }
        let supervisor = Task { await self.supervise(work, started: started) }
        await work.value
        supervisor.cancel()
        tally.queued(0)  // what waited when it stopped was dropped
        return state.withLock { state in
            if let ending = state.ending { return ending }
            // The watchers saw the deadline before the supervisor did.
            let ending: Ending = state.cutShort ? .durationReached(whole: true) : .complete
            state.ending = ending
            return ending
        }
    }

    // MARK: - The entry

    private typealias Planned = (targets: [WatchTarget]?, seeds: [MediaItem], plan: Plan)

    /// What to watch and fetch, from the entry's response; nil targets when the recording is already over.
    private func plan(from entry: StreamFetcher.Result) throws(RecordError) -> Planned {
        let url = settings.entry
        switch entry {
        case .cancelled:
            return (nil, [], Plan(isMaster: false))
        case .bundleFailed(let error):
            bundleFailed(error)
            return (nil, [], Plan(isMaster: false))
        case .done(let exchange, let playlist, let body, let finalURL):
            guard let status = exchange.status else {
                var reason = exchange.error ?? "no response"
                if reason.hasSuffix(" for \(url)") { reason = String(reason.dropLast(" for \(url)".count)) }
                throw RecordError("cannot fetch \(url): \(reason); check the URL and that the origin is reachable from here")
            }
            guard (200..<300).contains(status) else {
                let excerpt = body.map { String(decoding: $0.prefix(160), as: UTF8.self) } ?? ""
                throw RecordError("\(url) answered HTTP \(status)\(excerpt.isEmpty ? "" : " (\(Self.oneLine(excerpt)))"); give the URL of a master or media playlist that plays")
            }
            guard let playlist else {
                throw RecordError("\(url) is not an HLS playlist: \(Self.notAPlaylist(exchange, body: body)); give the URL of a master (multivariant) or media playlist")
            }
            if exchange.ending != .complete {
                throw RecordError("\(url): the playlist did not arrive whole (\(exchange.error ?? exchange.ending.rawValue)); try again")
            }
            if playlist.kind == .media {
                guard settings.variants == .all else {
                    throw RecordError("--variants \(settings.variants): \(url) is a media playlist (a single variant); leave --variants out, or give the master playlist")
                }
                let target = WatchTarget(url: finalURL, role: "the entry", fetchesMedia: true, first: entry)
                return ([target], [], Plan(isMaster: false, playlists: 1))
            }
            return try planMaster(playlist)
        }
    }

    private func planMaster(_ master: Playlist) throws(RecordError) -> Planned {
        let chosen = try settings.variants.select(from: master.variants)
        var plan = Plan(isMaster: true, variantCount: master.variants.count, renditionCount: master.renditions.count,
                        iFrameCount: master.iFrameVariants.count, chosenVariants: chosen.sorted())
        var groups = Set<String>()
        for index in chosen {
            let variant = master.variants[index]
            for type in ["AUDIO", "VIDEO", "SUBTITLES"] {
                if let group = variant.group(ofType: type) { groups.insert(type + " " + group) }
            }
        }
        var targets: [WatchTarget] = []
        var positions: [String: Int] = [:]
        func add(_ url: String?, role: String, fetchesMedia: Bool) {
            guard let url, Self.isHTTP(url) else { return }
            if let position = positions[url] {
                targets[position].fetchesMedia = targets[position].fetchesMedia || fetchesMedia
                return
            }
            positions[url] = targets.count
            targets.append(WatchTarget(url: url, role: role, fetchesMedia: fetchesMedia, first: nil))
        }
        var absolute: [URIKind: [Int: String]] = [:]
        var renditionURLs: [Int: String] = [:]
        for reference in master.uriReferences {
            switch reference.kind {
            case .variant, .iFrameVariant:
                if let index = reference.variantIndex { absolute[reference.kind, default: [:]][index] = reference.absoluteString }
            case .rendition:
                if let rendition = reference.rendition { renditionURLs[rendition.index] = reference.absoluteString }
            default:
                break
            }
        }
        for variant in master.variants {
            add(absolute[.variant]?[variant.index], role: PlaylistRole.variant(variant.index), fetchesMedia: chosen.contains(variant.index))
        }
        for rendition in master.renditions where rendition.uri != nil {
            let picked = groups.contains(rendition.type.uppercased() + " " + rendition.groupID)
            if picked { plan.chosenRenditions.append("\(rendition.type) \(rendition.groupID) \(rendition.name)") }
            add(renditionURLs[rendition.index], role: PlaylistRole.rendition(rendition), fetchesMedia: picked)
        }
        for iFrame in master.iFrameVariants {
            add(absolute[.iFrameVariant]?[iFrame.index], role: PlaylistRole.iFrameVariant(iFrame.index), fetchesMedia: false)
        }
        plan.playlists = targets.count
        var seeds: [MediaItem] = []
        for reference in master.uriReferences {
            guard let url = reference.absoluteString, Self.isHTTP(url) else { continue }
            switch reference.kind {
            case .sessionKey where !chosen.isEmpty:
                seeds.append(MediaItem(url: url, kind: ResourceKind.key.rawValue))
            case .sessionData:
                seeds.append(MediaItem(url: url, kind: ResourceKind.sessionData.rawValue))
                plan.sessionData += 1
            case .steering:
                plan.steeringServer = url
            default:
                break
            }
        }
        return (targets, seeds, plan)
    }

    // MARK: - Playlists

    struct WatchTarget: Sendable {
        var url: String
        var role: String
        var fetchesMedia: Bool
        /// The entry's response, when the entry is this media playlist.
        var first: StreamFetcher.Result?
    }

    /// Loads one media playlist, and reloads it while it is live; queues its new media. An LL-HLS
    /// playlist (`CAN-BLOCK-RELOAD=YES` and parts) is reloaded as an LL player does: at once, with a
    /// blocking reload asking for the next part (`_HLS_msn`, `_HLS_part`), which the server holds
    /// until that part is published.
    private func watch(_ target: WatchTarget) async {
        var pending = target.first
        var blockingReload: String?
        var lastBodyHash: String?
        var highestQueued: Int?
        var targetDuration: Double?
        var loaded = false
        var failuresInARow = 0
        while !shouldStop() {
            let began = ContinuousClock.now
            let result: StreamFetcher.Result
            if let first = pending {
                result = first
                pending = nil
            } else {
                result = await fetcher.fetch(.init(url: blockingReload ?? target.url, kind: "media"))
            }
            var wait: Double
            switch result {
            case .cancelled:
                return
            case .bundleFailed(let error):
                bundleFailed(error)
                return
            case .done(let exchange, let playlist, let body, _):
                if let playlist, let body, playlist.kind == .media, (200..<300).contains(exchange.status ?? 0), exchange.ending == .complete {
                    loaded = true
                    failuresInARow = 0
                    let hash = SHA256Hasher.hex(of: body)
                    let changed = hash != lastBodyHash
                    lastBodyHash = hash
                    let ended = playlist.endList || playlist.playlistType?.uppercased() == "VOD"
                    if !ended { state.withLock { $0.sawLive = true } }
                    if target.fetchesMedia, changed {
                        highestQueued = await queueMedia(of: playlist, above: highestQueued, live: !ended)
                    }
                    if ended { return }
                    // Within reason: a target duration of a year would overflow the sleep.
                    let duration = min(max(Double(playlist.targetDuration ?? 6), 0.5), 3600)
                    targetDuration = duration
                    wait = changed ? duration : duration / 2
                    blockingReload = nil
                    if playlist.serverControl?.canBlockReload == true, let next = playlist.nextPartToAskFor {
                        blockingReload = DeliveryDirectives(msn: next.msn, part: next.part).applied(to: target.url)
                        // A server that answers without the part it was asked for is not asked again at once.
                        wait = changed ? 0 : min(max(playlist.partTarget ?? 1, 0.1), duration)
                    }
                } else {
                    blockingReload = nil
                    failuresInARow += 1
                    if !loaded && failuresInARow >= settings.playlistTries { return }
                    wait = targetDuration.map { $0 / 2 } ?? min(pow(2, Double(failuresInARow - 1)), 8)
                }
            }
            await sleep(until: began + .milliseconds(Int64(wait * 1000)))
        }
        state.withLock { $0.cutShort = true }
    }

    /// Queues the media of `playlist` that is new (`mediaItems`): segments above `above` (all of
    /// them the first time), or on a live playlist seen first its last `liveBackfill`. Returns the
    /// new highest MSN queued.
    private func queueMedia(of playlist: Playlist, above: Int?, live: Bool) async -> Int? {
        var highest = above
        if let above, let last = playlist.segments.last?.msn, last < above {
            highest = nil  // the media sequence went back: the stream restarted
        }
        var floor = highest
        if floor == nil, live, let last = playlist.segments.last?.msn {
            floor = last &- max(1, settings.liveBackfill)
        }
        for segment in playlist.segments where floor.map({ segment.msn > $0 }) ?? true {
            highest = max(highest ?? segment.msn, segment.msn)
        }
        for item in Self.mediaItems(of: playlist, above: floor, live: live) where claim(item) {
            guard let dropped = await queue.push(item, wait: !live) else { break }
            if dropped > 0 { tally.skipped(dropped) }
        }
        tally.queued(await queue.count)
        return highest
    }

    /// The media of `playlist` above MSN `floor`: segments with the keys and init sections they
    /// use, and on a live LL-HLS playlist its parts and what its preload hints name, a part or an
    /// init section (asked for before it is published, as an LL player does; the server holds the
    /// request until it is). Each is named by what the playlist says it is (`ResourceKind(place)`).
    static func mediaItems(of playlist: Playlist, above floor: Int?, live: Bool) -> [MediaItem] {
        var segmentURLs: [Int: String] = [:]
        // By the URI as the playlist writes it: where it points and what it is.
        var others: [String: (url: String, kind: ResourceKind)] = [:]
        for reference in playlist.uriReferences {
            guard let absolute = reference.absoluteString, let kind = ResourceKind(reference.facts) else { continue }
            switch reference.kind {
            case .segment: if let msn = reference.msn { segmentURLs[msn] = absolute }
            case .map, .key, .part, .preloadHint: others[reference.original] = (absolute, kind)
            default: break
            }
        }
        var items: [MediaItem] = []
        for segment in playlist.segments {
            if let floor, segment.msn <= floor { continue }
            if let map = segment.map, let named = others[map.uri], isHTTP(named.url) {
                items.append(MediaItem(url: named.url, range: map.byteRange?.rangeHeader, kind: named.kind.rawValue))
            }
            if let key = segment.key, key.method.uppercased() != "NONE", let uri = key.uri, let named = others[uri], isHTTP(named.url) {
                items.append(MediaItem(url: named.url, kind: named.kind.rawValue))
            }
            if let url = segmentURLs[segment.msn], isHTTP(url) {
                items.append(MediaItem(url: url, range: segment.byteRange?.rangeHeader, kind: ResourceKind.segment.rawValue))
            }
        }
        if live, playlist.partTarget != nil {
            let listed = playlist.segments.filter { floor == nil || $0.msn > floor! }.flatMap(\.parts) + playlist.trailingParts
            for part in listed where !part.gap {
                if let named = others[part.uri], isHTTP(named.url) {
                    items.append(MediaItem(url: named.url, range: part.byteRange?.rangeHeader, kind: named.kind.rawValue))
                }
            }
            for hint in playlist.preloadHints {
                guard let named = others[hint.uri], isHTTP(named.url) else { continue }
                let range = hint.byteRangeStart.map { start in
                    "bytes=\(start)-" + (hint.byteRangeLength.map { String(start + $0 - 1) } ?? "")
                }
                items.append(MediaItem(url: named.url, range: range, kind: named.kind.rawValue))
            }
        }
        return items
    }

    /// True the first time an item is seen lately (it is then fetched).
    private func claim(_ item: MediaItem) -> Bool {
        state.withLock { $0.recent.insert(item.key) }
    }

    // MARK: - Media

    private func fetchMedia() async {
        while let item = await queue.next() {
            tally.queued(await queue.count)
            switch await fetcher.fetch(.init(url: item.url, range: item.range, kind: item.kind)) {
            case .done:
                continue
            case .cancelled:
                return
            case .bundleFailed(let error):
                bundleFailed(error)
                return
            }
        }
    }

    // MARK: - Content steering

    /// Loads the content-steering manifest as a steering client does (HLS content steering 1.2):
    /// at once, then `TTL` seconds after each load began, from its `RELOAD-URI` once one names
    /// it. A load that fails is tried again after the last `TTL` read (the spec's default of 300 s
    /// before any). It stops with the recording, or when no playlist is watched any more (a VOD
    /// fetched whole), but not before its first load: a small VOD's playlists can all be whole
    /// before this task has run, and its recording must still hold the manifest.
    private func watchSteering(_ server: String) async {
        var url = server
        var ttl = 300.0
        var loaded = false
        while !shouldStop() {
            if loaded, !(await queue.hasProducers) { break }
            loaded = true
            let began = ContinuousClock.now
            switch await fetcher.fetch(.init(url: url, kind: ResourceKind.steering.rawValue)) {
            case .cancelled:
                return
            case .bundleFailed(let error):
                bundleFailed(error)
                return
            case .done(let exchange, _, let body, let finalURL):
                guard let status = exchange.status, (200..<300).contains(status), exchange.ending == .complete,
                      let body, let manifest = try? JSONValue.parse(body) else { break }
                if case .number(let seconds, _)? = manifest.member("TTL"), seconds > 0 { ttl = min(seconds, 3600) }
                if case .string(let reload)? = manifest.member("RELOAD-URI"),
                   let next = URL(string: reload, relativeTo: URL(string: finalURL))?.absoluteURL.absoluteString, Self.isHTTP(next) {
                    url = next
                }
            }
            await sleep(until: began + .milliseconds(Int64(ttl * 1000))) { await self.queue.hasProducers }
        }
    }

    // MARK: - Stopping

    private func shouldStop() -> Bool {
        state.withLock { state in
            if state.stopAsked != nil { return true }
            if let deadline = state.deadline, ContinuousClock.now >= deadline { return true }
            return false
        }
    }

    /// Sleeps until `instant`, or until the recording stops or `condition` no longer holds.
    private func sleep(until instant: ContinuousClock.Instant, while condition: () async -> Bool = { true }) async {
        while !shouldStop() && !Task.isCancelled, await condition() {
            let left = instant - ContinuousClock.now
            if left <= .zero { return }
            try? await Task.sleep(for: min(left, .milliseconds(100)))
        }
    }

    private func finish(_ ending: Ending, hard: Bool) {
        let first = state.withLock { state -> Bool in
            if hard { state.hard = true }
            guard state.stopAsked == nil else { return false }
            state.stopAsked = .now
            state.ending = ending
            return true
        }
        if first {
            let queue = self.queue
            Task { await queue.close() }
        }
    }

    private func bundleFailed(_ error: BundleError) {
        finish(error.isSizeCap ? .sizeCap(error.problem) : .writeFailed(error.description), hard: true)
    }

    private func endingNow() -> Ending {
        state.withLock { $0.ending ?? .stopped("stopped before the entry was read") }
    }

    /// Ends the recording at its deadline, and cancels what is still under way once the grace
    /// after a stop has passed.
    private func supervise(_ work: Task<Void, Never>, started: ContinuousClock.Instant) async {
        while !Task.isCancelled {
            let (deadline, asked, hard, sawLive) = state.withLock { ($0.deadline, $0.stopAsked, $0.hard, $0.sawLive) }
            if let asked {
                if hard || ContinuousClock.now - asked >= settings.grace {
                    work.cancel()
                    return
                }
            } else if let deadline, ContinuousClock.now >= deadline {
                // Whole unless a VOD was still being fetched (nothing live was seen and media was left).
                let left = await queue.count + tally.counts.inFlight
                finish(.durationReached(whole: sawLive || left == 0), hard: false)
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    // MARK: - Helpers

    static func isHTTP(_ url: String) -> Bool {
        let lowered = url.prefix(8).lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    static func oneLine(_ text: String) -> String {
        let flat = text.map { $0.isNewline || $0 == "\t" ? " " : $0 }
        return String(flat).trimmingCharacters(in: .whitespaces)
    }

    private static func notAPlaylist(_ exchange: Exchange, body: [UInt8]?) -> String {
        let type = exchange.header("Content-Type").map { " (Content-Type \($0))" } ?? ""
        guard let body, !body.isEmpty else {
            return exchange.body == nil ? "its body is empty\(type)" : "its body does not start with #EXTM3U\(type)"
        }
        let start = String(decoding: body.prefix(40), as: UTF8.self)
        if ResourceGuess.isPlaylist(body: body) { return "it starts with #EXTM3U but could not be read\(type)" }
        return "it starts with \"\(oneLine(start))\" instead of #EXTM3U\(type)"
    }
}

