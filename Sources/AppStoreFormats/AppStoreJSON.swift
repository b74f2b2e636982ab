public import Foundation
import JSONCoding

/// JSON the way the App Store writes it: compact, keys in the order a type encodes them, dates as integer
/// milliseconds since 1970, absent optionals omitted (never `null`).
///
/// Use ``encode(_:)`` for anything you sign or send (JWS payloads, Server API bodies) and ``decode(_:from:)``
/// to read Apple-style JSON back (it accepts fractional millisecond dates, as Xcode writes them).
public enum AppStoreJSON {
    /// Encodes `value` as compact JSON in declaration order. `Date` becomes integer milliseconds, `Data` becomes
    /// standard base64, `UUID` a lowercase string (as Apple writes `appAccountToken`), `URL` its absolute string.
    public static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        if let writable = value as? any AppStoreJSONWritable {
            var object = AppStoreJSONObject()
            writable.writeFields(to: &object)
            return object.finish()
        }
        return try encodeThroughCodable(value)
    }

    /// Encodes `value` through its `Encodable` conformance, even when it writes itself (``AppStoreJSONWritable``).
    static func encodeThroughCodable<Value: Encodable>(_ value: Value) throws -> Data {
        Data(try writer.encode(value))
    }

    /// The package's one-pass writer, set to Apple's form.
    private static let writer = JSONWriter(dates: .millisecondsSince1970, uuids: .lowercase)

    /// Decodes Apple-style JSON (dates as milliseconds since 1970, integer or fractional; unknown keys ignored;
    /// `null` read as absent).
    ///
    /// - Throws: `DecodingError`, as `JSONDecoder` configured by ``AppStoreJSON/makeDecoder()`` throws it, with the
    ///   coding path of the value that does not read.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try JSONReader(dates: .millisecondsSince1970).decode(type, from: data)
    }

    /// Decodes Apple-style JSON from bytes.
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try JSONReader(dates: .millisecondsSince1970).decode(type, from: bytes)
    }

    /// A Foundation `JSONDecoder` configured for Apple's date representation, for callers that need one.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}
