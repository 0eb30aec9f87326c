import Foundation
import PackagePlugin

/// Compiles a target's data files into it: EmbedGen writes the bytes of every file of the target
/// that is not a Swift source (and not excluded in Package.swift) into `EmbeddedFiles.files`, so the
/// binary carries them wherever it is copied and the files in the repository stay the only copy.
/// The presets reach `rules/` through the symbolic link `Sources/Presets/rules`; the control API's
/// dashboard is `Sources/Control/Dashboard`. A folder of the target is what makes SwiftPM plan the
/// build again (and run this plugin) when a file is added or removed.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        // The name of a file is its path below Sources/<target>/ (the target's folder: its URL is
        // not in this tools version's plugin API), else its file name.
        let folder = "/Sources/\(target.name)/"
        let inputs = target.sourceFiles.map(\.url).filter { $0.pathExtension != "swift" }
        let named = inputs.map { url -> (name: String, url: URL) in
            let path = url.path
            guard let range = path.range(of: folder, options: .backwards) else { return (url.lastPathComponent, url) }
            return (String(path[range.upperBound...]), url)
        }.sorted { $0.name < $1.name }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(named.count) files of \(target.name)",
                executable: try context.tool(named: "EmbedGen").url,
                arguments: [output.path] + named.flatMap { [$0.name, $0.url.path] },
                inputFiles: named.map(\.url),
                outputFiles: [output]
            ),
        ]
    }
}
