import Foundation
import HLS

/// Text-level damage to a serialised playlist: each case produces the named format error.
public enum PlaylistDamage {
    public static func malform(_ bytes: [UInt8], _ malformation: Malformation, kind: PlaylistKind) -> [UInt8] {
        var lines = split(bytes)
        switch malformation {
        case .noHeader:
            // "#EXTM3U" must be the first line; without it the document is not a playlist.
            if let header = lines.firstIndex(where: { $0.text.hasPrefix("#EXTM3U") }) { lines.remove(at: header) }
        case .garbageLine:
            let garbage = Line(text: "#EXT-X-\u{1}\u{7}GARBAGE<<hlschaos>>", ending: lines.first?.ending ?? "\n")
            lines.insert(garbage, at: min(1, lines.count))
            lines.insert(Line(text: "%%% not a playlist line %%%", ending: garbage.ending), at: min(2, lines.count))
        case .badAttribute:
            if kind == .multivariant, let index = lines.firstIndex(where: { $0.text.hasPrefix("#EXT-X-STREAM-INF:") }) {
                lines[index].text = replacingAttribute("BANDWIDTH", in: lines[index].text, with: "not-a-number")
            } else if let index = lines.firstIndex(where: { $0.text.hasPrefix("#EXTINF:") }) {
                lines[index].text = "#EXTINF:not-a-number,"
            } else if let index = lines.firstIndex(where: { $0.text.hasPrefix("#EXT-X-TARGETDURATION:") }) {
                lines[index].text = "#EXT-X-TARGETDURATION:not-a-number"
            }
        case .extinfOverTarget:
            let target = lines.lazy.compactMap { line -> Int? in
                guard line.text.hasPrefix("#EXT-X-TARGETDURATION:") else { return nil }
                return Int(line.text.dropFirst("#EXT-X-TARGETDURATION:".count).trimmingCharacters(in: .whitespaces))
            }.first ?? 10
            if let index = lines.firstIndex(where: { $0.text.hasPrefix("#EXTINF:") }) {
                let title = lines[index].text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first ?? ""
                lines[index].text = "#EXTINF:\(target * 2 + 1).000,\(title)"
            }
        case .duplicateVersion:
            let version = lines.first { $0.text.hasPrefix("#EXT-X-VERSION:") }
            let ending = lines.first?.ending ?? "\n"
            let existingValue = version.map { String($0.text.dropFirst("#EXT-X-VERSION:".count)) }
            let position = lines.firstIndex { $0.text.hasPrefix("#EXT-X-VERSION:") }.map { $0 + 1 } ?? min(1, lines.count)
            var added = [Line(text: "#EXT-X-VERSION:\(existingValue == "7" ? "6" : "7")", ending: ending)]
            if version == nil { added.insert(Line(text: "#EXT-X-VERSION:3", ending: ending), at: 0) }
            lines.insert(contentsOf: added, at: position)
        case .cut:
            // Half the bytes, cut mid-line, no final line ending.
            return Array(bytes.prefix(bytes.count / 2))
        }
        return join(lines)
    }

    /// Every EXT-X-SESSION-DATA loses its closing quote (an attribute list no parser accepts);
    /// a master without session data gets one broken entry.
    public static func breakSessionData(_ bytes: [UInt8]) -> [UInt8] {
        var lines = split(bytes)
        var found = false
        for index in lines.indices where lines[index].text.hasPrefix("#EXT-X-SESSION-DATA:") {
            found = true
            lines[index].text = "#EXT-X-SESSION-DATA:DATA-ID=\"com.hlschaos.malformed,VALUE=\"unterminated"
        }
        if !found {
            let ending = lines.first?.ending ?? "\n"
            let position = min(1, lines.count)
            lines.insert(Line(text: "#EXT-X-SESSION-DATA:DATA-ID=\"com.hlschaos.malformed,VALUE=\"unterminated", ending: ending),
                         at: position)
        }
        return join(lines)
    }

    private static func replacingAttribute(_ name: String, in tag: String, with value: String) -> String {
        guard let colon = tag.firstIndex(of: ":") else { return tag }
        var parts = tag[tag.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // Quoted values may hold commas; only a part that starts with NAME= is replaced.
        if let index = parts.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            parts[index] = "\(name)=\(value)"
        } else {
            parts.insert("\(name)=\(value)", at: 0)
        }
        return String(tag[...colon]) + parts.joined(separator: ",")
    }

    struct Line {
        var text: String
        var ending: String
    }

    static func split(_ bytes: [UInt8]) -> [Line] {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines: [Line] = []
        var current = ""
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = iterator.next()
        while let scalar = pending {
            pending = iterator.next()
            if scalar == "\n" {
                lines.append(Line(text: current, ending: "\n")); current = ""
            } else if scalar == "\r" {
                if pending == "\n" { pending = iterator.next(); lines.append(Line(text: current, ending: "\r\n")) }
                else { lines.append(Line(text: current, ending: "\r")) }
                current = ""
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        if !current.isEmpty { lines.append(Line(text: current, ending: "")) }
        return lines
    }

    static func join(_ lines: [Line]) -> [UInt8] {
        Array(lines.map { $0.text + $0.ending }.joined().utf8)
    }
}
