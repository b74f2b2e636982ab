import Foundation
import JSONCoding

/// Writes a stored row's body: the JSON text `JSONEncoder` with its default options would write (dates as seconds
/// since 2001), so `JSONDecoder` reads back the same value and rows written before, or by `JSONEncoder`, stay
/// readable.
///
/// The records every purchase and renewal writes write themselves (``RowJSONWritable``); everything else goes
/// through the package's one-pass `JSONWriter`.
package struct RowJSONEncoder: Sendable {
    /// Creates an encoder.
    package init() {}

    /// The JSON text of `value`.
    ///
    /// - Throws: `EncodingError` when `JSONEncoder` would throw too: a non-finite floating-point number.
    package func encode(_ value: some Encodable) throws -> String {
        if let record = value as? any RowJSONWritable { return try RowJSONObjectWriter.text(of: record) }
        return try encodeThroughConformance(value)
    }

    /// The JSON text of `value`, written through its `Encodable` conformance even when it writes itself
    /// (``RowJSONWritable``): what the records' own writers are checked against.
    package func encodeThroughConformance(_ value: some Encodable) throws -> String {
        try JSONWriter().encodeText(value)
    }
}
