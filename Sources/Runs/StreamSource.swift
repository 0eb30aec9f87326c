import Foundation
import DemoOrigin

/// What a run plays: a stream of the embedded demo origin, or any http(s) URL.
public enum StreamSource: Sendable, Equatable {
    /// `stream` is "vod" or "live"; `flavour` one of `DemoOrigin.vodFlavours` / `liveFlavours`.
    case demo(stream: String, flavour: String)
    case url(String)

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    /// Checks a demo stream and flavour against what the demo origin serves.
    public static func checkedDemo(stream: String, flavour: String) throws(Invalid) -> StreamSource {
        guard stream == "vod" || stream == "live" else {
            throw Invalid(description: "--stream \(stream): the demo has \"vod\" and \"live\"")
        }
        let flavours = stream == "vod" ? DemoOrigin.vodFlavours : DemoOrigin.liveFlavours
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
        if case .demo(let stream, let flavour) = self { return "/\(stream)/\(flavour)/master.m3u8" }
        return nil
    }

    public var isLive: Bool {
        if case .demo(let stream, _) = self { return stream == "live" }
        return false
    }

    public var description: String {
        switch self {
        case .demo(let stream, let flavour): "demo \(stream) (\(flavour))"
        case .url(let url): url
        }
    }
}
