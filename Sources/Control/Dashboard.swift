import Foundation
import Hummingbird

/// The dashboard page (`Dashboard/`: plain HTML, CSS and JS compiled into the binary) served at `/`.
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

    /// The files' bytes by name, compiled into the binary (the EmbedFiles plugin).
    private static let contents: [String: [UInt8]] = Dictionary(uniqueKeysWithValues: EmbeddedFiles.files.compactMap { file in
        file.path.hasPrefix("Dashboard/") ? (String(file.path.dropFirst("Dashboard/".count)), file.bytes) : nil
    })

    static func response(for path: String) throws -> Response {
        guard let file = file(for: path), let bytes = contents[file.name] else {
            throw APIError(.notFound, "no dashboard file at \(path)")
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
