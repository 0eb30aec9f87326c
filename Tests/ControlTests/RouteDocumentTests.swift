@testable import Control
import Foundation
import Testing

/// The router and the OpenAPI document describe the same API: every route the running control
/// server's router answers (read back from Hummingbird's router) is in the document it serves, with
/// its method, and every operation of that document is a route. The dashboard's files are not API.
@Suite struct RouteDocumentTests {
    @Test func everyRegisteredRouteIsDocumentedAndEveryDocumentedRouteIsRegistered() async throws {
        try await ControlHarness.with { harness in
            let registered = Set(harness.control.routes.compactMap { route in
                Dashboard.file(for: route.path) == nil ? "\(route.method.rawValue) \(route.path)" : nil
            })
            #expect(registered.count > 10, "the router's routes could not be read: \(registered)")

            let document = try await harness.api.get("/api/openapi.json")
            #expect(document.status == 200)
            #expect(document.header("content-type") == "application/json")
            let paths = try #require(document.object?["paths"] as? [String: [String: Any]])
            let operations = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
            let documented = Set(paths.flatMap { path, item in
                item.keys.filter(operations.contains).map { "\($0.uppercased()) \(path)" }
            })

            #expect(registered.subtracting(documented).isEmpty,
                    "registered but not in Sources/Control/openapi.json: \(registered.subtracting(documented).sorted())")
            #expect(documented.subtracting(registered).isEmpty,
                    "in Sources/Control/openapi.json but not registered: \(documented.subtracting(registered).sorted())")

            // What a 405 names is the same list.
            let allowed = Set(OpenAPIDocument.routes.flatMap { route in route.methods.map { "\($0.rawValue) \(route.path)" } })
            #expect(allowed == documented)
        }
    }
}
