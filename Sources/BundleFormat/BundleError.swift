import Foundation

/// Why a bundle could not be written or read: names the file (and line or entry) and what would
/// fix it. Never a crash: every reader and writer path ends in one of these.
public struct BundleError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The file or directory concerned.
    public var path: String
    public var problem: String
    /// True when the writer stopped because the bundle reached its size cap.
    public var isSizeCap: Bool

    public init(_ path: String, _ problem: String, isSizeCap: Bool = false) {
        self.path = path; self.problem = problem; self.isSizeCap = isSizeCap
    }

    public var description: String { "\(path): \(problem)" }
    public var errorDescription: String? { description }
}
