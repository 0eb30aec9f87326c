import Addressing
import Foundation

/// The `/ll/…` low-latency stream: the fMP4 media as LL-HLS, with parts published in real
/// time, blocking playlist reloads, delta updates and blocking preload-hint requests
/// (rfc8216bis 6.2.5, 6.2.6). Pure: given the time, says what to answer or until when to wait.
struct LowLatencyStream: Sendable {
    static let flavour = "fmp4"
    static let partsPerSegment = 5
    /// Twelve 2 s segments: long enough that a delta update skips something (CAN-SKIP-UNTIL is 12 s).
    static let windowSize = 12

    enum Outcome {
        case content(Data, contentType: String, isPlaylist: Bool)
        /// Not there yet: ask again at this instant.
        case notBefore(Date)
        case failure(status: Int, message: String)
    }

    let timeline: LowLatencyTimeline
    let settings: LowLatencySettings
    private let writers: [String: LowLatencyPlaylistWriter]
    private let master: Data
    private let initSegments: [String: Data]
    private let targetDuration: Double

    init(media: MediaLibrary, originStart: Date, segmentDuration: Double) throws {
        let prefix = Self.flavour + "/"
        let timeline = LowLatencyTimeline(originStart: originStart, segmentDuration: segmentDuration,
                                          partsPerSegment: Self.partsPerSegment, windowSize: Self.windowSize)
        guard let masterData = media.files[prefix + "master.m3u8"] else {
            throw DemoOriginError.unsupportedPlaylist(path: prefix + "master.m3u8", reason: "missing; /ll/ needs the fMP4 media")
        }
        var renditions: [LowLatencyRendition] = []
        var initSegments: [String: Data] = [:]
        let playlists = media.files.keys.filter {
            $0.hasPrefix(prefix) && $0.hasSuffix("/index.m3u8") && !$0.hasPrefix(prefix + "subs/")
        }.sorted()
        for path in playlists {
            let relative = String(path.dropFirst(prefix.count))
            let vod = try VODMediaPlaylist(text: String(decoding: media.files[path] ?? Data(), as: UTF8.self), path: path)
            let directory = Self.directory(of: path)
            guard let mapURI = vod.mapURI, let initData = media.files[directory + "/" + mapURI] else {
                throw DemoOriginError.unsupportedPlaylist(path: path, reason: "no EXT-X-MAP init segment")
            }
            let files = try vod.segments.map { segment in
                guard let data = media.files[directory + "/" + segment.uri] else {
                    throw DemoOriginError.unsupportedPlaylist(path: path, reason: "segment \(segment.uri) missing")
                }
                return data
            }
            renditions.append(try LowLatencyRendition(
                playlistPath: relative, vod: vod, segmentFiles: files, initSegment: initData,
                partsPerSegment: Self.partsPerSegment, partDuration: timeline.partDuration))
            initSegments[Self.directory(of: relative) + "/" + mapURI] = initData
        }
        guard let first = renditions.first else {
            throw DemoOriginError.unsupportedPlaylist(path: prefix, reason: "no fMP4 media playlists for /ll/")
        }
        if let odd = renditions.first(where: { $0.segmentCount != first.segmentCount }) {
            throw DemoOriginError.unsupportedPlaylist(
                path: odd.playlistPath, reason: "has \(odd.segmentCount) segments, \(first.playlistPath) has \(first.segmentCount)")
        }
        let settings = LowLatencySettings(
            partTarget: LowLatencySettings.milliseconds(renditions.map(\.longestPart).max() ?? 0),
            canSkipUntil: 6 * segmentDuration, segmentsWithParts: 3)
        var writers: [String: LowLatencyPlaylistWriter] = [:]
        for rendition in renditions {
            let others = renditions.filter { $0.playlistPath != rendition.playlistPath }
            let up = String(repeating: "../", count: rendition.playlistPath.split(separator: "/").count - 1)
            writers[rendition.playlistPath] = LowLatencyPlaylistWriter(
                rendition: rendition, timeline: timeline, settings: settings, reportURIs: others.map { up + $0.playlistPath })
        }
        self.timeline = timeline
        self.settings = settings
        self.writers = writers
        self.master = Self.lowLatencyMaster(masterData)
        self.initSegments = initSegments
        self.targetDuration = segmentDuration
    }

    /// `relative`: the path under `/ll/` (`v0/index.m3u8`); `target`: the whole request target, for its query.
    func resolve(relative: String, target: String, now: Date) -> Outcome? {
        if relative == "master.m3u8" {
            return .content(master, contentType: ContentType.playlist, isPlaylist: false)
        }
        if let writer = writers[relative] {
            return playlist(writer, target: target, now: now)
        }
        if let data = initSegments[relative] {
            return .content(data, contentType: ContentType.forPath(relative), isPlaylist: false)
        }
        let directory = Self.directory(of: relative)
        guard let writer = writers[directory + "/index.m3u8"] else { return nil }
        let name = relative.split(separator: "/").last.map(String.init) ?? ""
        if let msn = Self.number(in: name, prefix: "seg-", suffix: ".m4s") {
            guard msn <= timeline.latestCompleteMSN(at: now) else {
                return .failure(status: 404, message: "segment \(msn) is not complete yet (latest complete is \(timeline.latestCompleteMSN(at: now)))")
            }
            return .content(writer.rendition.segmentData(msn: msn, loopSeconds: loopSeconds(writer)),
                            contentType: ContentType.forPath(name), isPlaylist: false)
        }
        if let part = Self.part(in: name), part.index < timeline.partsPerSegment {
            let latest = timeline.latestPart(at: now)
            if part > latest {
                // Only the hinted part (the next one) is held until it is published (rfc8216bis 6.2.6).
                guard part.msn <= latest.msn + 1, timeline.ordinal(of: part) == timeline.ordinal(of: latest) + 1 else {
                    return .failure(status: 404, message: "\(part) is neither published nor the hinted next part (latest is \(latest))")
                }
                return .notBefore(timeline.publicationTime(of: part))
            }
            return .content(writer.rendition.partData(msn: part.msn, index: part.index, loopSeconds: loopSeconds(writer)),
                            contentType: ContentType.forPath(name), isPlaylist: false)
        }
        return nil
    }

    private func playlist(_ writer: LowLatencyPlaylistWriter, target: String, now: Date) -> Outcome {
        let directives: DeliveryDirectives
        switch DeliveryDirectives.parse(target: target) {
        case .failure(let invalid): return .failure(status: 400, message: invalid.reason)
        case .success(let value): directives = value
        }
        if let msn = directives.msn {
            let lastComplete = timeline.latestCompleteMSN(at: now)
            guard msn <= lastComplete + 2 else {
                return .failure(status: 400, message: "_HLS_msn=\(msn) is more than two segments past the last one (\(lastComplete)) (rfc8216bis 6.2.5.2)")
            }
            let awaited: PartPosition
            if let part = directives.part {
                awaited = part < timeline.partsPerSegment ? PartPosition(msn: msn, index: part) : PartPosition(msn: msn + 1, index: 0)
                let ahead = timeline.ordinal(of: awaited) - timeline.ordinal(of: timeline.latestPart(at: now))
                guard ahead <= advancePartLimit else {
                    return .failure(status: 400, message: "_HLS_part=\(part) is \(ahead) parts past the last one, beyond the Advance Part Limit (\(advancePartLimit)) (rfc8216bis 6.2.5.2)")
                }
            } else {
                awaited = PartPosition(msn: msn, index: timeline.partsPerSegment - 1)
            }
            if awaited > timeline.latestPart(at: now) {
                let ready = timeline.publicationTime(of: awaited)
                guard ready.timeIntervalSince(now) <= 3 * targetDuration else {
                    return .failure(status: 503, message: "\(awaited) is not published within three target durations")
                }
                return .notBefore(ready)
            }
        }
        let text = writer.text(at: now, skip: directives.skip)
        return .content(Data(text.utf8), contentType: ContentType.playlist, isPlaylist: true)
    }

    /// rfc8216bis 6.2.5.2: 3 / PART-TARGET parts when PART-TARGET is under a second, else 3.
    var advancePartLimit: Int {
        settings.partTarget < 1 ? Int(3 / settings.partTarget) : 3
    }

    private func loopSeconds(_ writer: LowLatencyPlaylistWriter) -> Int {
        writer.rendition.segmentCount * Int(timeline.live.segmentDuration)
    }

    /// The fMP4 master without subtitles (WebVTT is not cut into parts).
    private static func lowLatencyMaster(_ data: Data) -> Data {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let kept = lines.filter { !($0.hasPrefix("#EXT-X-MEDIA:") && $0.contains("TYPE=SUBTITLES")) }
            .map { $0.replacingOccurrences(of: ",SUBTITLES=\"subs\"", with: "") }
        return Data(kept.joined(separator: "\n").utf8)
    }

    /// `part-<msn>.<index>.m4s`
    private static func part(in name: String) -> PartPosition? {
        guard name.hasPrefix("part-"), name.hasSuffix(".m4s") else { return nil }
        let numbers = name.dropFirst("part-".count).dropLast(".m4s".count).split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 2, numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
              let msn = Int(numbers[0]), let index = Int(numbers[1]) else { return nil }
        return PartPosition(msn: msn, index: index)
    }

    private static func number(in name: String, prefix: String, suffix: String) -> Int? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let digits = name.dropFirst(prefix.count).dropLast(suffix.count)
        guard !digits.isEmpty, digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }

    private static func directory(of path: String) -> String {
        path.split(separator: "/").dropLast().joined(separator: "/")
    }
}
