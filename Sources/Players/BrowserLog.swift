import Foundation

/// The JSON document the browser harness prints (see `BrowserHarness`): how the run ended, where
/// the video was, the page's event log and position samples.
public struct BrowserLog: Decodable, Sendable, Equatable {
    /// One entry of the page's event log. Times are seconds since the page's script started.
    ///
    /// hls.js: `error` (type, details, fatal, code = HTTP status, sn, level, fragType, url, reason),
    /// `manifestParsed` (levels), `levelLoaded` (level, live, startSN, endSN, parts,
    /// canBlockReload), `levelSwitched` (level), `fragLoaded` (sn, level, fragType, part, url),
    /// `latency` (latency, targetLatency, drift, wallLatency, position, parts, canBlockReload;
    /// live streams only, every 0.5 s and at the end), `steeringManifestLoaded` (url, priority,
    /// ttl), `levelsUpdated` (levels, pathway: after a content-steering pathway change).
    /// video.js/VHS: `error` (the player's MediaError: code, message, status = HTTP status when VHS
    /// gave one; always fatal), `segmentError` / `playlistError` (status, message, level, url),
    /// `playlistExcluded` / `playlistRetry` / `playlistStuck` (level), `levelSwitched` (level,
    /// bandwidth), `fragLoaded` (sn, level, type, url), `manifestParsed`.
    /// Both: `playing`, `waiting`, `ended` (position), `videoError` (code, message), `playRejected`,
    /// `pageError` (reason).
    public struct Event: Decodable, Sendable, Equatable {
        public var t: Double?
        public var event: String
        public var type: String?
        public var details: String?
        public var fatal: Bool?
        public var code: Int?
        public var status: Int?
        public var sn: Int?
        public var level: Int?
        public var url: String?
        public var reason: String?
        public var message: String?
        public var position: Double?
        public var bandwidth: Int?
        /// The fragment's type ("main", "audio", "subtitle").
        public var fragType: String?
        /// `manifestParsed`: how many variants the master lists.
        public var levels: Int?
        /// hls.js `levelLoaded`: whether the media playlist is live (no ENDLIST), and the first and
        /// last media sequence numbers it lists.
        public var live: Bool?
        public var startSN: Int?
        public var endSN: Int?
        /// hls.js `levelLoaded` and `latency`: how many LL-HLS parts the loaded playlist lists
        /// (`EXT-X-PART`), and whether it offers blocking reloads (`CAN-BLOCK-RELOAD=YES`).
        public var parts: Int?
        public var canBlockReload: Bool?
        /// hls.js `fragLoaded` of an LL-HLS part: its index in the segment.
        public var part: Int?
        /// hls.js `latency`, seconds: `hls.latency` (the live edge, plus the playlist's age, minus
        /// the playing position), `hls.targetLatency`, `hls.drift` (the live edge's pace against
        /// the wall clock, 1 = real time), and now minus `hls.playingDate`.
        public var latency: Double?
        public var targetLatency: Double?
        public var drift: Double?
        public var wallLatency: Double?
        /// hls.js content steering: the pathway of the level switched to (`levelSwitched`) or of the
        /// levels now playable (`levelsUpdated`, after a pathway change); a loaded steering
        /// manifest's `PATHWAY-PRIORITY` and `TTL` (`steeringManifestLoaded`).
        public var pathway: String?
        public var priority: [String]?
        public var ttl: Double?

        public init(
            t: Double? = nil, event: String, type: String? = nil, details: String? = nil, fatal: Bool? = nil,
            code: Int? = nil, status: Int? = nil, sn: Int? = nil, level: Int? = nil, url: String? = nil,
            reason: String? = nil, message: String? = nil, position: Double? = nil, bandwidth: Int? = nil,
            fragType: String? = nil, levels: Int? = nil, live: Bool? = nil, startSN: Int? = nil, endSN: Int? = nil,
            parts: Int? = nil, canBlockReload: Bool? = nil, part: Int? = nil,
            latency: Double? = nil, targetLatency: Double? = nil, drift: Double? = nil, wallLatency: Double? = nil
        ) {
            self.t = t; self.event = event; self.type = type; self.details = details; self.fatal = fatal
            self.code = code; self.status = status; self.sn = sn; self.level = level; self.url = url
            self.reason = reason; self.message = message; self.position = position; self.bandwidth = bandwidth
            self.fragType = fragType; self.levels = levels; self.live = live; self.startSN = startSN; self.endSN = endSN
            self.parts = parts; self.canBlockReload = canBlockReload; self.part = part
            self.latency = latency; self.targetLatency = targetLatency; self.drift = drift; self.wallLatency = wallLatency
        }

        enum CodingKeys: String, CodingKey {
            case t, event, type, details, fatal, code, status, sn, level, url, reason, message, position, bandwidth, fragType
            case levels, live, startSN, endSN, parts, canBlockReload, part, latency, targetLatency, drift, wallLatency
            case pathway, priority, ttl
        }

        /// Lenient: numbers may come as 24 or 24.0, hls.js gives `sn: "initSegment"` for init
        /// segments, anything of an unexpected type is left out rather than failing the document.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            event = (try? c.decode(String.self, forKey: .event)) ?? "?"
            t = c.looseDouble(.t)
            type = c.looseString(.type)
            details = c.looseString(.details)
            fatal = try? c.decodeIfPresent(Bool.self, forKey: .fatal)
            code = c.looseInt(.code)
            status = c.looseInt(.status)
            sn = c.looseInt(.sn)
            level = c.looseInt(.level)
            url = c.looseString(.url)
            reason = c.looseString(.reason)
            message = c.looseString(.message)
            position = c.looseDouble(.position)
            bandwidth = c.looseInt(.bandwidth)
            fragType = c.looseString(.fragType)
            levels = c.looseInt(.levels)
            live = try? c.decodeIfPresent(Bool.self, forKey: .live)
            startSN = c.looseInt(.startSN)
            endSN = c.looseInt(.endSN)
            parts = c.looseInt(.parts)
            canBlockReload = try? c.decodeIfPresent(Bool.self, forKey: .canBlockReload)
            part = c.looseInt(.part)
            pathway = c.looseString(.pathway)
            priority = try? c.decodeIfPresent([String].self, forKey: .priority)
            ttl = c.looseDouble(.ttl)
            latency = c.looseDouble(.latency)
            targetLatency = c.looseDouble(.targetLatency)
            drift = c.looseDouble(.drift)
            wallLatency = c.looseDouble(.wallLatency)
        }
    }

    public var engine: String
    public var url: String?
    public var live: Bool
    public var rate: Double?
    /// The harness's time limit, seconds of playing after the page loaded.
    public var limit: Double?
    public var ended: Bool
    /// The first fatal error (also in `events`).
    public var fatal: Event?
    public var currentTime: Double?
    public var duration: Double?
    /// Seconds from page load to the end of the watch.
    public var elapsed: Double?
    /// The watch stopped at the time limit (not on `ended` or a fatal error).
    public var limitReached: Bool
    public var events: [Event]
    /// `[t, currentTime]` every half second or so (page time, as in events).
    public var samples: [[Double]]
    /// `[t, currentTime, seconds buffered ahead]` every 250 ms (page time).
    public var buffer: [[Double]] = []
    public var engineVersion: String?
    public var browserVersion: String?
    /// The harness itself failed (no selenium, Chromium would not start, …).
    public var harnessError: String?

    public init(
        engine: String, url: String? = nil, live: Bool = false, rate: Double? = nil, limit: Double? = nil,
        ended: Bool = false, fatal: Event? = nil, currentTime: Double? = nil, duration: Double? = nil,
        elapsed: Double? = nil, limitReached: Bool = false, events: [Event] = [], samples: [[Double]] = [],
        engineVersion: String? = nil, browserVersion: String? = nil, harnessError: String? = nil
    ) {
        self.engine = engine; self.url = url; self.live = live; self.rate = rate; self.limit = limit
        self.ended = ended; self.fatal = fatal; self.currentTime = currentTime; self.duration = duration
        self.elapsed = elapsed; self.limitReached = limitReached; self.events = events; self.samples = samples
        self.engineVersion = engineVersion; self.browserVersion = browserVersion; self.harnessError = harnessError
    }

    enum CodingKeys: String, CodingKey {
        case engine, url, live, rate, limit, ended, fatal, currentTime, duration, elapsed, limitReached, events, samples, buffer
        case engineVersion, browserVersion, harnessError
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        engine = try c.decode(String.self, forKey: .engine)
        url = c.looseString(.url)
        live = (try? c.decodeIfPresent(Bool.self, forKey: .live)) ?? false
        rate = c.looseDouble(.rate)
        limit = c.looseDouble(.limit)
        ended = (try? c.decodeIfPresent(Bool.self, forKey: .ended)) ?? false
        fatal = try? c.decodeIfPresent(Event.self, forKey: .fatal)
        currentTime = c.looseDouble(.currentTime)
        duration = c.looseDouble(.duration)
        elapsed = c.looseDouble(.elapsed)
        limitReached = (try? c.decodeIfPresent(Bool.self, forKey: .limitReached)) ?? false
        events = (try? c.decodeIfPresent([Event].self, forKey: .events)) ?? []
        samples = ((try? c.decodeIfPresent([[Double]].self, forKey: .samples)) ?? []).filter { $0.count == 2 }
        buffer = ((try? c.decodeIfPresent([[Double]].self, forKey: .buffer)) ?? []).filter { $0.count == 3 }
        engineVersion = c.looseString(.engineVersion)
        browserVersion = c.looseString(.browserVersion)
        harnessError = c.looseString(.harnessError)
    }

    /// The harness's output: the last line of stdout that is a JSON object.
    public static func parse(_ stdout: String) -> BrowserLog? {
        for line in stdout.split(separator: "\n").reversed() where line.hasPrefix("{") {
            if let log = try? JSONDecoder().decode(BrowserLog.self, from: Data(line.utf8)) { return log }
        }
        return nil
    }
}

extension KeyedDecodingContainer {
    fileprivate func looseDouble(_ key: Key) -> Double? {
        (try? decodeIfPresent(Double.self, forKey: key)).flatMap { $0 }.flatMap { $0.isFinite ? $0 : nil }
    }

    fileprivate func looseInt(_ key: Key) -> Int? {
        guard let value = looseDouble(key), value == value.rounded(), abs(value) < 1e15 else { return nil }
        return Int(value)
    }

    fileprivate func looseString(_ key: Key) -> String? {
        (try? decodeIfPresent(String.self, forKey: key)).flatMap { $0 }
    }
}
