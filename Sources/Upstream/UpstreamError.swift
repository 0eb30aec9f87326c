/// Why an upstream fetch failed. `description` is one line naming what failed and the URL:
/// the proxy sends it as the body of its 502/504 answers.
public enum UpstreamError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum TimeoutPhase: String, Sendable, Equatable {
        case connect
        case firstByte
        case total
    }

    case dns(url: String, message: String)
    case connect(url: String, message: String)
    case tls(url: String, message: String)
    case timeout(url: String, phase: TimeoutPhase, message: String)
    /// Broken mid-body, malformed response, bad URL, and anything else curl reports.
    case transfer(url: String, message: String)
    case tooLarge(url: String, limit: Int)
    /// A guarded request (`UpstreamRequest.guardAddresses`) would have connected to an address the
    /// address guard forbids; no request was sent there. `address` is "192.0.2.1:80" or "[::1]:8080".
    case refusedAddress(url: String, address: String, reason: String)
    case cancelled
    /// The request could not even be set up (curl_easy_init failed, invalid header, client shut down…).
    case setup(String)

    public var isTimeout: Bool {
        if case .timeout = self { return true }
        return false
    }

    public var description: String {
        text.oneLine
    }

    private var text: String {
        switch self {
        case let .dns(url, message):
            return "could not resolve the upstream host (\(message)) for \(url)"
        case let .connect(url, message):
            return "could not connect to the upstream (\(message)) for \(url)"
        case let .tls(url, message):
            return "TLS error with the upstream (\(message)) for \(url)"
        case let .timeout(url, phase, message):
            let what: String
            switch phase {
            case .connect: what = "connecting"
            case .firstByte: what = "waiting for the response head"
            case .total: what = "during the transfer"
            }
            return "upstream timed out \(what) (\(message)) for \(url)"
        case let .transfer(url, message):
            return "upstream transfer failed (\(message)) for \(url)"
        case let .refusedAddress(url, address, reason):
            return "refused to connect to \(address), \(reason), for \(url); to allow it, set forward.allowPrivateTargets in the configuration"
        case let .tooLarge(url, limit):
            return "upstream body larger than \(limit) bytes for \(url)"
        case .cancelled:
            return "upstream request cancelled"
        case let .setup(message):
            return "upstream request not started: \(message)"
        }
    }
}

extension String {
    /// Messages end up on one line of an HTTP body: no control characters.
    var oneLine: String {
        String(unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
            .trimmingSpaces
    }

    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
