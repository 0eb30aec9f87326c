// libFuzzer target for the HLS parser; built by scripts/fuzz-hls.sh with
// `swiftc -sanitize=fuzzer,address -parse-as-library Sources/HLS/*.swift Tests/Fuzz/HLSFuzz.swift`.
// Not a SwiftPM target on purpose: it needs the fuzzer runtime.
//
// Besides "no crash", it checks the model's promises on every input:
// an unmodified playlist writes back byte for byte, every edit leaves a playlist that
// parses again, and URI rewriting changes nothing but URIs.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func hlsFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let base = URL(string: "https://origin.example.com/live/stream/index.m3u8?token=abc")

    _ = try? Playlist(bytes: input, url: base, strict: true)

    guard var playlist = try? Playlist(bytes: input, url: base) else { return 0 }
    guard playlist.serialized() == input else {
        fatalError("round trip changed an unmodified playlist")
    }
    _ = (playlist.variants, playlist.renditions, playlist.segments, playlist.uriReferences)

    let referenceCount = playlist.uriReferences.count
    playlist.rewriteURIs { reference in
        "https://proxy.local/r/\(reference.kind.rawValue)/\(reference.msn ?? -1)/" + (reference.absoluteString ?? reference.original)
    }
    let afterRewrite = playlist.serialized()
    guard let reparsed = try? Playlist(bytes: afterRewrite, url: base) else {
        fatalError("rewritten playlist no longer parses")
    }
    if reparsed.uriReferences.count != referenceCount || reparsed.segments.count != playlist.segments.count {
        fatalError("rewriting changed the structure")
    }

    var edited = playlist
    edited.addTag("#EXT-X-GAP", toSegmentsWhere: { $0.index % 3 == 1 })
    edited.removeTag(named: "EXT-X-GAP", fromSegmentsWhere: { $0.index % 3 == 2 })
    edited.removeSegments(where: { $0.index % 4 == 3 })
    edited.removeLeadingSegments(1)
    edited.removeVariants(where: { $0.index % 2 == 1 })
    edited.removeRenditions(where: { $0.index % 2 == 0 })
    edited.removeIFrameVariants(where: { $0.index == 0 })
    edited.setHeaderTag("#EXT-X-TARGETDURATION", value: "7")
    edited.setEndList(!edited.endList)
    // Raw lines go after #EXTM3U: above it they would (rightly) make the input non-HLS.
    let header = (0..<edited.lineCount).first { edited.line($0)?.contains("#EXTM3U") == true } ?? 0
    edited.insertLines(["#EXT-X-FUZZ", "garbage"], afterLine: header + size % 7)
    if (try? Playlist(bytes: edited.serialized(), url: base)) == nil && playlist.kind == .media {
        fatalError("edited playlist no longer parses")
    }
    return 0
}
