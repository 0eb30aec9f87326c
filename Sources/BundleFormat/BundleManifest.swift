import Foundation

/// `bundle.json`: what a recording bundle is, where it came from and how it ended.
/// The layout and every field are documented in docs/bundles.md.
public struct BundleManifest: Sendable, Codable, Equatable {
    public static let formatName = "hlschaos-bundle"
    /// Bumped when a reader of the previous version would misread a bundle.
    public static let currentVersion = 1

    public var format: String
    public var version: Int
    /// How the bundle was made.
    public var source: Source
    /// The URL the recording started from (the master or media playlist), when there is one.
    public var entry: String?
    /// When the first request was sent; every exchange's `at` counts from here.
    public var started: Date
    /// When the recording stopped; nil while it is being written (or when it was cut short by a
    /// crash: the exchanges written so far are still readable).
    public var ended: Date?
    /// Why it stopped before its time, when it did ("size cap of 2 GB reached").
    public var stopReason: String?
    /// Cookies, Authorization and query tokens were dropped before anything was written.
    public var redacted: Bool
    /// Written with the manifest's final version, for a quick summary without reading the lines.
    public var exchangeCount: Int
    public var bodyCount: Int
    public var bodyBytes: Int
    public var tool: String

    public enum Source: String, Sendable, Codable, Equatable {
        /// `hlschaos record URL`: fetched like a player would.
        case record
        /// `serve`/`demo --record` or the control API: what devices fetched through the proxy.
        case proxy
        /// `hlschaos import-har`: the content a HAR carried.
        case har
    }

    public init(
        source: Source, entry: String?, started: Date, redacted: Bool, tool: String = "hlschaos",
        ended: Date? = nil, stopReason: String? = nil, exchangeCount: Int = 0, bodyCount: Int = 0, bodyBytes: Int = 0
    ) {
        self.format = Self.formatName
        self.version = Self.currentVersion
        self.source = source; self.entry = entry; self.started = started; self.ended = ended
        self.stopReason = stopReason; self.redacted = redacted; self.exchangeCount = exchangeCount
        self.bodyCount = bodyCount; self.bodyBytes = bodyBytes; self.tool = tool
    }
}
