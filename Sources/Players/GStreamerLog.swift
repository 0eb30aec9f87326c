import Foundation

/// Reads `gst-launch-1.0 -v` output (stdout) and the `GST_DEBUG` log (stderr) of a playbin run:
///
/// - `Got EOS from element "playbin3-0".` → reached the end;
/// - `ERROR: from element /…/GstSoupHTTPSrc:souphttpsrc0: Not Found` (+ `Not Found (404), URL: …` in
///   its debug info) → the fatal error, with the status when there is one;
/// - `WARNING: from element …` → a non-fatal error;
/// - `souphttpsrc … error: Service Unavailable (503), URL: …` (GST_DEBUG, legacy hlsdemux fetches
///   through souphttpsrc) → an error with code 503; hlsdemux2 does not log failed fragments at
///   these levels: its 503s are only seen through what they cause;
/// - `last-message = chain … (hlschaos_video:sink) (… pts: 0:01:02.080000000, duration: 0:00:00.040000000`
///   → position (video buffers reaching the sink, relative to the first one);
/// - `stream variant-592320bps-… @ 592320: URL` (hlsdemux2) / `stream <uri> @ 592320: URL` (hlsdemux)
///   list the variants in master order; `initial variant selected : \`variant-…\`` / `selected <uri>`
///   and `switching to bitrate 592320bps` → level switches;
/// - `buffering... 42%` → the last buffering level; `Setting pipeline to PLAYING` → it prerolled; `GstHLSDemux2:` / `GstHLSDemux:` → the demuxer that ran;
/// - `Buffering, setting pipeline to PAUSED ...` … `Done buffering, setting pipeline to PLAYING ...`
///   (gst-launch pausing for a buffering message under 100 % and resuming at 100 %) → a rebuffering
///   span, from the first line's arrival to the second's; only after the first video buffer reached
///   the sink (before it, it is startup).
public enum GStreamerLog {
    public struct Result: Sendable, Equatable {
        public var facts: LogFacts
        /// The last `buffering... N%` value, if any.
        public var buffering: Int?
        /// `Setting pipeline to PLAYING` was printed (it prerolled and finished buffering).
        public var playing: Bool
    }

    static let rebufferingStarts = "Buffering, setting pipeline to PAUSED"
    static let rebufferingEnds = "Done buffering, setting pipeline to PLAYING"

    /// The video sink's name, in the pipeline and in the log.
    public static let videoSink = "hlschaos_video"

    public static func parse(stdout: [LogLine], stderr: [LogLine]) -> Result {
        var facts = LogFacts()
        var buffering: Int?
        var playing = false
        var firstPTS: Double?
        var variants: [(name: String, bandwidth: Int)] = []

        let lines = LogLine.merge(stdout, stderr)
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let text = line.text
            defer { index += 1 }

            // gst-launch prints buffering progress without a newline: other text follows on that line.
            if let level = lastBuffering(text) { buffering = level }
            if text.contains("Got EOS from element") { facts.ended = true }
            if text.contains("Setting pipeline to PLAYING") { playing = true }
            // gst-launch pauses the pipeline when a buffering message under 100 % comes while it
            // plays, and resumes at 100 %. Before the first video buffer reached the sink it is startup.
            if text.contains(rebufferingStarts), !facts.progress.isEmpty { facts.beginRebuffering(at: line.time) }
            if text.contains(rebufferingEnds) { facts.endRebuffering(at: line.time) }
            if text.hasPrefix("buffering... ") || text.hasPrefix("Setting pipeline") || text.hasPrefix("Got EOS") {
                continue
            } else if text.hasPrefix("ERROR: from element ") || text.hasPrefix("WARNING: from element ") {
                let fatal = text.hasPrefix("ERROR")
                let (element, message) = elementMessage(text)
                // The debug info that follows often carries the HTTP status and the URL.
                var code: Int?
                var detail = ""
                var next = index + 1
                while next < lines.count, next <= index + 3, !lines[next].text.hasPrefix("ERROR"), !lines[next].text.hasPrefix("WARNING") {
                    if let found = statusCode(lines[next].text) { code = found; detail = statusPhrase(lines[next].text) }
                    next += 1
                }
                let full = detail.isEmpty ? message : detail.hasPrefix(message) ? detail : "\(message): \(detail)"
                facts.errors.append(.init(time: line.time, kind: element, code: code, fatal: fatal, message: full))
                if fatal, facts.fatal == nil { facts.fatal = "\(element): \(full)" }
            } else if text.contains("\(videoSink):sink) ("), text.contains("last-message = chain") {
                if let pts = clock(after: "pts: ", in: text) {
                    let duration = clock(after: "duration: ", in: text) ?? 0
                    if firstPTS == nil { firstPTS = pts }
                    facts.progress.append(.init(time: line.time, position: pts + duration - (firstPTS ?? pts)))
                }
            } else if text.contains("gst_soup_http_src_parse_status"), text.contains("), URL: "), let code = statusCode(text) {
                facts.errors.append(.init(time: line.time, kind: "souphttpsrc", code: code, message: statusPhrase(text)))
            } else if let variant = variantLine(text) {
                if !variants.contains(where: { $0.name == variant.name }) { variants.append(variant) }
            } else if let selected = initialVariant(text) {
                if let level = variants.firstIndex(where: { $0.name == selected }) {
                    facts.switches.append(.init(time: line.time, level: level))
                }
            } else if let range = text.range(of: "switching to bitrate ") {
                let bandwidth = Int(text[range.upperBound...].prefix { $0.isNumber })
                if let level = variants.firstIndex(where: { $0.bandwidth == bandwidth }), facts.switches.last?.level != level {
                    facts.switches.append(.init(time: line.time, level: level))
                }
            }
            if facts.engine == nil {
                if text.contains("GstHLSDemux2:") || text.contains("<hlsdemux2-") {
                    facts.engine = "hlsdemux2"
                } else if text.contains("GstHLSDemux:") || text.contains("<hlsdemux0>") {
                    facts.engine = "hlsdemux"
                }
            }
        }
        return Result(facts: facts, buffering: buffering, playing: playing)
    }

    /// `buffering... 1%  buffering... 2%  buffering... 4%` → 4.
    static func lastBuffering(_ text: String) -> Int? {
        guard let range = text.range(of: "buffering... ", options: .backwards) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// `ERROR: from element /GstPlayBin3:playbin3-0/…/GstHLSDemux2:hlsdemux2-0: Couldn't download fragments`
    /// → ("hlsdemux2-0", "Couldn't download fragments").
    static func elementMessage(_ text: String) -> (element: String, message: String) {
        let body = text.drop { $0 != "/" }
        guard let separator = body.range(of: ": ") else { return ("gstreamer", String(text)) }
        let path = body[..<separator.lowerBound]
        let element = path.split(separator: "/").last.map { $0.split(separator: ":").last.map(String.init) ?? String($0) } ?? "gstreamer"
        var message = String(body[separator.upperBound...])
        // Legacy hlsdemux repeats its source's debug string in the message (`Service Unavailable:
        // ../ext/soup/gstsouphttpsrc.c(1690): …`); the status follows on the next line.
        if let debug = message.range(of: ": ../") { message = String(message[..<debug.lowerBound]) }
        return (element, message)
    }

    /// `Not Found (404), URL: …` / `Service Unavailable (503), URL: …` → the status.
    static func statusCode(_ text: String) -> Int? {
        guard let url = text.range(of: "), URL: ") else { return nil }
        let before = text[..<url.lowerBound]
        guard let open = before.lastIndex(of: "(") else { return nil }
        let digits = before[before.index(after: open)...]
        guard digits.count == 3, let code = Int(digits) else { return nil }
        return code
    }

    /// `…souphttpsrc1:: Service Unavailable (503), URL: http://…/s000.ts, Redirect to: (NULL)` →
    /// `Service Unavailable (503), URL: http://…/s000.ts`.
    static func statusPhrase(_ text: String) -> String {
        guard let url = text.range(of: "), URL: ") else { return text }
        let start = text[..<url.lowerBound].range(of: ": ", options: .backwards)?.upperBound ?? text.startIndex
        var phrase = String(text[start...])
        if let redirect = phrase.range(of: ", Redirect to: (NULL)") { phrase.removeSubrange(redirect.lowerBound...) }
        return phrase
    }

    /// `pts: 0:01:02.080000000` → 62.08 seconds; nil for `none`.
    static func clock(after marker: String, in text: String) -> Double? {
        guard let range = text.range(of: marker) else { return nil }
        let value = text[range.upperBound...].prefix { $0.isNumber || $0 == ":" || $0 == "." }
        let parts = value.split(separator: ":")
        guard parts.count == 3, let hours = Double(parts[0]), let minutes = Double(parts[1]), let seconds = Double(parts[2]) else { return nil }
        return hours * 3600 + minutes * 60 + seconds
    }

    /// `… hls_master_playlist_new_from_data: stream variant-201907bps-… @ 201907: http://…` (hlsdemux2)
    /// or `… gst_hls_master_playlist_new_from_data: stream /s/…/v0/index.m3u8 @ 201907: http://…` (hlsdemux).
    static func variantLine(_ text: String) -> (name: String, bandwidth: Int)? {
        guard text.contains("master_playlist_new_from_data: stream "), let start = text.range(of: "new_from_data: stream ") else { return nil }
        let rest = text[start.upperBound...]
        guard let at = rest.range(of: " @ ") else { return nil }
        let name = String(rest[..<at.lowerBound])
        guard let bandwidth = Int(rest[at.upperBound...].prefix { $0.isNumber }) else { return nil }
        return (name, bandwidth)
    }

    /// hlsdemux2: ``initial variant selected : `variant-201907bps-…` ``; hlsdemux: `process_manifest:<hlsdemux0> selected <uri>`.
    static func initialVariant(_ text: String) -> String? {
        if let range = text.range(of: "initial variant selected : `") {
            return String(text[range.upperBound...].prefix { $0 != "`" })
        }
        if text.contains("gst_hls_demux_process_manifest:"), let range = text.range(of: "> selected ") {
            return String(text[range.upperBound...])
        }
        return nil
    }
}
