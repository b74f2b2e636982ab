public import Foundation

/// JSON the way the App Store writes it: compact, keys in the order a type encodes them, dates as integer
/// milliseconds since 1970, absent optionals omitted (never `null`).
///
/// Use ``encode(_:)`` for anything you sign or send (JWS payloads, Server API bodies) and ``decode(_:from:)``
/// to read Apple-style JSON back (it accepts fractional millisecond dates, as Xcode writes them).
public enum AppStoreJSON {
    /// Encodes `value` as compact JSON in declaration order. `Date` becomes integer milliseconds, `Data` becomes
    /// standard base64, `UUID` a lowercase string (as Apple writes `appAccountToken`), `URL` its absolute string.
    public static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try encodeValue(value).compactData
    }

    /// Encodes `value` into an ordered ``JSONValue`` tree.
    public static func encodeValue<Value: Encodable>(_ value: Value) throws -> JSONValue {
        let root = JSONBox()
        try root.encode(value, codingPath: [])
        return root.resolved()
    }

    /// Decodes Apple-style JSON (dates as milliseconds since 1970, integer or fractional; unknown keys ignored;
    /// `null` read as absent).
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try JSONValueDecoder.decode(type, from: Array(data))
    }

    /// Decodes Apple-style JSON from bytes.
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try JSONValueDecoder.decode(type, from: bytes)
    }

    /// A Foundation `JSONDecoder` configured for Apple's date representation, for callers that need one.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}

// MARK: - Ordered encoder

/// A node under construction. Containers share boxes by reference, as `Encoder` requires.
private final class JSONBox {
    private var scalar: JSONValue?
    private var keys: [String] = []
    private var members: [String: JSONBox] = [:]
    private var elements: [JSONBox]?

    func set(_ value: JSONValue) { scalar = value }

    func member(_ key: String) -> JSONBox {
        if let existing = members[key] { return existing }
        let box = JSONBox()
        keys.append(key)
        members[key] = box
        return box
    }

    /// Objects are the default shape of an empty box; nothing to record.
    func makeObject() {}

    func appendElement() -> JSONBox {
        let box = JSONBox()
        if elements == nil { elements = [] }
        elements!.append(box)
        return box
    }

    var elementCount: Int { elements?.count ?? 0 }

    func markArray() {
        if elements == nil { elements = [] }
    }

    func resolved() -> JSONValue {
        if let scalar { return scalar }
        if let elements { return .array(elements.map { $0.resolved() }) }
        return .object(keys.map { JSONValue.Member(key: $0, value: members[$0]!.resolved()) })
    }

    func encode<Value: Encodable>(_ value: Value, codingPath: [any CodingKey]) throws {
        switch value {
        case let date as Date:
            set(.number(String(ReceiptDate.milliseconds(from: date))))
        case let data as Data:
            set(.string(data.base64EncodedString()))
        case let uuid as UUID:
            set(.string(uuid.uuidString.lowercased()))
        case let url as URL:
            set(.string(url.absoluteString))
        case let decimal as Decimal:
            set(.number(decimal.description))
        default:
            try value.encode(to: BoxEncoder(box: self, codingPath: codingPath))
        }
    }

    static func number(_ value: Double, codingPath: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "JSON cannot represent \(value).")
            )
        }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            return .number(String(Int64(value)))
        }
        return .number("\(value)")
    }
}

private struct BoxEncoder: Encoder {
    let box: JSONBox
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        box.makeObject()
        return KeyedEncodingContainer(KeyedBoxContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        box.markArray()
        return UnkeyedBoxContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueBoxContainer(box: box, codingPath: codingPath)
    }
}

private struct KeyedBoxContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: JSONBox
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { box.member(key.stringValue).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.member(key.stringValue).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { box.member(key.stringValue).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        box.member(key.stringValue).set(try JSONBox.number(value, codingPath: codingPath + [key]))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        box.member(key.stringValue).set(try JSONBox.number(Double(value), codingPath: codingPath + [key]))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { box.member(key.stringValue).set(.number(String(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { box.member(key.stringValue).set(.number(String(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { box.member(key.stringValue).set(.number(String(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { box.member(key.stringValue).set(.number(String(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { box.member(key.stringValue).set(.number(String(value))) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { box.member(key.stringValue).set(.number(String(value))) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { box.member(key.stringValue).set(.number(String(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { box.member(key.stringValue).set(.number(String(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { box.member(key.stringValue).set(.number(String(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { box.member(key.stringValue).set(.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try box.member(key.stringValue).encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = box.member(key.stringValue)
        child.makeObject()
        return KeyedEncodingContainer(KeyedBoxContainer<NestedKey>(box: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = box.member(key.stringValue)
        child.markArray()
        return UnkeyedBoxContainer(box: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        BoxEncoder(box: box.member("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        BoxEncoder(box: box.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String { String(intValue!) }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct UnkeyedBoxContainer: UnkeyedEncodingContainer {
    let box: JSONBox
    let codingPath: [any CodingKey]
    var count: Int { box.elementCount }

    mutating func encodeNil() throws { box.appendElement().set(.null) }
    mutating func encode(_ value: Bool) throws { box.appendElement().set(.bool(value)) }
    mutating func encode(_ value: String) throws { box.appendElement().set(.string(value)) }
    mutating func encode(_ value: Double) throws {
        box.appendElement().set(try JSONBox.number(value, codingPath: codingPath))
    }
    mutating func encode(_ value: Float) throws {
        box.appendElement().set(try JSONBox.number(Double(value), codingPath: codingPath))
    }
    mutating func encode(_ value: Int) throws { box.appendElement().set(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { box.appendElement().set(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { box.appendElement().set(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { box.appendElement().set(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { box.appendElement().set(.number(String(value))) }
    mutating func encode(_ value: UInt) throws { box.appendElement().set(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { box.appendElement().set(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { box.appendElement().set(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { box.appendElement().set(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { box.appendElement().set(.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = count
        try box.appendElement().encode(value, codingPath: codingPath + [IndexKey(index)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let index = count
        let child = box.appendElement()
        child.makeObject()
        return KeyedEncodingContainer(KeyedBoxContainer<NestedKey>(box: child, codingPath: codingPath + [IndexKey(index)]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        let child = box.appendElement()
        child.markArray()
        return UnkeyedBoxContainer(box: child, codingPath: codingPath + [IndexKey(index)])
    }

    mutating func superEncoder() -> any Encoder {
        let index = count
        return BoxEncoder(box: box.appendElement(), codingPath: codingPath + [IndexKey(index)])
    }
}

private struct SingleValueBoxContainer: SingleValueEncodingContainer {
    let box: JSONBox
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { box.set(.null) }
    mutating func encode(_ value: Bool) throws { box.set(.bool(value)) }
    mutating func encode(_ value: String) throws { box.set(.string(value)) }
    mutating func encode(_ value: Double) throws { box.set(try JSONBox.number(value, codingPath: codingPath)) }
    mutating func encode(_ value: Float) throws { box.set(try JSONBox.number(Double(value), codingPath: codingPath)) }
    mutating func encode(_ value: Int) throws { box.set(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { box.set(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { box.set(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { box.set(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { box.set(.number(String(value))) }
    mutating func encode(_ value: UInt) throws { box.set(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { box.set(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { box.set(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { box.set(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { box.set(.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { try box.encode(value, codingPath: codingPath) }
}
