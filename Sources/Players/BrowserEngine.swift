import Foundation

/// A JavaScript HLS engine the browser drivers load into a page: which PyPI archive carries it,
/// which member of that archive is the engine file, and what that file must hash to. Neither
/// engine is committed: `BrowserEngineCache` fetches the archive with pip at first use.
public struct BrowserEngine: Sendable, Equatable {
    public enum Archive: Sendable, Equatable {
        /// A wheel (zip), fetched with `pip download --no-deps`.
        case wheel
        /// A source distribution (tar.gz), fetched with `pip download --no-deps --no-binary :all:`.
        case sdist
    }

    /// "hlsjs", "vhs": the driver's name.
    public var id: String
    /// What the page loads: an ES module (`import`) or a classic script (`<script src>`).
    public var isModule: Bool
    /// PyPI distribution and version: `gradio==6.31.0`.
    public var package: String
    public var version: String
    public var archive: Archive
    /// The archive's file name as pip saves it.
    public var archiveFile: String
    /// A regular expression (Python `re.search`) that picks the one member to extract.
    public var member: String
    /// Name of the extracted file in the cache directory.
    public var cachedFile: String
    /// Size and SHA-256 of the extracted file: checked on extraction; the size again on reuse.
    public var size: Int
    public var sha256: String
    /// "hls.js 1.6.15 (gradio 6.31.0)": the engine part of `PlayerReport.version`.
    public var label: String

    public init(
        id: String, isModule: Bool, package: String, version: String, archive: Archive, archiveFile: String,
        member: String, cachedFile: String, size: Int, sha256: String, label: String
    ) {
        self.id = id; self.isModule = isModule; self.package = package; self.version = version
        self.archive = archive; self.archiveFile = archiveFile; self.member = member; self.cachedFile = cachedFile
        self.size = size; self.sha256 = sha256; self.label = label
    }

    /// `gradio==6.31.0`
    public var requirement: String { "\(package)==\(version)" }

    /// The pip arguments (after `python3 -m pip`) that download the archive into `directory`.
    public func pipArguments(into directory: String) -> [String] {
        var arguments = ["download", "--no-deps", "--disable-pip-version-check", "-q"]
        if archive == .sdist { arguments += ["--no-binary", ":all:"] }
        return arguments + [requirement, "-d", directory]
    }

    /// The same as a command a user can paste.
    public func pipCommand(into directory: String) -> String {
        (["python3", "-m", "pip"] + pipArguments(into: directory).filter { $0 != "-q" && $0 != "--disable-pip-version-check" })
            .map { $0.contains(" ") || $0.contains(":") ? "'\($0)'" : $0 }.joined(separator: " ")
    }

    /// hls.js 1.6.15 as bundled in the gradio 6.31.0 wheel (an ES module whose export `t(video,
    /// url, cb)` returns an `Hls` instance; the page takes its constructor and uses the defaults).
    public static let hlsjs = BrowserEngine(
        id: "hlsjs", isModule: true, package: "gradio", version: "6.31.0", archive: .wheel,
        archiveFile: "gradio-6.31.0-py3-none-any.whl",
        member: #"^gradio/templates/frontend/assets/hls-[^/]*\.js$"#, cachedFile: "hls.js-1.6.15-gradio-6.31.0.mjs",
        size: 509_139, sha256: "6692562e22d2d7b7325223f3cdc306c7bdad4e18b215a738817f84aa8832d4f2",
        label: "hls.js 1.6.15 (gradio 6.31.0)")

    /// video.js 7.5.5 with @videojs/http-streaming (VHS) 1.9.3 built in, from the js-videojs 7.5.5
    /// sdist (`js/videojs/resources/video.min.js`).
    public static let vhs = BrowserEngine(
        id: "vhs", isModule: false, package: "js-videojs", version: "7.5.5", archive: .sdist,
        archiveFile: "js.videojs-7.5.5.tar.gz",
        member: #"^[^/]+/js/videojs/resources/video\.min\.js$"#, cachedFile: "video.js-7.5.5-js-videojs-7.5.5.min.js",
        size: 502_317, sha256: "9fc57b49cdcfa478396b186bdd03fdaa108b8975e58d156f41bc011056388728",
        label: "video.js 7.5.5 with VHS 1.9.3 (js-videojs 7.5.5)")
}
