import Foundation

/// The one way records write instants: ISO 8601 in UTC with milliseconds
/// ("2026-11-23T14:33:17.123Z"), as HAR and JSON Lines readers expect.
public enum RecordTime {
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(secondsFromGMT: 0)!)

    public static func iso8601(_ date: Date) -> String {
        date.formatted(style)
    }

    /// JSON as hlschaos writes records and reports everywhere (events file, control API, run
    /// evidence): keys sorted, `/` unescaped, instants as `iso8601` writes them.
    public static func jsonEncoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(iso8601(date))
        }
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Reads what `jsonEncoder` wrote (instants with or without milliseconds).
    public static func jsonDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = try? style.parse(text) { return date }
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 instant: \(text)"))
        }
        return decoder
    }
}
