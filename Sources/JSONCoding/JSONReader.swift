package import Foundation

/// Reads JSON text — a stored row's body, a signed payload, an HTTP request's body — into a value through the
/// value's own `Decodable` conformance. It is the package's one fast JSON reader; everything else reads with
/// `JSONDecoder`.
///
/// It reads as `JSONDecoder` with its default options reads, but for dates (``JSONDateFormat``): `Decimal` from a JSON
/// number, `null` read as absent by `decodeIfPresent`, unknown keys ignored. `JSONDecoder` first turns every object
/// into a dictionary of its members; this indexes the text once and looks each key up where the previous one was
/// found, which is where the next one is in text written in declaration order (rows, Apple's payloads). Nothing here
/// knows the values it reads.
///
/// It never answers differently from `JSONDecoder`: whenever it meets something it does not read itself (a
/// `superDecoder`, a `Float`, a `URL`, `Data`, an escape it does not know, text that is not UTF-8) or anything
/// throws, the text is decoded again by `JSONDecoder`, which gives the value or the error, with its coding path.
package struct JSONReader: Sendable {
    /// How dates are written in the text this reads.
    package let dates: JSONDateFormat

    /// Creates a reader for text whose dates are written as `dates` says.
    package init(dates: JSONDateFormat = .secondsSince2001) {
        self.dates = dates
    }

    /// The value `text` holds.
    ///
    /// - Throws: `DecodingError`, from `JSONDecoder`, when `text` is not a `T`.
    package func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        var text = text
        return try text.withUTF8 { bytes in try decode(type, fromUTF8: bytes) }
    }

    /// The value the JSON text in `data` holds.
    ///
    /// - Throws: `DecodingError`, from `JSONDecoder`, when `data` is not a `T`.
    package func decode<T: Decodable>(_ type: T.Type, from data: some ContiguousBytes) throws -> T {
        try data.withUnsafeBytes { bytes in try decode(type, fromUTF8: bytes.assumingMemoryBound(to: UInt8.self)) }
    }

    /// The value the JSON text in `bytes` holds; `bytes` need not be valid UTF-8 (`JSONDecoder` then says why not).
    ///
    /// - Throws: `DecodingError`, from `JSONDecoder`, when `bytes` are not a `T`.
    package func decode<T: Decodable>(_ type: T.Type, fromUTF8 bytes: UnsafeBufferPointer<UInt8>) throws -> T {
        if let reader = IndexedJSON(bytes, dates: dates) {
            defer { reader.bytes = UnsafeBufferPointer(start: nil, count: 0) }
            if let value = try? reader.decode(T.self, node: 0), !reader.leftSomethingToJSONDecoder { return value }
        }
        let decoder = JSONDecoder()
        if dates == .millisecondsSince1970 { decoder.dateDecodingStrategy = .millisecondsSince1970 }
        return try decoder.decode(T.self, from: Data(bytes))
    }
}

/// Thrown when the text holds something this decoder leaves to `JSONDecoder`.
private struct LeftToJSONDecoder: Error {}

/// One text and the index of its values, valid during one ``JSONReader/decode(_:fromUTF8:)`` call.
private final class IndexedJSON {
    /// A node's kind. Strings come in three: `asciiString` (no escape, no byte past ASCII: its bytes are the string),
    /// `string` (no escape, UTF-8 still to be checked), `escapedString`.
    enum Kind: UInt8 { case object, array, asciiString, string, escapedString, integer, number, `true`, `false`, null }

    /// One value of the text, in document order. An object's members follow it as key, value, key, value…
    struct Node {
        var kind: Kind
        /// A string's contents between the quotes, a number's text.
        var start: Int32
        var end: Int32
        /// The index of the node after this one's last descendant.
        var next: Int32
        /// An object's members, an array's elements.
        var count: Int32
    }

    /// The text; emptied when the decode call ends, so that a conformance that kept its decoder cannot read freed memory.
    var bytes: UnsafeBufferPointer<UInt8>
    let dates: JSONDateFormat
    /// A constant: a stored variable of a class is checked for exclusive access at run time on every read.
    let nodes: [Node]
    /// Set when a read was left to `JSONDecoder`: a conformance that caught the error and went on may have decoded
    /// something else than `JSONDecoder` would, so the value is not used.
    var leftSomethingToJSONDecoder = false

    func refused() -> LeftToJSONDecoder {
        leftSomethingToJSONDecoder = true
        return LeftToJSONDecoder()
    }

    /// Indexes `bytes`; `nil` when they are not one JSON value this reader can index.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, dates: JSONDateFormat) {
        var indexer = Indexer(bytes: bytes)
        guard let nodes = indexer.index() else { return nil }
        self.bytes = bytes
        self.dates = dates
        self.nodes = nodes
    }

    // MARK: Values

    func text(_ node: Node) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)])
    }

    func decode<T: Decodable>(_ type: T.Type, node index: Int) throws -> T {
        if T.self == String.self { return try decodeString(index) as! T }
        if T.self == Date.self {
            let number = try decodeDouble(index)
            switch dates {
            case .secondsSince2001: return Date(timeIntervalSinceReferenceDate: number) as! T
            case .millisecondsSince1970: return Date(timeIntervalSince1970: number / 1000) as! T
            }
        }
        if T.self == UUID.self {
            guard let uuid = UUID(uuidString: try decodeString(index)) else { throw refused() }
            return uuid as! T
        }
        if T.self == Decimal.self {
            let node = nodes[index]
            guard node.kind == .integer || node.kind == .number, node.end - node.start <= 32,
                  let decimal = Decimal(string: String(decoding: text(node), as: UTF8.self)) else { throw refused() }
            return decimal as! T
        }
        if T.self == URL.self || T.self == Data.self || T.self == Float.self { throw refused() }
        return try T(from: IndexedValueDecoder(reader: self, node: index))
    }

    func decodeString(_ index: Int) throws(LeftToJSONDecoder) -> String {
        let node = nodes[index]
        switch node.kind {
        case .asciiString:
            // ASCII is valid UTF-8: nothing to check, and nothing for `String(decoding:)` to repair. The generic
            // `String(validating:as:)` cost a thousand instructions a string.
            return String(decoding: text(node), as: UTF8.self)
        case .string:
            guard let string = String(validating: text(node), as: UTF8.self) else { throw refused() }
            return string
        case .escapedString: return try unescape(text(node))
        default: throw refused()
        }
    }

    private func unescape(_ text: UnsafeBufferPointer<UInt8>) throws(LeftToJSONDecoder) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.count)
        var index = 0
        func hex4(_ at: Int) throws(LeftToJSONDecoder) -> UInt32 {
            guard at + 4 <= text.count else { throw refused() }
            var value: UInt32 = 0
            for byte in text[at..<at + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw refused()
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while index < text.count {
            let byte = text[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            guard index + 1 < text.count else { throw refused() }
            let escape = text[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(index)
                index += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    guard index + 6 <= text.count, text[index] == UInt8(ascii: "\\"), text[index + 1] == UInt8(ascii: "u") else { throw refused() }
                    let low = try hex4(index + 2)
                    guard (0xDC00..<0xE000).contains(low) else { throw refused() }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw refused() }
                output.append(contentsOf: String(Character(unicode)).utf8)
            default:
                throw refused()
            }
        }
        guard let string = String(validating: output, as: UTF8.self) else { throw refused() }
        return string
    }

    func decodeBool(_ index: Int) throws(LeftToJSONDecoder) -> Bool {
        switch nodes[index].kind {
        case .true: true
        case .false: false
        default: throw refused()
        }
    }

    func decodeInteger<T: FixedWidthInteger>(_ index: Int, as type: T.Type) throws(LeftToJSONDecoder) -> T {
        let node = nodes[index]
        guard node.kind == .integer else { throw refused() }
        let digits = text(node)
        let negative = digits[0] == UInt8(ascii: "-")
        var magnitude: UInt64 = 0
        for byte in digits.dropFirst(negative ? 1 : 0) {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { throw refused() }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw refused() }
            let value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
            guard let result = T(exactly: value) else { throw refused() }
            return result
        }
        guard let result = T(exactly: magnitude) else { throw refused() }
        return result
    }

    func decodeDouble(_ index: Int) throws(LeftToJSONDecoder) -> Double {
        let node = nodes[index]
        if node.kind == .integer, node.end - node.start <= 15 {
            // At most 15 characters: an Int64, and a Double exactly.
            let whole = Double(try decodeInteger(index, as: Int64.self))
            return whole == 0 && bytes[Int(node.start)] == UInt8(ascii: "-") ? -0.0 : whole
        }
        guard node.kind == .integer || node.kind == .number,
              let value = Double(String(decoding: text(node), as: UTF8.self)), value.isFinite else { throw refused() }
        return value
    }
}

/// Indexes a text's values into ``IndexedJSON/Node``s, in one pass: a value type, so its work is checked for
/// exclusive access when compiled rather than on every access.
private struct Indexer {
    let bytes: UnsafeBufferPointer<UInt8>
    var nodes: [IndexedJSON.Node] = []
    typealias Node = IndexedJSON.Node
    typealias Kind = IndexedJSON.Kind

    /// The nodes of the text's one value; `nil` when it is not one JSON value this reader can index.
    mutating func index() -> [Node]? {
        // About a node per eight bytes of a row or a request; kept under a kilobyte, where the C library's allocator
        // would first tidy its free lists on every request (a purchase decodes several small texts).
        nodes.reserveCapacity(min(48, max(8, bytes.count / 8)))
        var position = 0
        guard (try? parseValue(&position, depth: 0)) != nil else { return nil }
        skipWhitespace(&position)
        guard position == bytes.count else { return nil }
        return nodes
    }

    private func skipWhitespace(_ position: inout Int) {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue(_ position: inout Int, depth: Int) throws(LeftToJSONDecoder) {
        guard depth < 256 else { throw LeftToJSONDecoder() }
        skipWhitespace(&position)
        guard position < bytes.count else { throw LeftToJSONDecoder() }
        let index = nodes.count
        switch bytes[position] {
        case UInt8(ascii: "{"):
            nodes.append(Node(kind: .object, start: Int32(position), end: 0, next: 0, count: 0))
            position += 1
            skipWhitespace(&position)
            var count: Int32 = 0
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
            } else {
                while true {
                    skipWhitespace(&position)
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw LeftToJSONDecoder() }
                    try parseString(&position)
                    skipWhitespace(&position)
                    guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw LeftToJSONDecoder() }
                    position += 1
                    try parseValue(&position, depth: depth + 1)
                    count += 1
                    skipWhitespace(&position)
                    guard position < bytes.count else { throw LeftToJSONDecoder() }
                    position += 1
                    if bytes[position - 1] == UInt8(ascii: "}") { break }
                    guard bytes[position - 1] == UInt8(ascii: ",") else { throw LeftToJSONDecoder() }
                }
            }
            nodes[index].count = count
        case UInt8(ascii: "["):
            nodes.append(Node(kind: .array, start: Int32(position), end: 0, next: 0, count: 0))
            position += 1
            skipWhitespace(&position)
            var count: Int32 = 0
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
            } else {
                while true {
                    try parseValue(&position, depth: depth + 1)
                    count += 1
                    skipWhitespace(&position)
                    guard position < bytes.count else { throw LeftToJSONDecoder() }
                    position += 1
                    if bytes[position - 1] == UInt8(ascii: "]") { break }
                    guard bytes[position - 1] == UInt8(ascii: ",") else { throw LeftToJSONDecoder() }
                }
            }
            nodes[index].count = count
        case UInt8(ascii: "\""):
            try parseString(&position)
            return
        case UInt8(ascii: "t"):
            try parseLiteral("true", .true, &position)
        case UInt8(ascii: "f"):
            try parseLiteral("false", .false, &position)
        case UInt8(ascii: "n"):
            try parseLiteral("null", .null, &position)
        default:
            try parseNumber(&position)
            return
        }
        nodes[index].next = Int32(nodes.count)
    }

    private mutating func parseLiteral(_ literal: StaticString, _ kind: Kind, _ position: inout Int) throws(LeftToJSONDecoder) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count,
              memcmp(bytes.baseAddress! + position, literal.utf8Start, count) == 0 else { throw LeftToJSONDecoder() }
        nodes.append(Node(kind: kind, start: Int32(position), end: Int32(position + count), next: Int32(nodes.count + 1), count: 0))
        position += count
    }

    private mutating func parseString(_ position: inout Int) throws(LeftToJSONDecoder) {
        let start = position + 1
        var index = start
        var escaped = false, ascii = true
        while true {
            guard index < bytes.count else { throw LeftToJSONDecoder() }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                index += 2
                continue
            }
            guard byte >= 0x20 else { throw LeftToJSONDecoder() }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        let kind: Kind = escaped ? .escapedString : ascii ? .asciiString : .string
        nodes.append(Node(kind: kind, start: Int32(start), end: Int32(index), next: Int32(nodes.count + 1), count: 0))
        position = index + 1
    }

    private mutating func parseNumber(_ position: inout Int) throws(LeftToJSONDecoder) {
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
            return position - first
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw LeftToJSONDecoder() }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw LeftToJSONDecoder() }
            isInteger = false
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw LeftToJSONDecoder() }
            isInteger = false
        }
        nodes.append(Node(kind: isInteger ? .integer : .number, start: Int32(start), end: Int32(position), next: Int32(nodes.count + 1), count: 0))
    }
}

/// The decoder a value's conformance gets: one node of the text.
private struct IndexedValueDecoder: Decoder {
    let reader: IndexedJSON
    let node: Int

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard reader.nodes[node].kind == .object else { throw reader.refused() }
        return KeyedDecodingContainer(IndexedKeyedContainer<Key>(reader: reader, object: node))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard reader.nodes[node].kind == .array else { throw reader.refused() }
        return IndexedUnkeyedContainer(reader: reader, array: node)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        IndexedSingleValueContainer(reader: reader, node: node)
    }
}

private final class IndexedKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: IndexedJSON
    let object: Int
    /// The key node found last: the next key is usually the member after it.
    var cursor: Int

    init(reader: IndexedJSON, object: Int) {
        self.reader = reader
        self.object = object
        cursor = object + 1
    }

    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        var keys: [Key] = []
        var index = object + 1
        for _ in 0..<reader.nodes[object].count {
            if let name = try? reader.decodeString(index), let key = Key(stringValue: name) { keys.append(key) }
            index = Int(reader.nodes[index + 1].next)
        }
        return keys
    }

    /// The node of the value stored under `key`, if the object has one.
    func valueNode(_ key: Key) -> Int? {
        let nodes = reader.nodes, object = object
        let count = Int(nodes[object].count)
        guard count > 0, let text = reader.bytes.baseAddress else { return nil }
        // The cursor is read and written once: each access to a class's stored variable is checked at run time.
        let start = cursor
        var name = key.stringValue
        let found = name.withUTF8 { name -> Int? in
            let end = Int(nodes[object].next)
            var index = start
            for _ in 0..<count {
                if index >= end { index = object + 1 }
                let keyNode = nodes[index]
                if keyNode.kind == .asciiString || keyNode.kind == .string {
                    let length = Int(keyNode.end - keyNode.start)
                    if length == name.count, length == 0 || memcmp(text + Int(keyNode.start), name.baseAddress!, length) == 0 {
                        return index
                    }
                } else if let decoded = try? reader.decodeString(index), decoded.utf8.elementsEqual(name) {
                    return index
                }
                index = Int(nodes[index + 1].next)
            }
            return nil
        }
        guard let found else { return nil }
        cursor = found
        return found + 1
    }

    private func value(_ key: Key) throws -> Int {
        guard let node = valueNode(key) else { throw reader.refused() }
        return node
    }

    func contains(_ key: Key) -> Bool { valueNode(key) != nil }
    func decodeNil(forKey key: Key) throws -> Bool { reader.nodes[try value(key)].kind == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try reader.decodeBool(try value(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try reader.decodeString(try value(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try reader.decodeDouble(try value(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw reader.refused() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try reader.decodeInteger(try value(key), as: type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try reader.decodeInteger(try value(key), as: type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try reader.decodeInteger(try value(key), as: type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try reader.decodeInteger(try value(key), as: type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try reader.decodeInteger(try value(key), as: type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try reader.decodeInteger(try value(key), as: type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try reader.decodeInteger(try value(key), as: type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try reader.decodeInteger(try value(key), as: type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try reader.decodeInteger(try value(key), as: type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try reader.decodeInteger(try value(key), as: type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try reader.decode(type, node: try value(key)) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try IndexedValueDecoder(reader: reader, node: try value(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try IndexedValueDecoder(reader: reader, node: try value(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw reader.refused() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw reader.refused() }
}

private struct IndexedUnkeyedContainer: UnkeyedDecodingContainer {
    let reader: IndexedJSON
    let array: Int
    var currentIndex = 0
    var node: Int

    init(reader: IndexedJSON, array: Int) {
        self.reader = reader
        self.array = array
        node = array + 1
    }

    var codingPath: [any CodingKey] { [] }
    var count: Int? { Int(reader.nodes[array].count) }
    var isAtEnd: Bool { currentIndex >= count! }

    private mutating func next() throws -> Int {
        guard !isAtEnd else { throw reader.refused() }
        let current = node
        node = Int(reader.nodes[node].next)
        currentIndex += 1
        return current
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw reader.refused() }
        guard reader.nodes[node].kind == .null else { return false }
        _ = try next()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try reader.decodeBool(try next()) }
    mutating func decode(_ type: String.Type) throws -> String { try reader.decodeString(try next()) }
    mutating func decode(_ type: Double.Type) throws -> Double { try reader.decodeDouble(try next()) }
    mutating func decode(_ type: Float.Type) throws -> Float { throw reader.refused() }
    mutating func decode(_ type: Int.Type) throws -> Int { try reader.decodeInteger(try next(), as: type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try reader.decodeInteger(try next(), as: type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try reader.decodeInteger(try next(), as: type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try reader.decodeInteger(try next(), as: type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try reader.decodeInteger(try next(), as: type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try reader.decodeInteger(try next(), as: type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try reader.decodeInteger(try next(), as: type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try reader.decodeInteger(try next(), as: type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try reader.decodeInteger(try next(), as: type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try reader.decodeInteger(try next(), as: type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try reader.decode(type, node: try next()) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try IndexedValueDecoder(reader: reader, node: try next()).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try IndexedValueDecoder(reader: reader, node: try next()).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { throw reader.refused() }
}

private struct IndexedSingleValueContainer: SingleValueDecodingContainer {
    let reader: IndexedJSON
    let node: Int

    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { reader.nodes[node].kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try reader.decodeBool(node) }
    func decode(_ type: String.Type) throws -> String { try reader.decodeString(node) }
    func decode(_ type: Double.Type) throws -> Double { try reader.decodeDouble(node) }
    func decode(_ type: Float.Type) throws -> Float { throw reader.refused() }
    func decode(_ type: Int.Type) throws -> Int { try reader.decodeInteger(node, as: type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try reader.decodeInteger(node, as: type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try reader.decodeInteger(node, as: type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try reader.decodeInteger(node, as: type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try reader.decodeInteger(node, as: type) }
    func decode(_ type: UInt.Type) throws -> UInt { try reader.decodeInteger(node, as: type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try reader.decodeInteger(node, as: type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try reader.decodeInteger(node, as: type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try reader.decodeInteger(node, as: type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try reader.decodeInteger(node, as: type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try reader.decode(type, node: node) }
}
