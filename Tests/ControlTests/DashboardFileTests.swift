import Foundation
import Testing
@testable import Control

/// The dashboard's files as a browser gets them: every file of Sources/Control/Dashboard is served
/// at its path (subfolders too) with its content type, modules as JavaScript, and every module a
/// file imports is one that is served.
@Suite struct DashboardFileTests {
    @Test func everyEmbeddedFileIsServedWithItsType() throws {
        let names = Dashboard.embeddedNames
        #expect(names.contains("index.html") && names.contains("dashboard.js"), "\(names)")
        #expect(names.contains { $0.contains("/") }, "no module in a subfolder: \(names)")
        for name in names {
            let file = try #require(Dashboard.file(for: "/" + name), "Dashboard/\(name) is embedded but not served: give its extension a content type in Dashboard.contentTypes")
            #expect(file.name == name)
            if name.hasSuffix(".js") { #expect(file.type == "text/javascript; charset=utf-8", "\(name)") }
        }
        #expect(Dashboard.file(for: "/")?.name == "index.html")
        #expect(Dashboard.file(for: "/nothing.js") == nil)
    }

    @Test func everyRelativeImportNamesAServedModule() throws {
        let importPattern = /(?:import|export)[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/
        var checked = 0
        for name in Dashboard.embeddedNames where name.hasSuffix(".js") {
            let text = String(decoding: try #require(Dashboard.files["/" + name]).bytes, as: UTF8.self)
            let base = URL(string: "http://dashboard/" + name)!
            for match in text.matches(of: importPattern) {
                let target = URL(string: String(match.1), relativeTo: base)!.path
                #expect(Dashboard.files[target]?.type == "text/javascript; charset=utf-8", "\(name) imports \(match.1): \(target) is not served as a module")
                checked += 1
            }
        }
        #expect(checked > 10, "only \(checked) imports found: is the pattern still right?")
    }

    @Test func modulesAreServedOverHTTPAsJavaScript() async throws {
        try await ControlHarness.with { harness in
            let module = try #require(Dashboard.embeddedNames.first { $0.contains("/") && $0.hasSuffix(".js") })
            for path in ["/dashboard.js", "/" + module] {
                let answer = try await harness.api.get(path)
                #expect(answer.status == 200, "\(path)")
                #expect(answer.header("content-type") == "text/javascript; charset=utf-8", "\(path)")
            }
            #expect(try await harness.api.get("/").header("content-type") == "text/html; charset=utf-8")
        }
    }
}
