import Foundation
import Hummingbird
import Logging
import NIOCore

/// Turns every failure into the API's JSON error: `APIError` as it is, Hummingbird's own errors (no
/// such route, a body too large) with their status, a known path asked with another method as 405
/// with `Allow`, anything else as 500 (logged).
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return error.response()
        } catch is NIOTooManyBytesError {
            return APIError(.contentTooLarge, "the body is too large").response()
        } catch let error as HTTPError {
            if error.status == .notFound, let allowed = Self.allowedMethods(path: request.uri.path) {
                let names = allowed.map(\.rawValue).joined(separator: ", ")
                return APIError(
                    .methodNotAllowed, "\(request.method.rawValue) is not supported on \(request.uri.path); use \(names)",
                    headers: [.allow: names]
                ).response()
            }
            if error.status == .notFound {
                return APIError(.notFound, "no such route: \(request.method.rawValue) \(request.uri.path) (GET /api/openapi.json lists them)").response()
            }
            return APIError(error.status, error.body ?? error.status.reasonPhrase, headers: error.headers).response()
        } catch let error as any HTTPResponseError {
            return APIError(error.status, "\(error)").response()
        } catch {
            logger.error("control API: \(request.method.rawValue) \(request.uri.path) failed: \(error)")
            return APIError(.internalServerError, "internal error: \(error)").response()
        }
    }

    /// The methods of the documented route whose template matches `path`, if any.
    static func allowedMethods(path: String) -> [HTTPRequest.Method]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        for route in OpenAPIDocument.routes {
            let template = route.path.split(separator: "/", omittingEmptySubsequences: false)
            guard template.count == parts.count else { continue }
            let matches = zip(template, parts).allSatisfy { pattern, part in
                pattern.hasPrefix("{") ? !part.isEmpty : pattern == part
            }
            if matches { return route.methods }
        }
        return nil
    }
}

/// With a token configured, every call needs `Authorization: Bearer <token>`; otherwise 401 with
/// `WWW-Authenticate: Bearer`. The comparison takes the same time whatever the first wrong byte.
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let token: String

    func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        // The dashboard's files are public: a browser opening the page cannot send the header yet
        // (the page asks for the token and sends it with every API call).
        if Dashboard.file(for: request.uri.path) != nil { return try await next(request, context) }
        // EventSource cannot send headers either: the live stream also takes ?token=.
        if request.uri.path == "/api/events/stream", let query = request.uri.queryParameters.get("token") {
            guard Self.equal(Array(query.utf8), Array(token.utf8)) else {
                throw APIError(.unauthorized, "the token is not the control API's token", headers: [.wwwAuthenticate: #"Bearer realm="hlschaos", error="invalid_token""#])
            }
            return try await next(request, context)
        }
        guard let header = request.headers[.authorization] else {
            throw APIError(
                .unauthorized, "this control API needs a token: send Authorization: Bearer <token>",
                headers: [.wwwAuthenticate: #"Bearer realm="hlschaos""#])
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
            Self.equal(Array(parts[1].trimmingCharacters(in: .whitespaces).utf8), Array(token.utf8))
        else {
            throw APIError(
                .unauthorized, "the token is not the control API's token",
                headers: [.wwwAuthenticate: #"Bearer realm="hlschaos", error="invalid_token""#])
        }
        return try await next(request, context)
    }

    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0xFF)
        }
        return difference == 0
    }
}
