import Foundation

/// A `Decoder` over a parsed ``JSONValue``, with Apple's conventions: `Date` from milliseconds since 1970
/// (integer or fractional), unknown keys ignored, `null` treated as absent for optionals.
///
/// It exists for speed, measured: JWS verification decodes a payload per token, and Foundation's `JSONDecoder`
/// takes 11.3 µs for a transaction payload where this takes 6.6 µs (keyed lookups resume where the previous one
/// matched, because payload keys usually arrive in declaration order). With `JSONDecoder`, `storekit bench
/// jws-verify` fell from 12,600 to 11,200 verifications a second (Swift 6.3, release, 2 cores, November 2026).
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(value: JSONValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Invalid JSON.", underlyingError: error))
        }
        return try decodeValue(type, from: value, codingPath: [])
    }

    static func decodeValue<T: Decodable>(_ type: T.Type, from value: JSONValue, codingPath: [any CodingKey]) throws -> T {
        if T.self == Date.self {
            guard case .number(let text) = value else {
                throw mismatch(T.self, value, codingPath, "Expected milliseconds since 1970.")
            }
            // Integer milliseconds (Apple's servers) parse faster than the fractional ones Xcode writes.
            if let milliseconds = Int64(text) {
                return Date(timeIntervalSince1970: Double(milliseconds) / 1000) as! T
            }
            guard let milliseconds = Double(text) else {
                throw mismatch(T.self, value, codingPath, "Expected milliseconds since 1970.")
            }
            return Date(timeIntervalSince1970: milliseconds / 1000) as! T
        }
        return try T(from: JSONValueDecoder(value: value, codingPath: codingPath))
    }

    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ codingPath: [any CodingKey], _ detail: String) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "\(detail) Found \(value)."))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw Self.mismatch([String: Any].self, value, codingPath, "Expected an object.")
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw Self.mismatch([Any].self, value, codingPath, "Expected an array.")
        }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath)
    }
}

// MARK: - Scalars

extension JSONValue {
    // The coding path is an autoclosure so the common, successful cases never build the array.
    fileprivate func decodeScalar<T: Decodable>(_ type: T.Type, codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        switch type {
        case is String.Type:
            guard case .string(let string) = self else {
                throw JSONValueDecoder.mismatch(type, self, codingPath(), "Expected a string.")
            }
            return string as! T
        case is Bool.Type:
            guard case .bool(let flag) = self else {
                throw JSONValueDecoder.mismatch(type, self, codingPath(), "Expected a boolean.")
            }
            return flag as! T
        case is Double.Type:
            guard let number = doubleValue else { throw JSONValueDecoder.mismatch(type, self, codingPath(), "Expected a number.") }
            return number as! T
        case is Float.Type:
            guard let number = doubleValue else { throw JSONValueDecoder.mismatch(type, self, codingPath(), "Expected a number.") }
            return Float(number) as! T
        default:
            return try JSONValueDecoder.decodeValue(type, from: self, codingPath: codingPath())
        }
    }

    fileprivate func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        guard case .number(let text) = self else {
            throw JSONValueDecoder.mismatch(type, self, codingPath(), "Expected a number.")
        }
        if let exact = T(text) { return exact }
        if let number = Double(text), number == number.rounded(), let exact = T(exactly: number) { return exact }
        throw DecodingError.dataCorrupted(
            .init(codingPath: codingPath(), debugDescription: "Number \(text) does not fit in \(T.self).")
        )
    }
}

// MARK: - Keyed

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [JSONValue.Member]
    let codingPath: [any CodingKey]
    /// Where the next lookup starts: the member after the last match. A class, because decoding containers
    /// are used through non-mutating requirements; each container owns its own and is used by one decoding call.
    private final class Cursor {
        var index = 0
    }

    private let cursor = Cursor()

    init(members: [JSONValue.Member], codingPath: [any CodingKey]) {
        self.members = members
        self.codingPath = codingPath
    }

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { members.contains { $0.key == key.stringValue } }

    /// The member named `key`, searching from the cursor and wrapping around.
    private func find(_ key: Key) -> JSONValue? {
        let name = key.stringValue
        let count = members.count
        guard count > 0 else { return nil }
        var index = cursor.index < count ? cursor.index : 0
        for _ in 0..<count {
            if members[index].key == name {
                cursor.index = index + 1
                return members[index].value
            }
            index = index + 1 == count ? 0 : index + 1
        }
        return nil
    }

    private func require(_ key: Key) throws -> JSONValue {
        guard let value = find(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for \(key.stringValue)."))
        }
        return value
    }

    private func present(_ key: Key) -> JSONValue? {
        guard let value = find(key), value != .null else { return nil }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { (find(key) ?? .null) == .null }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try require(key).decodeScalar(type, codingPath: codingPath + [key])
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try require(key).decodeScalar(type, codingPath: codingPath + [key])
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try require(key).decodeScalar(type, codingPath: codingPath + [key])
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try require(key).decodeScalar(type, codingPath: codingPath + [key])
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try require(key).decodeInteger(type, codingPath: codingPath + [key])
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try require(key).decodeInteger(type, codingPath: codingPath + [key])
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try require(key).decodeInteger(type, codingPath: codingPath + [key])
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try require(key).decodeInteger(type, codingPath: codingPath + [key])
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try require(key).decodeInteger(type, codingPath: codingPath + [key])
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try require(key).decodeInteger(type, codingPath: codingPath + [key])
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try require(key).decodeInteger(type, codingPath: codingPath + [key])
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try require(key).decodeInteger(type, codingPath: codingPath + [key])
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try require(key).decodeInteger(type, codingPath: codingPath + [key])
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try require(key).decodeInteger(type, codingPath: codingPath + [key])
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try require(key).decodeScalar(type, codingPath: codingPath + [key])
    }

    // One lookup per optional field (the default implementations look a key up three times).
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key)?.decodeScalar(type, codingPath: codingPath + [key])
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key)?.decodeScalar(type, codingPath: codingPath + [key])
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key)?.decodeScalar(type, codingPath: codingPath + [key])
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key)?.decodeInteger(type, codingPath: codingPath + [key])
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try present(key)?.decodeInteger(type, codingPath: codingPath + [key])
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try present(key)?.decodeInteger(type, codingPath: codingPath + [key])
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key)?.decodeScalar(type, codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONValueDecoder(value: try require(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONValueDecoder(value: try require(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONValueDecoder(value: members.first { $0.key == "super" }?.value ?? .null, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoder(value: find(key) ?? .null, codingPath: codingPath + [key])
    }
}

// MARK: - Unkeyed and single value

private struct IndexCodingKey: CodingKey {
    var stringValue: String { String(index) }
    var intValue: Int? { index }
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.index = intValue }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    private mutating func next() throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: "The array has no element \(currentIndex).")
            )
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], codingPath + [IndexCodingKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let (v, p) = try next(); return try v.decodeScalar(type, codingPath: p) }
    mutating func decode(_ type: String.Type) throws -> String { let (v, p) = try next(); return try v.decodeScalar(type, codingPath: p) }
    mutating func decode(_ type: Double.Type) throws -> Double { let (v, p) = try next(); return try v.decodeScalar(type, codingPath: p) }
    mutating func decode(_ type: Float.Type) throws -> Float { let (v, p) = try next(); return try v.decodeScalar(type, codingPath: p) }
    mutating func decode(_ type: Int.Type) throws -> Int { let (v, p) = try next(); return try v.decodeInteger(type, codingPath: p) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let (v, p) = try next(); return try v.decodeInteger(type, codingPath: p) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let (v, p) = try next(); return try v.decodeInteger(type, codingPath: p) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let (v, p) = try next(); return try v.decodeInteger(type, codingPath: p) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (v, p) = try next(); return try v.decodeInteger(type, codingPath: p) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let (v, p) = try next(); return try v.decodeInteger(type, codingPath: p) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let (v, p) = try next(); return try v.decodeInteger(type, codingPath: p) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let (v, p) = try next(); return try v.decodeInteger(type, codingPath: p) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let (v, p) = try next(); return try v.decodeInteger(type, codingPath: p) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let (v, p) = try next(); return try v.decodeInteger(type, codingPath: p) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { let (v, p) = try next(); return try v.decodeScalar(type, codingPath: p) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next()
        return try JSONValueDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next()
        return try JSONValueDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next()
        return JSONValueDecoder(value: value, codingPath: path)
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try value.decodeScalar(type, codingPath: codingPath) }
    func decode(_ type: String.Type) throws -> String { try value.decodeScalar(type, codingPath: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try value.decodeScalar(type, codingPath: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try value.decodeScalar(type, codingPath: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try value.decodeInteger(type, codingPath: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try value.decodeInteger(type, codingPath: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try value.decodeInteger(type, codingPath: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try value.decodeInteger(type, codingPath: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try value.decodeInteger(type, codingPath: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try value.decodeInteger(type, codingPath: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try value.decodeInteger(type, codingPath: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try value.decodeInteger(type, codingPath: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try value.decodeInteger(type, codingPath: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try value.decodeInteger(type, codingPath: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value.decodeScalar(type, codingPath: codingPath) }
}
