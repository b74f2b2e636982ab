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
        let writer = JSONWriter()
        try writer.writeValue(value, at: CodingPathTail(parent: [], key: nil))
        writer.closeAll()
        return Data(writer.bytes)
    }

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

// MARK: - Streaming encoder

// Foundation's JSONEncoder cannot write keys in declaration order with millisecond dates and lowercase UUIDs, which
// signed payloads need byte for byte; and every JWS the store signs goes through this encoder, so it writes the
// bytes as the value encodes itself, in one pass, instead of building a tree first.

/// The output and the containers still open, innermost last.
///
/// `Encoder` never says when a container is done: a container is closed when something is written to one of its
/// ancestors, or at the end. Values encode themselves in order, so that is exactly when it is done.
private final class JSONWriter {
    var bytes: [UInt8] = []
    /// For each open container: whether it is an object (else an array) and whether it holds an entry yet.
    private var open: [(isObject: Bool, isEmpty: Bool)] = []

    init() {
        bytes.reserveCapacity(1_024)
    }

    /// Opens an object or array at `depth`, as the value being written.
    func openContainer(isObject: Bool, depth: Int) {
        closeContainers(deeperThan: depth - 1)
        bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        open.append((isObject, true))
    }

    /// Closes the containers opened deeper than `depth`.
    func closeContainers(deeperThan depth: Int) {
        while open.count > depth + 1 {
            bytes.append(open.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    func closeAll() {
        closeContainers(deeperThan: -1)
    }

    /// Starts an entry of the container at `depth`: closes what is deeper, writes the comma and, in an object, the
    /// key.
    func beginEntry(depth: Int, key: String?) {
        precondition(depth < open.count, "A value encoded into a container after a later sibling was written; AppStoreJSON writes values in order.")
        closeContainers(deeperThan: depth)
        if open[depth].isEmpty { open[depth].isEmpty = false } else { bytes.append(UInt8(ascii: ",")) }
        if let key {
            JSONValue.writeString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
        }
    }

    func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    func writeString(_ string: String) {
        JSONValue.writeString(string, to: &bytes)
    }

    func writeNumber(_ value: Double, codingPath: @autoclosure () -> [any CodingKey]) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath(), debugDescription: "JSON cannot represent \(value)."))
        }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            write(String(Int64(value)))
        } else {
            write("\(value)")
        }
    }

    /// Writes a value where one is expected (after a key, as an element, or at the top).
    func writeValue<Value: Encodable>(_ value: Value, at path: CodingPathTail) throws {
        // Metatypes compare as pointers; a failed dynamic cast per special type and value cost more than the rest.
        let type = Value.self
        if type == Date.self, let date = value as? Date {
            write(String(ReceiptDate.milliseconds(from: date)))
        } else if type == Data.self, let data = value as? Data {
            writeString(data.base64EncodedString())
        } else if type == UUID.self, let uuid = value as? UUID {
            writeString(uuid.uuidString.lowercased())
        } else if type == URL.self, let url = value as? URL {
            writeString(url.absoluteString)
        } else if type == Decimal.self, let decimal = value as? Decimal {
            write(decimal.description)
        } else {
            let start = bytes.count
            try value.encode(to: StreamEncoder(writer: self, depth: open.count, path: path))
            // A value that encoded nothing is an empty object, as JSONEncoder writes it.
            if bytes.count == start { write("{}") }
        }
    }
}

/// A coding path kept as its parent's path and its last key: the array is built only when asked for, which most
/// values (dates, enums, strings) never do.
private struct CodingPathTail {
    let parent: [any CodingKey]
    let key: (any CodingKey)?

    var codingPath: [any CodingKey] { key.map { parent + [$0] } ?? parent }
}

/// The encoder a value writes itself to; `depth` is where its container goes.
private struct StreamEncoder: Encoder {
    let writer: JSONWriter
    let depth: Int
    let path: CodingPathTail
    var codingPath: [any CodingKey] { path.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        writer.openContainer(isObject: true, depth: depth)
        return KeyedEncodingContainer(StreamKeyedContainer<Key>(writer: writer, depth: depth, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        writer.openContainer(isObject: false, depth: depth)
        return StreamUnkeyedContainer(writer: writer, depth: depth, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        StreamSingleValueContainer(writer: writer, path: path)
    }
}

private struct StreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONWriter
    let depth: Int
    let codingPath: [any CodingKey]

    private func begin(_ key: Key) { writer.beginEntry(depth: depth, key: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { begin(key); writer.write("null") }
    mutating func encode(_ value: Bool, forKey key: Key) throws { begin(key); writer.write(value ? "true" : "false") }
    mutating func encode(_ value: String, forKey key: Key) throws { begin(key); writer.writeString(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { begin(key); try writer.writeNumber(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Float, forKey key: Key) throws { begin(key); try writer.writeNumber(Double(value), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int, forKey key: Key) throws { begin(key); writer.write(String(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { begin(key); writer.write(String(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { begin(key); writer.write(String(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { begin(key); writer.write(String(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { begin(key); writer.write(String(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { begin(key); writer.write(String(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { begin(key); writer.write(String(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { begin(key); writer.write(String(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { begin(key); writer.write(String(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { begin(key); writer.write(String(value)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        begin(key)
        try writer.writeValue(value, at: CodingPathTail(parent: codingPath, key: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        begin(key)
        writer.openContainer(isObject: true, depth: depth + 1)
        return KeyedEncodingContainer(StreamKeyedContainer<NestedKey>(writer: writer, depth: depth + 1, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        begin(key)
        writer.openContainer(isObject: false, depth: depth + 1)
        return StreamUnkeyedContainer(writer: writer, depth: depth + 1, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        writer.beginEntry(depth: depth, key: "super")
        return StreamEncoder(writer: writer, depth: depth + 1, path: CodingPathTail(parent: codingPath, key: nil))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        begin(key)
        return StreamEncoder(writer: writer, depth: depth + 1, path: CodingPathTail(parent: codingPath, key: key))
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String { String(intValue!) }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct StreamUnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONWriter
    let depth: Int
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(writer: JSONWriter, depth: Int, codingPath: [any CodingKey]) {
        self.writer = writer
        self.depth = depth
        self.codingPath = codingPath
    }

    private mutating func begin() {
        writer.beginEntry(depth: depth, key: nil)
        count += 1
    }

    mutating func encodeNil() throws { begin(); writer.write("null") }
    mutating func encode(_ value: Bool) throws { begin(); writer.write(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { begin(); writer.writeString(value) }
    mutating func encode(_ value: Double) throws { begin(); try writer.writeNumber(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { begin(); try writer.writeNumber(Double(value), codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { begin(); writer.write(String(value)) }
    mutating func encode(_ value: Int8) throws { begin(); writer.write(String(value)) }
    mutating func encode(_ value: Int16) throws { begin(); writer.write(String(value)) }
    mutating func encode(_ value: Int32) throws { begin(); writer.write(String(value)) }
    mutating func encode(_ value: Int64) throws { begin(); writer.write(String(value)) }
    mutating func encode(_ value: UInt) throws { begin(); writer.write(String(value)) }
    mutating func encode(_ value: UInt8) throws { begin(); writer.write(String(value)) }
    mutating func encode(_ value: UInt16) throws { begin(); writer.write(String(value)) }
    mutating func encode(_ value: UInt32) throws { begin(); writer.write(String(value)) }
    mutating func encode(_ value: UInt64) throws { begin(); writer.write(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = count
        begin()
        try writer.writeValue(value, at: CodingPathTail(parent: codingPath, key: IndexKey(index)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let index = count
        begin()
        writer.openContainer(isObject: true, depth: depth + 1)
        return KeyedEncodingContainer(StreamKeyedContainer<NestedKey>(writer: writer, depth: depth + 1, codingPath: codingPath + [IndexKey(index)]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        begin()
        writer.openContainer(isObject: false, depth: depth + 1)
        return StreamUnkeyedContainer(writer: writer, depth: depth + 1, codingPath: codingPath + [IndexKey(index)])
    }

    mutating func superEncoder() -> any Encoder {
        let index = count
        begin()
        return StreamEncoder(writer: writer, depth: depth + 1, path: CodingPathTail(parent: codingPath, key: IndexKey(index)))
    }
}

private struct StreamSingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONWriter
    let path: CodingPathTail
    var codingPath: [any CodingKey] { path.codingPath }

    mutating func encodeNil() throws { writer.write("null") }
    mutating func encode(_ value: Bool) throws { writer.write(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { writer.writeString(value) }
    mutating func encode(_ value: Double) throws { try writer.writeNumber(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { try writer.writeNumber(Double(value), codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { writer.write(String(value)) }
    mutating func encode(_ value: Int8) throws { writer.write(String(value)) }
    mutating func encode(_ value: Int16) throws { writer.write(String(value)) }
    mutating func encode(_ value: Int32) throws { writer.write(String(value)) }
    mutating func encode(_ value: Int64) throws { writer.write(String(value)) }
    mutating func encode(_ value: UInt) throws { writer.write(String(value)) }
    mutating func encode(_ value: UInt8) throws { writer.write(String(value)) }
    mutating func encode(_ value: UInt16) throws { writer.write(String(value)) }
    mutating func encode(_ value: UInt32) throws { writer.write(String(value)) }
    mutating func encode(_ value: UInt64) throws { writer.write(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try writer.writeValue(value, at: path) }
}
