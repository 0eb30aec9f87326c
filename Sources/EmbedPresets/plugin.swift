import Foundation
import PackagePlugin

/// Compiles the presets into the `Presets` target: PresetGen writes the bytes of every `*.json` of
/// `rules/` but `schema.json` into a Swift source, so the binary carries them wherever it is copied
/// and the JSON files stay the only copy in the repository. The target reaches them through the
/// symbolic link `Sources/Presets/rules`: a folder of the target is what makes SwiftPM plan the
/// build again (and run this plugin) when a preset is added or removed.
@main
struct EmbedPresets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let inputs = target.sourceFiles(withSuffix: "json").map(\.url)
            .filter { $0.lastPathComponent != "schema.json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("BuiltInPresets+Files.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) presets of rules/",
                executable: try context.tool(named: "PresetGen").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            ),
        ]
    }
}
