extension LocalCA {
    /// Why the CA could not be loaded, made or used: the message names the file and what would fix it.
    public struct Error: Swift.Error, CustomStringConvertible, Sendable {
        public enum Kind: Sendable, Equatable {
            /// The folder cannot be made or written (permissions, a file in the way, a read-only disk).
            case directoryNotWritable
            /// One of the two files is there without the other.
            case fileMissing
            /// The private key file can be read or written by other users.
            case keyExposed
            /// A file exists but cannot be read.
            case unreadable
            /// A file is not what it should be (not PEM, not a P-256 key, not a CA certificate).
            case corrupt
            /// The private key is not the key of the root certificate.
            case keyMismatch
            /// The root certificate is past its end date.
            case expired
            /// A host name or address that cannot be put in a certificate.
            case invalidName
            /// Signing or encoding failed (not expected with a valid key).
            case issuing
        }

        public let kind: Kind
        /// The file or folder concerned, if any.
        public let path: String?
        public let description: String

        init(_ kind: Kind, path: String?, _ description: String) {
            self.kind = kind
            self.path = path
            self.description = description
        }
    }
}
