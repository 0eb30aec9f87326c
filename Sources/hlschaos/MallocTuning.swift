import CurlShim
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// glibc gives the free memory at the top of a heap back to the kernel as soon as it exceeds a
/// threshold it adapts on its own (128 KB to start). The proxy allocates and frees a few hundred KB
/// per segment (curl's receive buffer, body chunks), so the heaps of the curl thread shrank and grew
/// on nearly every request and every received page was a fresh page fault: about a tenth of the
/// proxy's CPU for 64 KB segments. Fixed thresholds keep up to 32 MB of freed memory for reuse and
/// leave only allocations of 1 MB and more to mmap.
enum MallocTuning {
    static func keepFreedMemoryForReuse() {
        // Whoever tunes malloc through the environment keeps their settings.
        let environment = ["MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES"]
        guard !environment.contains(where: { getenv($0) != nil }) else { return }
        _ = cs_malloc_set_thresholds(1 << 20, 32 << 20)
    }
}
