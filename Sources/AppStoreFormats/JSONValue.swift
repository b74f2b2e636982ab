public import Foundation
import JSONCoding

/// A JSON document that keeps object keys in their original order.
///
/// Apple emits payload fields in a fixed order, and Foundation's `JSONEncoder` on Linux does not keep
/// declaration order (nor a stable one between processes). ``AppStoreJSON`` builds a `JSONValue` and writes it
/// deterministically; ``parse(_:)`` reads any JSON for display (`storekit jws decode`) without reordering it.
public indirect enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its JSON text so large integers survive untouched.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object whose members keep their order.
    case object([Member])

    /// One member of a JSON object.
    public struct Member: Hashable, Sendable {
        /// The member's key.
        public var key: String
        /// The member's value.
        public var value: JSONValue

        /// Creates a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value of the first member named `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The number as a `Double`, if this is a number.
    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    // MARK: Writing

    /// The compact UTF-8 JSON text (no insignificant whitespace, `/` not escaped).
    public var compactData: Data {
        var output = [UInt8]()
        write(to: &output, indent: nil, level: 0)
        return Data(output)
    }

    /// Pretty-printed JSON text with two-space indentation, keys in their original order.
    public var prettyPrinted: String {
        var output = [UInt8]()
        write(to: &output, indent: 2, level: 0)
        return String(decoding: output, as: UTF8.self)
    }

    func write(to output: inout [UInt8], indent: Int?, level: Int) {
        func newline(_ level: Int) {
            guard let indent else { return }
            output.append(0x0A)
            output.append(contentsOf: repeatElement(0x20, count: indent * level))
        }
        switch self {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text):
            output.append(contentsOf: text.utf8)
        case .string(let string):
            output.appendJSONString(string)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(level + 1)
                element.write(to: &output, indent: indent, level: level + 1)
            }
            if !elements.isEmpty { newline(level) }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(level + 1)
                output.appendJSONString(member.key)
                output.append(UInt8(ascii: ":"))
                if indent != nil { output.append(0x20) }
                member.value.write(to: &output, indent: indent, level: level + 1)
            }
            if !members.isEmpty { newline(level) }
            output.append(UInt8(ascii: "}"))
        }
    }

    // MARK: Parsing

    /// Parses JSON text, keeping object members in document order.
    public static func parse<Bytes: DataProtocol>(_ data: Bytes) throws -> JSONValue {
        var parser = Parser(bytes: Array(data))
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("trailing characters") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func failure(_ reason: String) -> FormatError {
            FormatError.malformedData("Invalid JSON at byte \(index): \(reason).")
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        static func isNumberByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                UInt8(ascii: "e"), UInt8(ascii: "E"):
                true
            default:
                false
            }
        }

        mutating func expect(_ byte: UInt8) throws {
            guard index < bytes.count, bytes[index] == byte else {
                throw failure("expected \(Character(Unicode.Scalar(byte)))")
            }
            index += 1
        }

        mutating func expect(_ literal: String) throws {
            let expected = Array(literal.utf8)
            guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
                throw failure("expected \(literal)")
            }
            index += expected.count
        }

        mutating func parseValue(depth: Int) throws -> JSONValue {
            guard depth < 512 else { throw failure("nesting too deep") }
            guard index < bytes.count else { throw failure("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [Member] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
                    let key = try parseString()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"))
                    skipWhitespace()
                    members.append(Member(key: key, value: try parseValue(depth: depth + 1)))
                    skipWhitespace()
                    guard index < bytes.count else { throw failure("unexpected end") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    try expect(UInt8(ascii: "}"))
                    return .object(members)
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [JSONValue] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                while true {
                    skipWhitespace()
                    elements.append(try parseValue(depth: depth + 1))
                    skipWhitespace()
                    guard index < bytes.count else { throw failure("unexpected end") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    try expect(UInt8(ascii: "]"))
                    return .array(elements)
                }
            case UInt8(ascii: "\""):
                return .string(try parseString())
            case UInt8(ascii: "t"):
                try expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expect("null")
                return .null
            default:
                let start = index
                while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                guard !text.isEmpty, Double(text) != nil else { throw failure("unexpected character") }
                return .number(text)
            }
        }

        mutating func parseString() throws -> String {
            index += 1
            // Fast path: no escapes before the closing quote.
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\") { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                let string = String(decoding: bytes[index..<end], as: UTF8.self)
                index = end + 1
                return string
            }
            var output = [UInt8]()
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: output, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw failure("unterminated escape") }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
                    case UInt8(ascii: "n"): output.append(0x0A)
                    case UInt8(ascii: "r"): output.append(0x0D)
                    case UInt8(ascii: "t"): output.append(0x09)
                    case UInt8(ascii: "b"): output.append(0x08)
                    case UInt8(ascii: "f"): output.append(0x0C)
                    case UInt8(ascii: "u"):
                        var scalar = try parseHex4()
                        if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count,
                            bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        {
                            index += 2
                            let low = try parseHex4()
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        output.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
                    default:
                        throw failure("invalid escape")
                    }
                default:
                    output.append(byte)
                }
            }
            throw failure("unterminated string")
        }

        mutating func parseHex4() throws -> UInt32 {
            guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { throw failure("invalid \\u escape") }
            index += 4
            return value
        }
    }
}
