import Foundation
import DemoOrigin

/// What a run plays: a stream of the embedded demo origin, or any http(s) URL.
public enum StreamSource: Sendable, Equatable {
    /// `stream` is "vod", "live", "ll" (low-latency live) or "steering" (live on two content-steering
    /// pathways); `flavour` one of `DemoOrigin.flavours(of:)`.
    case demo(stream: String, flavour: String)
    case url(String)

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    /// Checks a demo stream and flavour against what the demo origin serves.
    public static func checkedDemo(stream: String, flavour: String) throws(Invalid) -> StreamSource {
        let flavours = DemoOrigin.flavours(of: stream)
        guard !flavours.isEmpty else {
            throw Invalid(description: "--stream \(stream): the demo has \"vod\", \"live\", \"ll\" (low-latency live) and \"steering\" (live on two content-steering pathways)")
        }
        guard flavours.contains(flavour) else {
            throw Invalid(description: "--flavour \(flavour): the demo's \(stream) stream comes as \(flavours.joined(separator: ", "))")
        }
        return .demo(stream: stream, flavour: flavour)
    }

    /// An absolute http(s) URL of a master or media playlist.
    public static func checkedURL(_ text: String) throws(Invalid) -> StreamSource {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil
        else {
            throw Invalid(description: "--url \(text): give an absolute http:// or https:// URL of a playlist")
        }
        return .url(text)
    }

    /// The demo stream's master playlist path, or nil for a URL source.
    public var demoPath: String? {
        guard case .demo(let stream, let flavour) = self else { return nil }
        return stream == "ll" ? "/ll/master.m3u8" : "/\(stream)/\(flavour)/master.m3u8"
    }

    public var isLive: Bool {
        if case .demo(let stream, _) = self { return Self.isLive(stream) }
        return false
    }

    /// "live", "ll" and "steering" never end.
    public static func isLive(_ stream: String) -> Bool { stream == "live" || stream == "ll" || stream == "steering" }

    /// The flavour a demo stream plays in when none is named: ts, or fMP4 for the LL stream.
    public static func defaultFlavour(of stream: String) -> String { stream == "ll" ? "fmp4" : "ts" }

    public var description: String {
        switch self {
        case .demo(let stream, let flavour): "demo \(stream) (\(flavour))"
        case .url(let url): url
        }
    }
}
