import Foundation
import Testing

/// Every module imports only what Package.swift says it depends on, so the graph drawn there is the
/// graph the code has (SwiftPM lets a module import a dependency of a dependency unnoticed), and the
/// pure modules stay free of I/O libraries.
@Suite struct ModuleGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Modules any target may import: the toolchain's own.
    static let toolchain: Set<String> = [
        "Foundation", "FoundationEssentials", "Dispatch", "Glibc", "Musl", "Darwin", "Synchronization", "Testing", "XCTest",
        "PackagePlugin",
    ]

    @Test func everyImportIsADeclaredDependency() throws {
        let targets = try Self.declaredTargets()
        #expect(["HLS", "Addressing", "Proxy", "Control", "hlschaos"].allSatisfy { targets[$0] != nil }, "Package.swift read: \(targets.keys.sorted())")
        var undeclared: [String] = []
        for (name, dependencies) in targets.sorted(by: { $0.key < $1.key }) {
            let folder = Self.root.appendingPathComponent("Sources").appendingPathComponent(name)
            for file in Self.swiftFiles(in: folder) {
                for imported in try Self.imports(of: file) where imported != name {
                    if !dependencies.contains(imported) && !Self.toolchain.contains(imported) {
                        undeclared.append("\(name) (\(file.lastPathComponent)) imports \(imported)")
                    }
                }
            }
        }
        #expect(undeclared.isEmpty, "declare these in Package.swift or drop the import:\n\(undeclared.joined(separator: "\n"))")
    }

    @Test func pureModulesImportNoNetworkingOrProcesses() throws {
        let targets = try Self.declaredTargets()
        let io: Set<String> = ["NIOCore", "NIOPosix", "NIOHTTP1", "Hummingbird", "CurlShim", "CCurl", "Upstream", "Players", "Proxy"]
        for pure in ["HLS", "Addressing", "PlayerReports", "Chaos", "Records", "Verdicts", "Link"] {
            let dependencies = try #require(targets[pure], "\(pure) is declared")
            #expect(dependencies.isDisjoint(with: io), "\(pure) depends on \(dependencies.intersection(io).sorted())")
        }
    }

    // MARK: - Reading Package.swift and the sources as text

    /// Target name → the module names its `dependencies:` list names (products by product name;
    /// the manifest's `nio` and `logging` shorthands expanded).
    static func declaredTargets() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let shorthands: [String: [String]] = [
            "nio": ["NIOCore", "NIOPosix", "NIOHTTP1", "NIOConcurrencyHelpers"], "logging": ["Logging"],
        ]
        var targets: [String: Set<String>] = [:]
        let declarations = manifest.components(separatedBy: ".target(").dropFirst()
            + manifest.components(separatedBy: ".executableTarget(").dropFirst()
        for declaration in declarations {
            guard let name = firstQuoted(after: "name:", in: declaration) else { continue }
            var dependencies: Set<String> = []
            if let start = declaration.range(of: "dependencies: [") {
                // The bracketed list, and what is added to it (`+ nio`) before the next argument.
                var depth = 0
                var end = start.upperBound
                for index in declaration[declaration.index(before: start.upperBound)...].indices {
                    if declaration[index] == "[" { depth += 1 }
                    if declaration[index] == "]" { depth -= 1 }
                    if depth == 0 { end = index; break }
                }
                let tail = declaration[end...].prefix { $0 != "\n" && $0 != ")" }
                let list = declaration[start.upperBound..<end]
                for match in list.matches(of: /\.product\(name: "([^"]+)"/) { dependencies.insert(String(match.1)) }
                let withoutProducts = list.replacing(/\.product\([^)]*\)/, with: "")
                for match in withoutProducts.matches(of: /"([^"]+)"/) { dependencies.insert(String(match.1)) }
                for (shorthand, modules) in shorthands where withoutProducts.contains(shorthand) || tail.contains(shorthand) {
                    dependencies.formUnion(modules)
                }
            }
            targets[name] = dependencies
        }
        return targets.filter { FileManager.default.fileExists(atPath: root.appendingPathComponent("Sources/\($0.key)").path) }
    }

    static func firstQuoted(after label: String, in text: String) -> String? {
        guard let range = text.range(of: label) else { return nil }
        return text[range.upperBound...].firstMatch(of: /"([^"]+)"/).map { String($0.1) }
    }

    static func swiftFiles(in folder: URL) -> [URL] {
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
    }

    /// `import X`, `@testable import X`, `import enum X.Y`, inside `#if` or not: the file's header,
    /// up to its first declaration (so that code in a string literal is not read as an import).
    static func imports(of file: URL) throws -> [String] {
        var found: [String] = []
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if let match = text.firstMatch(of: /^(?:@\w+\s+)*import\s+(?:(?:enum|struct|class|func|protocol|typealias|var|let)\s+)?(\w+)/) {
                found.append(String(match.1))
            } else if !(text.isEmpty || text.hasPrefix("//") || text.hasPrefix("#")) {
                break
            }
        }
        return found
    }
}
