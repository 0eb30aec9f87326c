import Addressing
import HLS

extension ByteRange {
    /// The `Range` header that asks for this EXT-X-BYTERANGE: what the recorder sends and what a
    /// bundle's byte-range exchanges are keyed by.
    public var rangeHeader: String { RangeHeader.value(first: offset, length: length) }
}
