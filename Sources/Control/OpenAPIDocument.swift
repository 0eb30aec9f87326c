import HTTPTypes
import JSON

/// The OpenAPI 3.1 description of every route (`GET /api/openapi.json`): `openapi.json` beside this
/// file, written by hand and compiled into the binary by the EmbedFiles plugin, so a copied
/// `hlschaos` still serves it. Kept honest by two tests: every route the router registers is in it
/// and every route in it is registered (`RouteDocumentTests`), and schemathesis finds no answer of
/// the live API that breaks it (`OpenAPIConformanceTests`).
///
/// Three parts depend on the running proxy and are set when it is served: `info.version`,
/// `security` (empty without a token) and the `enum` of `PresetName` (the preset folder may change
/// while the proxy runs).
enum OpenAPIDocument {
    /// The document as the proxy serves it.
    static func text(version: String, bearerToken: Bool = true, presets: [String] = []) -> String {
        var document = template
        document.set(.string(version), at: ["info", "version"])
        if !bearerToken { document.set(.array([]), at: ["security"]) }
        if !presets.isEmpty { document.set(.strings(presets), at: ["components", "schemas", "PresetName", "enum"]) }
        return document.serialized(.pretty(indent: 2))
    }

    /// Every route of the document: its path template and its operations' methods, in the
    /// document's order. A known path asked with another method is answered 405 with these.
    static let routes: [(path: String, methods: [HTTPRequest.Method])] = {
        guard case .object(let paths)? = template.member("paths") else { return [] }
        return paths.map { path in
            guard case .object(let operations) = path.value else { return (path.key, []) }
            return (path.key, operations.compactMap { methods[$0.key] })
        }
    }()

    /// The keys of an OpenAPI path item that are operations (the others are `parameters`, `summary`…).
    private static let methods: [String: HTTPRequest.Method] = [
        "get": .get, "put": .put, "post": .post, "delete": .delete, "options": .options, "head": .head,
        "patch": .patch, "trace": .trace,
    ]

    /// `openapi.json` as compiled in. It is part of the build, not input: a document that is not
    /// JSON fails every test of the control API long before a release.
    static let template: JSONValue = {
        guard let file = EmbeddedFiles.files.first(where: { $0.path == "openapi.json" }) else {
            fatalError("openapi.json is not compiled into the Control module (the EmbedFiles plugin embeds it)")
        }
        do {
            return try JSONValue.parse(file.bytes)
        } catch {
            fatalError("Sources/Control/openapi.json: \(error)")
        }
    }()
}
