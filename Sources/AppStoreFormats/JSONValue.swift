public import Foundation

/// A JSON document whose objects keep their members in a chosen order.
///
/// Apple emits payload fields in a fixed order, and Foundation's `JSONEncoder` on Linux does not keep
/// declaration order (nor a stable one between processes: it reorders keys whose values use an encoding
/// strategy, such as dates). ``AppStoreJSON`` builds a `JSONValue` in declaration order and writes it
/// deterministically; ``parse(_:)`` reads any JSON for display (`storekit jws decode`).
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
            Self.writeString(string, to: &output)
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
                Self.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                if indent != nil { output.append(0x20) }
                member.value.write(to: &output, indent: indent, level: level + 1)
            }
            if !members.isEmpty { newline(level) }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x08: output.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    // MARK: Parsing

    /// Parses JSON text with Foundation's `JSONDecoder`. Object members come out sorted by key (JSON objects are
    /// unordered, and Foundation does not report the document's order); numbers keep their value as text.
    public static func parse<Bytes: DataProtocol>(_ data: Bytes) throws -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(data))
        } catch {
            throw FormatError.malformedData("The text is not valid JSON: \(error)")
        }
    }
}

extension JSONValue: Decodable {
    /// Reads any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .number(String(integer))
        } else if let number = try? container.decode(Double.self) {
            self = .number("\(number)")
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else {
            let members = try container.decode([String: JSONValue].self)
            self = .object(members.sorted { $0.key < $1.key }.map { Member(key: $0.key, value: $0.value) })
        }
    }
}
