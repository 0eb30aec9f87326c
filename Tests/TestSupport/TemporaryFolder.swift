import Foundation

/// A folder of its own under the temporary directory (`$TMPDIR`, else /tmp) for one test or one
/// harness. Everything a test writes goes inside it, and it is removed at teardown, so a run leaves
/// nothing behind (`scripts/test.sh` fails when something is left: docs/testing.md).
///
///     try await withTemporaryFolder("bundle") { folder in
///         let rules = try folder.file("rules.json", json)   // written
///         let out = folder.path("out.tar")                  // a path inside, not made
///     }
///
/// A harness that lives longer than one scope makes its own (`try TemporaryFolder("forward")`) and
/// removes it in its `stop()`/`shutdown()`.
public struct TemporaryFolder: Sendable {
    public let url: URL
    public var path: String { url.path }

    /// Makes `$TMPDIR/hlschaos-LABEL-UUID` (the label says which test left it, should one be left).
    public init(_ label: String = "test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("hlschaos-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// `name` inside the folder (not made).
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// `name` inside the folder (not made).
    public func url(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `contents` to `name` inside the folder; its path.
    @discardableResult
    public func file(_ name: String, _ contents: String) throws -> String {
        try file(name, Array(contents.utf8))
    }

    /// Writes `bytes` to `name` inside the folder; its path.
    @discardableResult
    public func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file.path
    }

    /// Removes the folder and everything in it, also what a test made unreadable or unwritable.
    public func remove() {
        let manager = FileManager.default
        if (try? manager.removeItem(at: url)) != nil || !manager.fileExists(atPath: url.path) { return }
        // A folder without write or search permission keeps its entries: give them back, then remove.
        _ = chmod(url.path, 0o700)
        for case let entry as String in manager.enumerator(atPath: url.path) ?? .init() {
            _ = chmod(url.appendingPathComponent(entry).path, 0o700)
        }
        try? manager.removeItem(at: url)
    }
}

/// Runs `body` with a fresh `TemporaryFolder`, removed when `body` returns or throws.
public func withTemporaryFolder<Result>(
    _ label: String = "test",
    isolation: isolated (any Actor)? = #isolation,
    run body: (TemporaryFolder) async throws -> Result
) async throws -> Result {
    let folder = try TemporaryFolder(label)
    defer { folder.remove() }
    return try await body(folder)
}

/// Runs `body` with a fresh `TemporaryFolder`, removed when `body` returns or throws.
public func withTemporaryFolder<Result>(_ label: String = "test", run body: (TemporaryFolder) throws -> Result) throws -> Result {
    let folder = try TemporaryFolder(label)
    defer { folder.remove() }
    return try body(folder)
}
