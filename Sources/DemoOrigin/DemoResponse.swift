import Foundation

/// One answer of the demo origin, independent of any HTTP library.
public struct DemoResponse: Sendable {
    public var status: Int
    /// Header names in lower case, in the order they should be written.
    public var headers: [(String, String)]
    /// Empty for HEAD; `Content-Length` still gives the size a GET would send.
    public var body: Data

    public init(status: Int, headers: [(String, String)], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0.lowercased() == wanted }?.1
    }
}
