import Foundation
import HLS
import Testing
@testable import DemoOrigin

/// Helpers for the `/ll/` tests: answers from the pure origin and their playlists.
extension DemoOrigin {
    /// The response to a GET that must be answered at once (not held).
    func immediate(_ path: String) throws -> DemoResponse {
        switch answer(method: "GET", path: path, headers: []) {
        case .response(let response):
            return response
        case .retry(let delay):
            throw WireError(description: "\(path) was held for \(delay) s; expected an answer at once")
        }
    }

    /// How long a GET is held, or nil when it is answered at once.
    func holdTime(_ path: String) -> TimeInterval? {
        if case .retry(let delay) = answer(method: "GET", path: path, headers: []) { return delay }
        return nil
    }

    /// A playlist answered 200 at once, parsed by the HLS module in strict mode (any problem it knows throws).
    func lowLatencyPlaylist(_ path: String) throws -> Playlist {
        let response = try immediate(path)
        try #require(response.status == 200, "\(path): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        return try Playlist(string: String(decoding: response.body, as: UTF8.self), strict: true)
    }
}

enum LowLatencyMedia {
    static let mediaPlaylists = ["v0/index.m3u8", "v1/index.m3u8", "v2/index.m3u8", "audio/en/index.m3u8", "audio/fr/index.m3u8"]

    /// The boxes at the top level of an ISO BMFF byte string, as (type, size).
    static func topLevelBoxes(_ data: Data) -> [(type: String, size: Int)] {
        let bytes = [UInt8](data)
        var boxes: [(String, Int)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, offset + size <= bytes.count else { return boxes + [("<bad size \(size)>", 0)] }
            boxes.append((String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self), size))
            offset += size
        }
        return offset == bytes.count ? boxes : boxes + [("<trailing bytes>", 0)]
    }

    /// The payload bytes of every top-level `mdat`, concatenated.
    static func mdatPayloads(_ data: Data) -> Data {
        var payload = Data()
        var offset = 0
        for box in topLevelBoxes(data) {
            if box.type == "mdat" { payload.append(data[(data.startIndex + offset + 8)..<(data.startIndex + offset + box.size)]) }
            offset += box.size
        }
        return payload
    }

    /// The URIs of every part a playlist lists, in order (segments' parts, then trailing ones).
    static func partURIs(_ playlist: Playlist) -> [String] {
        playlist.segments.flatMap { $0.parts.map(\.uri) } + playlist.trailingParts.map(\.uri)
    }
}
