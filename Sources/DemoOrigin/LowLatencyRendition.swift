import Foundation

/// One fMP4 rendition of the `/ll/` stream: its VOD playlist and every VOD segment cut into
/// parts (`FMP4PartSplitter`), prepared once when the origin starts.
struct LowLatencyRendition: Sendable {
    /// Media playlist path relative to the flavour folder, e.g. `v0/index.m3u8`, `audio/en/index.m3u8`.
    let playlistPath: String
    let vod: VODMediaPlaylist
    let timescale: UInt32
    /// `parts[i][k]`: part `k` of VOD segment `i`, loop 0 (VOD timestamps).
    let parts: [[PartBytes]]

    struct PartBytes: Sendable {
        var data: Data
        var duration: Double
        var independent: Bool
    }

    init(playlistPath: String, vod: VODMediaPlaylist, segmentFiles: [Data], initSegment: Data,
         partsPerSegment: Int, partDuration: Double) throws {
        guard let timescale = FMP4TimeShift.timescale(ofInitSegment: initSegment) else {
            throw DemoOriginError.unsupportedPlaylist(path: playlistPath, reason: "no media timescale in its init segment")
        }
        var parts: [[PartBytes]] = []
        for (index, file) in segmentFiles.enumerated() {
            do {
                let split = try FMP4PartSplitter.split(
                    file, timescale: timescale, partDuration: partDuration, partCount: partsPerSegment,
                    sequenceBase: UInt32(index * partsPerSegment + 1))
                parts.append(split.map { PartBytes(data: $0.data, duration: $0.duration, independent: $0.independent) })
            } catch {
                throw DemoOriginError.unsupportedPlaylist(
                    path: playlistPath, reason: "segment \(vod.segments[index].uri) cannot be cut into parts: \(error)")
            }
        }
        self.playlistPath = playlistPath
        self.vod = vod
        self.timescale = timescale
        self.parts = parts
    }

    var segmentCount: Int { vod.segments.count }

    /// The longest part of this rendition, in seconds.
    var longestPart: Double {
        parts.joined().map(\.duration).max() ?? 0
    }

    /// Part `index` of live segment `msn`, its timestamps moved forward by whole loops as `/live/` does.
    func partData(msn: Int, index: Int, loopSeconds: Int) -> Data {
        let loop = msn / segmentCount
        let data = parts[msn % segmentCount][index].data
        guard loop > 0 else { return data }
        let partsPerLoop = segmentCount * parts[0].count
        let (sequenceOffset, overflow) = UInt32(truncatingIfNeeded: loop).multipliedReportingOverflow(by: UInt32(partsPerLoop))
        guard !overflow, loop <= Int(UInt32.max) else { return data }
        return FMP4TimeShift.shifted(data, bySeconds: loop * loopSeconds, timescale: timescale,
                                     sequenceOffset: sequenceOffset) ?? data
    }

    /// Live segment `msn`: its parts back to back.
    func segmentData(msn: Int, loopSeconds: Int) -> Data {
        (0..<parts[msn % segmentCount].count).reduce(into: Data()) {
            $0.append(partData(msn: msn, index: $1, loopSeconds: loopSeconds))
        }
    }
}
