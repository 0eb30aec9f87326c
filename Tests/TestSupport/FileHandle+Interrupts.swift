import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension FileHandle {
    /// Everything up to the end of the file or pipe, reading again when a signal interrupts a read.
    /// Foundation's `readDataToEndOfFile()` stops the whole test process on EINTR (a `try!` inside
    /// it on Linux), which a busy test process meets now and then.
    public func readAllRetryingInterrupts() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }
}
