import Foundation
import Hummingbird

/// The dashboard page (`Dashboard/`: plain HTML, CSS and JavaScript modules compiled into the
/// binary) served at `/`: every file of that folder at its path below it (`/chart/axes.js` is
/// `Dashboard/chart/axes.js`), and `/` as `index.html`. A file added to the folder is served
/// without a change here; one whose extension has no content type below is not served, and
/// `DashboardFileTests` says which.
enum Dashboard {
    static let folder = "Dashboard/"

    /// Content types by file extension. Modules must be JavaScript (`text/javascript`): a browser
    /// refuses a `<script type="module">` or an `import` answered with anything else.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml",
    ]

    /// The files, by request path, with their content types and bytes. Nothing else is served.
    static let files: [String: (name: String, type: String, bytes: [UInt8])] = {
        var files: [String: (name: String, type: String, bytes: [UInt8])] = [:]
        for file in EmbeddedFiles.files where file.path.hasPrefix(folder) {
            let name = String(file.path.dropFirst(folder.count))
            guard let type = contentType(of: name) else { continue }
            files["/" + name] = (name, type, file.bytes)
        }
        files["/"] = files["/index.html"]
        return files
    }()

    /// The dashboard's embedded files, by name below `Dashboard/`, served or not.
    static var embeddedNames: [String] {
        EmbeddedFiles.files.map(\.path).filter { $0.hasPrefix(folder) }.map { String($0.dropFirst(folder.count)) }
    }

    static func contentType(of name: String) -> String? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        return contentTypes[String(name[name.index(after: dot)...]).lowercased()]
    }

    static func file(for path: String) -> (name: String, type: String)? { files[path].map { ($0.name, $0.type) } }

    static func response(for path: String) throws -> Response {
        guard let file = files[path] else { throw APIError(.notFound, "no dashboard file at \(path)") }
        return Response(
            status: .ok,
            headers: [.contentType: file.type, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    static func register(on router: Router<BasicRequestContext>) {
        for path in files.keys {
            router.get(RouterPath(path)) { _, _ in try response(for: path) }
        }
    }
}
