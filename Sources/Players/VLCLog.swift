import Foundation

/// Reads `cvlc -vv` output (all on stderr):
///
/// - the raw HTTP exchanges it logs (`GET /path HTTP/1.1` … `HTTP/1.1 503 Service Unavailable`)
///   → an error with the status for every answer ≥ 400, naming the path;
/// - `main input error: Your input can't be opened` → fatal (the master could not be opened);
/// - `adaptive demux debug: cached.i_time (…) cur 10720001 rap start (pl 50001/dmx 1450001) pos …`,
///   printed about once per second of media → position = (cur − dmx) / 10⁶;
/// - `BaseAdaptationSet default_id#0` followed by `Representation <uri>` lines → the variants in
///   master order; `Retrieving <url>` of one of their playlists → a level switch (the first is the
///   start level);
/// - `main playlist: end of playlist, exiting` → VLC is done with the item (it says so whether the
///   item played or not, and sometimes does not exit after it);
/// - `using demux module "adaptive"` → the engine;
/// - `main input error: ES_OUT_SET_(GROUP_)PCR  is called too late …` (data came back after the
///   buffer ran dry; VLC then resets its clock and rebuffers) … `main input debug: Stream buffering
///   done (…)` → a rebuffering span from the last advance of the position before it (VLC does not
///   say when the buffer ran dry; the position is printed about once a second) to the `done` line.
public enum VLCLog {
    public struct Result: Sendable, Equatable {
        public var facts: LogFacts
        /// `end of playlist, exiting` was printed.
        public var finished: Bool
    }

    public static let finishedMarker = "main playlist: end of playlist, exiting"
    /// VLC 3.0 writes two spaces before "is" (`ES_OUT_SET_(GROUP_)PCR  is called too late`).
    static let clockLate = "is called too late"
    static let bufferingDone = "main input debug: Stream buffering done"

    public static func parse(_ lines: [LogLine]) -> Result {
        var facts = LogFacts()
        var finished = false
        var lastRequest: String?
        var inVariantSet = false
        var variants: [String] = []
        // When the position last moved past its furthest point: where a rebuffer began.
        var furthest = 0.0
        var lastAdvance: Double?
        for line in lines {
            let text = line.text
            if text.hasPrefix("GET ") {
                lastRequest = text.dropFirst(4).split(separator: " ").first.map(String.init)
            } else if text.hasPrefix("HTTP/1."), let code = Int(text.dropFirst("HTTP/1.x ".count).prefix(3)), code >= 400 {
                let status = text.dropFirst("HTTP/1.x ".count)
                facts.errors.append(.init(
                    time: line.time, kind: "HTTP \(code)", code: code,
                    message: lastRequest.map { "\(status) for \($0)" } ?? String(status)))
            } else if text.contains("main input error: Your input can't be opened") {
                facts.fatal = "VLC could not open the input" + OutcomeRules.detail(facts.lastError)
            } else if let range = text.range(of: "cached.i_time ("), let position = position(text[range.upperBound...]) {
                facts.progress.append(.init(time: line.time, position: position))
                if position > furthest + 0.001 { furthest = position; lastAdvance = line.time }
            } else if text.contains(clockLate) {
                // Not before the end of the previous span, when the position did not move since.
                if let lastAdvance {
                    facts.beginRebuffering(at: max(lastAdvance, facts.rebuffers.last.map { $0.at + $0.duration } ?? 0))
                }
            } else if text.contains(bufferingDone) {
                facts.endRebuffering(at: line.time)
            } else if text.contains("adaptive demux debug:  BaseAdaptationSet ") {
                inVariantSet = text.contains("BaseAdaptationSet default_id")
            } else if inVariantSet, let range = text.range(of: "adaptive demux debug:   Representation ") {
                let uri = text[range.upperBound...].split(separator: " ").first.map(String.init) ?? ""
                if !uri.isEmpty { variants.append(uri) }
            } else if let range = text.range(of: "adaptive demux debug: Retrieving ") {
                let url = String(text[range.upperBound...])
                if let level = variants.firstIndex(where: { matches(url, $0) }), facts.switches.last?.level != level {
                    facts.switches.append(.init(time: line.time, level: level))
                }
            } else if text.contains(finishedMarker) {
                finished = true
            } else if text.contains("using demux module \"adaptive\"") {
                facts.engine = "adaptive"
            }
        }
        return Result(facts: facts, finished: finished)
    }

    /// `(9320001) cur 10720001 rap start (pl 50001/dmx 1450001) pos 0.388333` → 9.27.
    static func position(_ text: Substring) -> Double? {
        guard let cur = text.range(of: " cur "), let dmx = text.range(of: "/dmx ") else { return nil }
        guard let current = Double(text[cur.upperBound...].prefix { $0.isNumber }),
            let start = Double(text[dmx.upperBound...].prefix { $0.isNumber })
        else { return nil }
        return max(0, (current - start) / 1_000_000)
    }

    /// A representation's URI as the master wrote it (relative or absolute path) against a URL VLC fetched.
    static func matches(_ url: String, _ uri: String) -> Bool {
        let url = url.split(separator: "?").first.map(String.init) ?? url
        let uri = uri.split(separator: "?").first.map(String.init) ?? uri
        if url == uri { return true }
        if uri.hasPrefix("/") { return url.hasSuffix(uri) && url.dropLast(uri.count).hasSuffix(hostPart(url)) }
        return url.hasSuffix("/" + uri)
    }

    /// `http://127.0.0.1:8080/s/x/…` → `http://127.0.0.1:8080`.
    private static func hostPart(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return "" }
        let rest = url[scheme.upperBound...]
        return String(url[..<scheme.upperBound]) + String(rest.prefix { $0 != "/" })
    }
}
