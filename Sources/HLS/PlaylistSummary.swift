import Foundation
import JSON

/// What `hlschaos inspect` prints: a readable table and a JSON document. Pure formatting,
/// kept here so it is tested with the model.
extension Playlist {
    // MARK: JSON

    /// The `inspect --json` document, keys in the documented order; absent values are omitted.
    public func inspectionJSON() -> String {
        var root: [(String, JSONValue?)] = []
        switch kind {
        case .multivariant:
            root = [
                ("type", .string("multivariant")),
                ("variants", .array(variants.map { variant in
                    .object(omittingNil: [
                        ("index", .int(variant.index)), ("bandwidth", .int(variant.bandwidth)),
                        ("averageBandwidth", variant.averageBandwidth.map(JSONValue.int)),
                        ("resolution", variant.resolution.map(JSONValue.string)),
                        ("codecs", variant.codecs.map(JSONValue.string)),
                        ("frameRate", variant.frameRate.map(JSONValue.double)),
                        ("audio", variant.audio.map(JSONValue.string)),
                        ("subtitles", variant.subtitles.map(JSONValue.string)),
                        ("uri", .string(variant.uri)),
                    ])
                })),
                ("renditions", .array(renditions.map { rendition in
                    .object(omittingNil: [
                        ("type", .string(rendition.type)), ("groupId", .string(rendition.groupID)),
                        ("language", rendition.language.map(JSONValue.string)), ("name", .string(rendition.name)),
                        ("default", .bool(rendition.isDefault)), ("uri", rendition.uri.map(JSONValue.string)),
                    ])
                })),
                ("iframeVariants", .array(iFrameVariants.map { variant in
                    .object(omittingNil: [
                        ("index", .int(variant.index)), ("bandwidth", .int(variant.bandwidth)),
                        ("resolution", variant.resolution.map(JSONValue.string)),
                        ("codecs", variant.codecs.map(JSONValue.string)), ("uri", .string(variant.uri)),
                    ])
                })),
                ("sessionData", .array(sessionData.map { data in
                    .object(omittingNil: [
                        ("dataId", .string(data.dataID)), ("value", data.value.map(JSONValue.string)),
                        ("uri", data.uri.map(JSONValue.string)), ("language", data.language.map(JSONValue.string)),
                    ])
                })),
            ]
        case .media:
            root = [
                ("type", .string("media")),
                ("targetDuration", targetDuration.map(JSONValue.int)),
                ("mediaSequence", .int(mediaSequence)),
                ("discontinuitySequence", .int(discontinuitySequence)),
                ("playlistType", playlistType.map(JSONValue.string)),
                ("endList", .bool(endList)),
                ("segments", .array(segments.map { segment in
                    .object(omittingNil: [
                        ("msn", .int(segment.msn)), ("discontinuitySequence", .int(segment.discontinuitySequence)),
                        ("duration", .double(segment.duration)), ("uri", .string(segment.uri)),
                        ("byteRange", segment.byteRange.map { .object([("length", .int($0.length)), ("offset", .int($0.offset))]) }),
                        ("gap", .bool(segment.gap)),
                        ("key", segment.key.map {
                            .object(omittingNil: [("method", .string($0.method)), ("uri", $0.uri.map(JSONValue.string)),
                                                  ("iv", $0.iv.map(JSONValue.string))])
                        }),
                        ("map", segment.map.map { .object([("uri", .string($0.uri))]) }),
                        ("programDateTime", segment.programDateTime.map { .string(ProgramDateTime.format($0)) }),
                    ])
                })),
            ]
        }
        return JSONValue.object(omittingNil: root).serialized()
    }

    // MARK: table

    /// The readable `inspect` summary.
    public func inspectionTable() -> String {
        var out: [String] = []
        switch kind {
        case .multivariant:
            out.append("Multivariant playlist: \(variants.count) variants, \(renditions.count) renditions, "
                       + "\(iFrameVariants.count) I-frame variants")
            if let steering = contentSteering {
                out.append("Content steering: \(steering.serverURI)" + (steering.pathwayID.map { " (pathway \($0))" } ?? ""))
            }
            out.append("")
            out.append("Variants")
            out += TextTable.lines(["#", "BANDWIDTH", "AVG", "RESOLUTION", "CODECS", "AUDIO", "URI"], variants.map {
                [String($0.index), String($0.bandwidth), $0.averageBandwidth.map(String.init) ?? "-", $0.resolution ?? "-",
                 $0.codecs ?? "-", $0.audio ?? "-", $0.uri]
            })
            if !renditions.isEmpty {
                out.append("")
                out.append("Renditions")
                out += TextTable.lines(["#", "TYPE", "GROUP-ID", "LANGUAGE", "NAME", "DEFAULT", "URI"], renditions.map {
                    [String($0.index), $0.type, $0.groupID, $0.language ?? "-", $0.name, $0.isDefault ? "yes" : "no", $0.uri ?? "-"]
                })
            }
            if !iFrameVariants.isEmpty {
                out.append("")
                out.append("I-frame variants")
                out += TextTable.lines(["#", "BANDWIDTH", "RESOLUTION", "CODECS", "URI"], iFrameVariants.map {
                    [String($0.index), String($0.bandwidth), $0.resolution ?? "-", $0.codecs ?? "-", $0.uri]
                })
            }
            if !sessionData.isEmpty {
                out.append("")
                out.append("Session data")
                out += TextTable.lines(["DATA-ID", "VALUE", "URI", "LANGUAGE"], sessionData.map {
                    [$0.dataID, $0.value ?? "-", $0.uri ?? "-", $0.language ?? "-"]
                })
            }
        case .media:
            var header = "Media playlist: \(segments.count) segments, "
            header += String(format: "%.3f s", totalDuration)
            header += ", target duration \(targetDuration.map { "\($0) s" } ?? "missing")"
            header += ", media sequence \(mediaSequence), discontinuity sequence \(discontinuitySequence)"
            if let playlistType { header += ", type \(playlistType)" }
            header += endList ? ", ended" : ", live"
            out.append(header)
            out.append("")
            out += TextTable.lines(["MSN", "DISC-SEQ", "DURATION", "FLAGS", "URI"], segments.map { segment in
                var flags: [String] = []
                if segment.discontinuity { flags.append("discontinuity") }
                if segment.gap { flags.append("gap") }
                if let key = segment.key { flags.append("key=\(key.method)") }
                if segment.map != nil { flags.append("map") }
                if let range = segment.byteRange { flags.append("bytes=\(range.length)@\(range.offset)") }
                if let date = segment.programDateTime { flags.append("pdt=\(ProgramDateTime.format(date))") }
                if !segment.parts.isEmpty { flags.append("parts=\(segment.parts.count)") }
                return [String(segment.msn), String(segment.discontinuitySequence), String(format: "%.3f", segment.duration),
                        flags.isEmpty ? "-" : flags.joined(separator: ","), segment.uri]
            })
            if !trailingParts.isEmpty || !preloadHints.isEmpty {
                out.append("")
                out.append("Next segment (MSN \(nextMSN)): \(trailingParts.count) parts"
                           + (preloadHints.isEmpty ? "" : ", preload hint \(preloadHints.map(\.uri).joined(separator: ", "))"))
            }
        }
        return out.joined(separator: "\n") + "\n"
    }
}
