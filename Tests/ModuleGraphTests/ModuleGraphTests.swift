import Foundation
import Testing

/// Every module imports only what Package.swift says it depends on, and depends only on what it
/// imports, so the graph drawn there is the graph the code has (SwiftPM lets a module import a
/// dependency of a dependency unnoticed, and keeps a dependency nothing uses); the pure modules
/// stay free of I/O libraries.
@Suite struct ModuleGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Modules any target may import: the toolchain's own.
    static let toolchain: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch", "Glibc", "Musl", "Darwin", "Synchronization", "Testing", "XCTest",
        "PackagePlugin",
    ]

    static let pure = ["JSON", "HLS", "Addressing", "PlayerReports", "Chaos", "Records", "Verdicts", "Markup", "Link", "CMCD", "SpecReading"]

    /// Libraries that reach the network, files, processes or the clock.
    static let ioProducts: Set<String> = [
        "NIOCore", "NIOPosix", "NIOHTTP1", "NIOHTTP2", "NIOSSL", "NIOTLS", "NIOConcurrencyHelpers", "Hummingbird",
        "HummingbirdCore", "ServiceLifecycle", "Prometheus", "Logging", "CCurl",
    ]

    @Test func everyImportIsADeclaredDependency() throws {
        let targets = try Self.declaredTargets()
        #expect(["HLS", "Addressing", "Proxy", "Control", "hlschaos", "TestSupport", "ProxyTests"].allSatisfy { targets[$0] != nil },
                "Package.swift read: \(targets.keys.sorted())")
        var undeclared: [String] = []
        for (name, target) in targets.sorted(by: { $0.key < $1.key }) {
            for (file, imports) in try target.importsByFile() {
                for imported in imports where imported != name {
                    if !target.dependencies.contains(imported) && !Self.toolchain.contains(imported) {
                        undeclared.append("\(name) (\(file)) imports \(imported)")
                    }
                }
            }
        }
        #expect(undeclared.isEmpty, "declare these in Package.swift or drop the import:\n\(undeclared.joined(separator: "\n"))")
    }

    @Test func everyDeclaredDependencyIsImported() throws {
        let targets = try Self.declaredTargets()
        var unused: [String] = []
        for (name, target) in targets.sorted(by: { $0.key < $1.key }) {
            let files = try target.importsByFile()
            if files.isEmpty { continue }  // a C target (CurlShim)
            let imported = Set(files.flatMap(\.imports))
            for dependency in target.dependencies.sorted() where !imported.contains(dependency) {
                unused.append("\(name) declares \(dependency), which none of its files imports")
            }
        }
        #expect(unused.isEmpty, "drop these from Package.swift (or import them where they are used):\n\(unused.joined(separator: "\n"))")
    }

    @Test func pureModulesImportNoNetworkingOrProcesses() throws {
        let targets = try Self.declaredTargets()
        let impure = Set(targets.keys).subtracting(Self.pure).union(Self.ioProducts)
        for pure in Self.pure {
            let target = try #require(targets[pure], "\(pure) is declared")
            #expect(target.dependencies.isDisjoint(with: impure), "\(pure) depends on \(target.dependencies.intersection(impure).sorted())")
        }
    }

    /// The reader itself: shorthands, `swiftNIO(…)`, products by product name, test targets.
    @Test func theManifestReaderSeesShorthandsAndProducts() throws {
        let targets = try Self.declaredTargets()
        #expect(targets["TestSupport"]?.dependencies.contains("NIOPosix") == true, "`dependencies: nio` alone")
        #expect(targets["Recorder"].map { $0.dependencies.contains("NIOCore") && !$0.dependencies.contains("NIOPosix") } == true)
        #expect(targets["CertificateAuthority"]?.dependencies == ["Markup", "X509", "Crypto", "SwiftASN1"])
        #expect(targets["ProxyTests"]?.folder.path.hasSuffix("Tests/ProxyTests") == true)
    }

    /// Modules written against the standard library alone (their comments in Package.swift say so): not even Foundation.
    @Test func standardLibraryModulesImportNothing() throws {
        for module in ["JSON", "Markup", "CMCD"] {
            let files = Self.swiftFiles(in: Self.root.appendingPathComponent("Sources").appendingPathComponent(module))
            #expect(!files.isEmpty, "\(module) has sources")
            for file in files {
                let imported = try Self.imports(of: file)
                #expect(imported.isEmpty, "\(module)/\(file.lastPathComponent) imports \(imported)")
            }
        }
    }

    // MARK: - Reading Package.swift and the sources as text

    struct Target {
        var folder: URL
        var dependencies: Set<String>

        /// Each Swift file's imports (its path inside the folder).
        func importsByFile() throws -> [(file: String, imports: [String])] {
            try ModuleGraphTests.swiftFiles(in: folder).map { file in
                (String(file.path.dropFirst(folder.path.count + 1)), try ModuleGraphTests.imports(of: file))
            }
        }
    }

    /// Every target: its folder and the module names its `dependencies:` names (products by product
    /// name, `swiftNIO("…")` by module name, the manifest's `nio` and `logging` shorthands expanded).
    static func declaredTargets() throws -> [String: Target] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let shorthands: [String: [String]] = [
            "nio": ["NIOCore", "NIOPosix", "NIOHTTP1", "NIOConcurrencyHelpers"], "logging": ["Logging"],
        ]
        var targets: [String: Target] = [:]
        let declarations = manifest.components(separatedBy: ".target(").dropFirst().map { ("Sources", $0) }
            + manifest.components(separatedBy: ".executableTarget(").dropFirst().map { ("Sources", $0) }
            + manifest.components(separatedBy: ".testTarget(").dropFirst().map { ("Tests", $0) }
        for (parent, text) in declarations {
            let declaration = ownArguments(text)
            guard let name = firstQuoted(after: "name:", in: declaration) else { continue }
            let path = argument("path:", in: declaration).flatMap { $0.firstMatch(of: /"([^"]+)"/).map { String($0.1) } }
                ?? "\(parent)/\(name)"
            var dependencies: Set<String> = []
            if let value = argument("dependencies:", in: declaration) {
                for match in value.matches(of: /\.product\(name: "([^"]+)"/) { dependencies.insert(String(match.1)) }
                let withoutProducts = value.replacing(/\.product\([^)]*\)/, with: "")
                for match in withoutProducts.matches(of: /"([^"]+)"/) { dependencies.insert(String(match.1)) }
                let words = Set(withoutProducts.replacing(/"[^"]*"/, with: "").split { !$0.isLetter }.map(String.init))
                for (shorthand, modules) in shorthands where words.contains(shorthand) {
                    dependencies.formUnion(modules)
                }
            }
            let folder = root.appendingPathComponent(path)
            if FileManager.default.fileExists(atPath: folder.path) {
                targets[name] = Target(folder: folder, dependencies: dependencies)
            }
        }
        return targets
    }

    /// A declaration's arguments: the text after `.target(` up to its closing parenthesis.
    static func ownArguments(_ text: String) -> Substring {
        var depth = 0
        for index in text.indices {
            switch text[index] {
            case "[", "(": depth += 1
            case "]", ")":
                if depth == 0 { return text[..<index] }
                depth -= 1
            default: break
            }
        }
        return text[...]
    }

    /// The text of an argument's value in a declaration: from its label to the next argument's
    /// comma or the declaration's closing parenthesis (brackets and parentheses balanced).
    static func argument(_ label: String, in declaration: Substring) -> Substring? {
        guard let start = declaration.range(of: label) else { return nil }
        var depth = 0
        for index in declaration[start.upperBound...].indices {
            switch declaration[index] {
            case "[", "(": depth += 1
            case "]", ")":
                if depth == 0 { return declaration[start.upperBound..<index] }
                depth -= 1
            case "," where depth == 0: return declaration[start.upperBound..<index]
            default: break
            }
        }
        return declaration[start.upperBound...]
    }

    static func firstQuoted(after label: String, in text: Substring) -> String? {
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
