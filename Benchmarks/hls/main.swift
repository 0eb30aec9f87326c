// Benchmark: parse + rewrite every URI + write, for a 1,200-segment media playlist and a
// 40-variant multivariant playlist. Built and run by Benchmarks/hls/run.sh (release, -O -wmo,
// the HLS module compiled as its own library exactly as the app links it).
import Foundation
import HLS

@main
struct HLSBenchmark {
    static func mediaPlaylist(segments: Int) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:183400\n"
        text += "#EXT-X-PROGRAM-DATE-TIME:2025-03-01T12:00:00.000Z\n#EXT-X-MAP:URI=\"init_1080p.mp4\"\n"
        text += "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://keys.example.com/k1\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\"\n"
        for index in 0..<segments {
            if index > 0 && index % 300 == 0 { text += "#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init_1080p_b.mp4\"\n" }
            text += "#EXTINF:4.004,\nsegments/1080p/segment_\(183_400 + index).m4s\n"
        }
        return text
    }

    static func multivariantPlaylist(variants: Int) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        for group in 0..<4 {
            text += "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\(group)\",LANGUAGE=\"en\",NAME=\"English \(group)\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"audio/\(group)/prog_index.m3u8\"\n"
        }
        for index in 0..<variants {
            let bandwidth = 200_000 + index * 150_000
            text += "#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),AVERAGE-BANDWIDTH=\(bandwidth * 9 / 10),CODECS=\"avc1.640028,mp4a.40.2\",RESOLUTION=1920x1080,FRAME-RATE=29.970,AUDIO=\"aud\(index % 4)\",CLOSED-CAPTIONS=NONE\n"
            text += "video/\(index)/prog_index.m3u8\n"
            text += "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(bandwidth / 10),CODECS=\"avc1.640028\",RESOLUTION=1920x1080,URI=\"video/\(index)/iframe_index.m3u8\"\n"
        }
        return text
    }

    /// A transform like the proxy's: a stable path naming kind and MSN plus the absolute URI
    /// (`/hlschaos/s/segment/183400/https://origin…/segment_183400.m4s`).
    static func proxyURI(_ reference: URIReference) -> String? {
        let absolute = reference.absoluteString ?? reference.original
        var text = "/hlschaos/s/"
        text.reserveCapacity(40 + absolute.utf8.count)
        text += reference.kind.rawValue
        text += "/"
        if let msn = reference.msn { text += String(msn) }
        text += "/"
        text += absolute
        return text
    }

    /// The same URI written straight into the output, as the proxy's streaming rewrite writes it.
    static func writeProxyURI(_ facts: URIPlaceFacts, _ absolute: UnsafeBufferPointer<UInt8>?, _ output: inout [UInt8]) -> Bool {
        guard let absolute else { return false }
        output.append(contentsOf: "/hlschaos/s/".utf8)
        output.append(contentsOf: facts.kind.rawValue.utf8)
        output.append(UInt8(ascii: "/"))
        if let msn = facts.msn { output.append(contentsOf: String(msn).utf8) }
        output.append(UInt8(ascii: "/"))
        output.append(contentsOf: absolute)
        return true
    }

    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    enum Form { case full, bytes, streaming, onePass }

    static func measure(_ name: String, input: [UInt8], iterations: Int, form: Form = .full) {
        let url = URL(string: "https://origin.example.com/live/event/1080p/index.m3u8?token=abc")
        var checksum = 0
        var samples: [Double] = []
        var cpuSamples: [Double] = []
        samples.reserveCapacity(iterations)
        for iteration in 0..<(iterations + iterations / 10) {
            let cpuStart = threadCPUNanoseconds()
            let start = DispatchTime.now().uptimeNanoseconds
            if form == .onePass {
                guard let rewrite = Playlist.rewritingPlainMediaURIs(input, url: url, writing: writeProxyURI) else {
                    fatalError("benchmark input is not a plain media playlist")
                }
                let elapsed = DispatchTime.now().uptimeNanoseconds - start
                let cpu = threadCPUNanoseconds() - cpuStart
                checksum &+= rewrite.bytes.count
                if iteration >= iterations / 10 {
                    samples.append(Double(elapsed) / 1000)
                    cpuSamples.append(Double(cpu) / 1000)
                }
                continue
            }
            guard var playlist = try? Playlist(bytes: input, url: url) else { fatalError("benchmark input does not parse") }
            let output: [UInt8]
            switch form {
            case .streaming:
                var starts: [Int]? = []
                output = playlist.bytesRewritingURIs(rewrittenAt: &starts, writing: writeProxyURI)
            case .bytes:
                output = playlist.bytesRewritingURIs(proxyURI)
            case .full, .onePass:
                playlist.rewriteURIs(proxyURI)
                output = playlist.serialized()
            }
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            let cpu = threadCPUNanoseconds() - cpuStart
            checksum &+= output.count
            if iteration >= iterations / 10 {  // the first 10 % warm up
                samples.append(Double(elapsed) / 1000)
                cpuSamples.append(Double(cpu) / 1000)
            }
        }
        samples.sort()
        cpuSamples.sort()
        func format(_ value: Double) -> String { String(format: "%.1f", value) }
        print("\(name): \(input.count) bytes in, \(iterations) runs")
        print("  wall time: median \(format(samples[samples.count / 2])) µs, p90 \(format(samples[samples.count * 9 / 10])) µs, min \(format(samples[0])) µs")
        print("  thread CPU time: median \(format(cpuSamples[cpuSamples.count / 2])) µs, p90 \(format(cpuSamples[cpuSamples.count * 9 / 10])) µs (checksum \(checksum))")
    }

    static func main() {
        let iterations = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1000 : 1000
        let media = Array(mediaPlaylist(segments: 1200).utf8)
        let check = try? Playlist(bytes: media)
        precondition(check?.segments.count == 1200, "media playlist must have 1,200 segments")
        let multivariant = Array(multivariantPlaylist(variants: 40).utf8)
        precondition((try? Playlist(bytes: multivariant))?.variants.count == 40, "multivariant playlist must have 40 variants")
        // HLS_BENCH_ONLY=streaming or =one-pass measures that form alone (for a profile of it).
        let only = ProcessInfo.processInfo.environment["HLS_BENCH_ONLY"]
        if only == nil {
            measure("media playlist, 1,200 segments", input: media, iterations: iterations)
            measure("multivariant playlist, 40 variants + 40 I-frame variants", input: multivariant, iterations: iterations)
            measure("media playlist, 1,200 segments, bytesRewritingURIs (a String per URI)", input: media, iterations: iterations, form: .bytes)
        }
        // What the proxy does with a playlist no rule changes: the bytes rewritten by streaming, the model left as parsed.
        if only == nil || only == "streaming" {
            measure("media playlist, 1,200 segments, streaming rewrite", input: media, iterations: iterations, form: .streaming)
        }
        // What the proxy does with a plain media playlist no rule changes: the rewrite in one pass, no parse.
        if only == nil || only == "one-pass" {
            measure("media playlist, 1,200 segments, one-pass rewrite", input: media, iterations: iterations, form: .onePass)
        }
    }
}
