import Foundation

/// Reads mpv's output at `--msg-level=all=v` (messages on stdout when it is not a terminal) and its
/// status line, set by the driver to `hlschaos-position=${=time-pos}` (on stderr):
///
/// - `[ffmpeg] http: HTTP error 503 Service Unavailable` → an error with code 503 (mpv demuxes HLS
///   with lavf, so the messages are ffmpeg's);
/// - `[ffmpeg/demuxer] hls: Failed to open segment 8 of playlist 4` → a `segmentFailed` error;
/// - `Failed to open <url>.` → an `open` error (with the status of the HTTP error just before it);
/// - `Exiting... (End of file)` → reached the end; `Exiting... (Errors when loading file)` and
///   `Exiting... (Some errors happened)` → fatal (`Quit` is the driver stopping it);
/// - `hlschaos-position=12.360000` → position samples;
/// - ` (+) Video --vid=3 (h264 960x540 …)` → the start level (mpv keeps the variant it picked:
///   lavf does not switch; mpv takes the highest bitrate by default);
/// - `[lavf] Found 'hls' at score=100` → the engine;
/// - `[cplayer] Enter buffering (buffer went from 100% -> 0%) [0.000000s].` … `[cplayer] End
///   buffering (waited 3.823510 secs) [1.800000s].` (mpv's `paused-for-cache`, at `-v`) → a
///   rebuffering span that ended when the line arrived and lasted what mpv says it waited; only
///   after the first position sample (a wait before it is startup).
public enum MPVLog {
    public static let positionTag = "hlschaos-position="
    static let endBuffering = "[cplayer] End buffering (waited "

    public static func parse(_ lines: [LogLine]) -> LogFacts {
        var facts = LogFacts()
        for line in lines {
            let text = line.text
            if text.hasPrefix(positionTag) {
                if let position = Double(text.dropFirst(positionTag.count)) {
                    facts.progress.append(.init(time: line.time, position: position))
                }
            } else if text.hasPrefix("[cplayer] Enter buffering") {
                if !facts.progress.isEmpty { facts.beginRebuffering(at: line.time) }
            } else if text.hasPrefix(endBuffering) {
                let waited = Double(text.dropFirst(endBuffering.count).prefix { $0.isNumber || $0 == "." })
                facts.endRebuffering(at: line.time, duration: waited)
            } else if let code = FFmpegLog.httpCode(in: text, after: "HTTP error ") {
                facts.errors.append(.init(time: line.time, kind: "HTTP error \(code)", code: code, message: message(text)))
            } else if text.contains("Failed to open segment ") {
                facts.errors.append(.init(time: line.time, kind: "segmentFailed", message: message(text)))
            } else if text.hasPrefix("Failed to open ") {
                // The HTTP error just before it is why (a master or media playlist that failed).
                let cause = facts.errors.last.flatMap { $0.code != nil && $0.kind != "open" ? $0 : nil }
                facts.errors.append(.init(
                    time: line.time, kind: "open", code: cause?.code,
                    message: cause.map { "\(text) (\($0.message))" } ?? text))
            } else if text.hasPrefix("Exiting... (") {
                let why = text.dropFirst("Exiting... (".count).prefix { $0 != ")" }
                if why == "End of file" {
                    facts.ended = true
                } else if why != "Quit" {
                    facts.fatal = "mpv: \(why)" + OutcomeRules.detail(facts.lastError)
                }
            } else if let range = text.range(of: "(+) Video --vid=") {
                if let track = Int(text[range.upperBound...].prefix { $0.isNumber }), track >= 1 {
                    facts.switches.append(.init(time: line.time, level: track - 1))
                }
            } else if text.hasPrefix("[lavf] Found '"), let name = text.dropFirst("[lavf] Found '".count).split(separator: "'").first {
                facts.engine = "lavf \(name)"
            }
        }
        return facts
    }

    /// `[ffmpeg/demuxer] hls: Failed to open…` → `hls: Failed to open…`.
    static func message(_ text: String) -> String {
        guard text.hasPrefix("["), let close = text.firstIndex(of: "]") else { return text }
        return String(text[text.index(after: close)...].drop { $0 == " " })
    }
}
