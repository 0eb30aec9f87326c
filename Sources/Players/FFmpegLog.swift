import Foundation

/// Reads ffmpeg's output: stderr at `-v repeat+level+info` (every line tagged `[info]`,
/// `[warning]`, `[error]`…; untagged lines are read too) and the `-progress pipe:1` blocks on stdout.
///
/// - `HTTP error 503 Service Unavailable` → an error with code 503;
/// - `Failed to open segment 8 of playlist 4` → a `segmentFailed` error;
/// - `Server returned 404 Not Found` (a playlist or key that fails to open) → an error with code 404;
/// - other `[error]` / `[fatal]` lines → `error` errors (the last one is the reason of a failure);
/// - `out_time_us=` → position samples; `frame=` → frames decoded; `progress=end` → reached the end;
/// - `Input #0, hls, from` → the engine (lavf's HLS demuxer).
public enum FFmpegLog {
    public struct Result: Sendable, Equatable {
        public var facts: LogFacts
        /// Video frames decoded (the last `frame=`), when a progress block was printed.
        public var frames: Int?
        /// A video stream was mapped to the output (`Stream #0:N -> #0:M (h264 …`).
        public var videoOutput: Bool
    }

    public static func parse(stderr: [LogLine], progress: [LogLine]) -> Result {
        var facts = LogFacts()
        var frames: Int?
        var videoOutput = false
        for line in progress {
            let text = line.text
            if text.hasPrefix("out_time_us="), let micros = Double(text.dropFirst("out_time_us=".count)), micros >= 0 {
                facts.progress.append(.init(time: line.time, position: micros / 1_000_000))
            } else if text.hasPrefix("frame="), let count = Int(text.dropFirst("frame=".count).trimmingCharacters(in: .whitespaces)) {
                frames = count
            } else if text == "progress=end" {
                facts.ended = true
            }
        }
        for line in stderr {
            let (level, message) = split(line.text)
            if let code = httpCode(in: message, after: "HTTP error ") {
                facts.errors.append(.init(time: line.time, kind: "HTTP error \(code)", code: code, message: message))
            } else if message.contains("Failed to open segment ") {
                facts.errors.append(.init(time: line.time, kind: "segmentFailed", message: message))
            } else if level == "error" || level == "fatal" || level == "panic" {
                let code = httpCode(in: message, after: "Server returned ")
                facts.errors.append(.init(time: line.time, kind: code.map { "HTTP error \($0)" } ?? "error", code: code, message: message))
            }
            if message.hasPrefix("Input #0, ") {
                facts.engine = message.dropFirst("Input #0, ".count).split(separator: ",").first.map { "lavf \($0)" }
            }
            if message.contains(" -> #0:"), message.contains("Stream #0:"), isVideoCodecMapping(message) {
                videoOutput = true
            }
        }
        return Result(facts: facts, frames: frames, videoOutput: videoOutput)
    }

    /// `[hls @ 0x55…] [warning] Failed to open…` → ("warning", "Failed to open…"); `[error] url: …`
    /// → ("error", "url: …"); a line without a level → (nil, the line without its `[context @ …]`).
    /// The spaces after the tags go too (`[info]   Program 0 …` → "Program 0 …").
    public static func split(_ line: String) -> (level: String?, message: String) {
        var rest = Substring(line)
        var level: String?
        for _ in 0..<2 {
            guard rest.hasPrefix("["), let close = rest.firstIndex(of: "]") else { break }
            let tag = rest[rest.index(after: rest.startIndex)..<close]
            if ["quiet", "panic", "fatal", "error", "warning", "info", "verbose", "debug", "trace"].contains(tag) {
                level = String(tag)
            } else if !tag.contains(" @ ") {
                break
            }
            rest = rest[rest.index(after: close)...].drop { $0 == " " }
        }
        return (level, String(rest))
    }

    /// The three-digit status after `marker` ("HTTP error 503 …", "Server returned 404 Not Found").
    static func httpCode(in message: String, after marker: String) -> Int? {
        guard let range = message.range(of: marker) else { return nil }
        let digits = message[range.upperBound...].prefix { $0.isNumber }
        guard digits.count == 3, let code = Int(digits) else { return nil }
        return code
    }

    /// `Stream #0:4 -> #0:0 (h264 (native) -> wrapped_avframe (native))`: a video decoder feeds the output.
    static func isVideoCodecMapping(_ message: String) -> Bool {
        let videoCodecs = ["h264", "hevc", "vp9", "av1", "mpeg2video", "mpeg4", "vp8"]
        guard let open = message.firstIndex(of: "(") else { return false }
        let codec = message[message.index(after: open)...].prefix { $0 != " " && $0 != ")" }
        return videoCodecs.contains(String(codec))
    }
}
