/// The presets of the repository's `rules/` folder, compiled into the binary so that a copied
/// `hlschaos` still has them: each name (the file name without `.json`) with the exact bytes of the
/// file, sorted by name. The EmbedFiles plugin embeds them at build time; `rules/*.json` stays the
/// only copy.
public enum BuiltInPresets {
    public static let files: [(name: String, bytes: [UInt8])] = EmbeddedFiles.files.compactMap { file in
        let name = file.path.split(separator: "/").last.map(String.init) ?? file.path
        guard name.hasSuffix(".json") else { return nil }
        return (String(name.dropLast(5)), file.bytes)
    }.sorted { $0.name < $1.name }

    /// The bytes of a link trace shipped with the presets, by the name a preset gives it
    /// (`traces/commute.csv`, relative to `rules/`); nil when there is none.
    public static func trace(_ name: String) -> [UInt8]? {
        traces[name]
    }

    private static let traces: [String: [UInt8]] = Dictionary(
        EmbeddedFiles.files.compactMap { file in
            file.path.hasPrefix("rules/traces/") ? (String(file.path.dropFirst("rules/".count)), file.bytes) : nil
        }, uniquingKeysWith: { first, _ in first })
}
