import CurlShim

/// Typed setters over one curl easy handle, through CurlShim's non-variadic wrappers.
/// Used only while a transfer is being set up, before it is handed to the curl thread.
struct EasyHandleConfigurator {
    let handle: UnsafeMutableRawPointer

    func set(_ option: CURLoption, _ value: Int) throws(UpstreamError) {
        try check(cs_easy_setopt_long(handle, option, value), option)
    }

    func set(_ option: CURLoption, _ value: String) throws(UpstreamError) {
        let code = value.withCString { cs_easy_setopt_string(handle, option, $0) }
        try check(code, option)
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(UpstreamError) {
        try check(cs_easy_setopt_pointer(handle, option, pointer), option)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(UpstreamError) {
        guard code == CURLE_OK else {
            throw .setup("curl rejected option \(option.rawValue): \(curlErrorString(code))")
        }
    }
}

func curlErrorString(_ code: CURLcode) -> String {
    guard let text = curl_easy_strerror(code) else { return "curl error \(code.rawValue)" }
    return String(cString: text)
}

/// Read-only queries on an easy handle (CURLINFO_*). Loop thread only.
extension UnsafeMutableRawPointer {
    func curlInfoLong(_ info: CURLINFO) -> Int {
        var value = 0
        return cs_easy_getinfo_long(self, info, &value) == CURLE_OK ? value : 0
    }

    func curlInfoOff(_ info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return cs_easy_getinfo_off(self, info, &value) == CURLE_OK ? Int64(value) : 0
    }

    func curlInfoString(_ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>? = nil
        guard cs_easy_getinfo_string(self, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}
