import Foundation
import Hummingbird

/// The dashboard page (`Dashboard/`, plain HTML, CSS and JS shipped as resources) served at `/`.
enum Dashboard {
    /// The files, by request path, with their content types. Nothing else is served.
    static let files: [String: (name: String, type: String)] = [
        "/": ("index.html", "text/html; charset=utf-8"),
        "/index.html": ("index.html", "text/html; charset=utf-8"),
        "/dashboard.js": ("dashboard.js", "text/javascript; charset=utf-8"),
        "/api.js": ("api.js", "text/javascript; charset=utf-8"),
        "/qr.js": ("qr.js", "text/javascript; charset=utf-8"),
        "/dashboard.css": ("dashboard.css", "text/css; charset=utf-8"),
        "/favicon.svg": ("favicon.svg", "image/svg+xml"),
    ]

    static func file(for path: String) -> (name: String, type: String)? { files[path] }

    /// The file's bytes, read once from the resource bundle.
    private static let contents: [String: [UInt8]] = {
        var contents: [String: [UInt8]] = [:]
        for (name, _) in files.values {
            guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Dashboard"),
                  let data = try? Data(contentsOf: url) else { continue }
            contents[name] = Array(data)
        }
        return contents
    }()

    static func response(for path: String) throws -> Response {
        guard let file = file(for: path), let bytes = contents[file.name] else {
            throw APIError(.notFound, "the dashboard's files are not installed next to this hlschaos binary (\(path))")
        }
        return Response(
            status: .ok,
            headers: [.contentType: file.type, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func register(on router: Router<BasicRequestContext>) {
        for path in files.keys {
            router.get(RouterPath(path)) { _, _ in try response(for: path) }
        }
    }
}
