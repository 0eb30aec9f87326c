import CurlShim

/// Turns a finished transfer's CURLcode into an `UpstreamError`.
enum CurlErrorMapping {
    struct Context {
        let url: String
        /// Text from CURLOPT_ERRORBUFFER, often more precise than curl_easy_strerror.
        let detail: String
        let elapsedNs: UInt64
        let totalTimeout: Duration?
        let connectTimeout: Duration
        let connected: Bool
    }

    static func error(for code: CURLcode, _ context: Context) -> UpstreamError {
        let message = (context.detail.isEmpty ? curlErrorString(code) : context.detail).oneLine
        let url = context.url
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .dns(url: url, message: message)
        case CURLE_COULDNT_CONNECT:
            return .connect(url: url, message: message)
        case CURLE_OPERATION_TIMEDOUT:
            if let total = context.totalTimeout, context.elapsedNs + 50_000_000 >= total.nanoseconds {
                return .timeout(url: url, phase: .total, message: "no complete response within \(total.shortDescription)")
            }
            if !context.connected {
                return .timeout(url: url, phase: .connect, message: "no connection within \(context.connectTimeout.shortDescription)")
            }
            return .timeout(url: url, phase: .total, message: message)
        default:
            if tlsCodes.contains(code.rawValue) {
                return .tls(url: url, message: message)
            }
            return .transfer(url: url, message: message)
        }
    }

    private static let tlsCodes: Set<UInt32> = Set([
        CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
        CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
        CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
        CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
        CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED,
    ].map(\.rawValue))
}
