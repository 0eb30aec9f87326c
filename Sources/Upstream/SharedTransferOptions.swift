import CurlShim

/// What every transfer of one client applies, built once at client init: the resolve list, the
/// CA bundle and the address policy. curl keeps pointers to these (or reads the bundle file when
/// it opens a TLS connection), not copies, so they live as long as the client's curl loop, which
/// outlives every transfer.
final class SharedTransferOptions: Sendable {
    let resolve: ResolveList?
    let caBundle: CABundle?
    let addressPolicy: AddressPolicy

    /// Throws `.setup` naming the bad resolve entry, the extra CA file or the bad port.
    init(_ configuration: UpstreamConfiguration, systemCABundle: String?) throws(UpstreamError) {
        resolve = try ResolveList(configuration.resolve)
        caBundle = try configuration.extraCAFile.map { (path) throws(UpstreamError) in
            try CABundle(extraCAFile: path, systemBundlePath: systemCABundle)
        }
        addressPolicy = try AddressPolicy(configuration.addressGuard)
    }

    func apply(to easy: EasyHandleConfigurator) throws(UpstreamError) {
        if let resolve { try easy.set(CURLOPT_RESOLVE, pointer: UnsafeMutableRawPointer(resolve.list)) }
        if let caBundle {
            try easy.set(CURLOPT_CAINFO, caBundle.path)
            // The bundle holds the system's certificates already; without a CA folder, curl keeps
            // the parsed store for the next TLS connections instead of reading the file again.
            if caBundle.systemBundlePath != nil { try easy.set(CURLOPT_CAPATH, pointer: nil) }
        }
    }
}
