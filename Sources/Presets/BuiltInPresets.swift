/// The presets of the repository's `rules/` folder, compiled into the binary so that a copied
/// `hlschaos` still has them. `files` (name without `.json`, exact bytes of the file, sorted by
/// name) is generated at build time by the EmbedPresets plugin; `rules/*.json` stays the only copy.
public enum BuiltInPresets {}
