/// A strict JSON parser for `.storekit` files.
///
/// Why not `JSONSerialization` or `JSONDecoder`: on Linux (swift-corelibs-foundation) their syntax errors
/// carry at best a byte offset buried in a debug string, sometimes none, and the wording differs between
/// toolchains, so they cannot give the line and column our error messages promise. They also turn every
/// number into a binary `Double`/`NSNumber` (so `804965276.43550706` would not be written back verbatim),
/// blur `true` and `1`, and silently keep the last of two duplicate keys. Parsing ourselves costs little
/// (the grammar is small, RFC 8259) and gives exact positions, verbatim numbers and duplicate-key detection.
struct JSONParser {
    /// A syntax error at a byte offset of the input; ``position(ofOffset:)`` turns it into a line and column.
    struct SyntaxError: Error {
        var offset: Int
        var message: String
        var fix: String
    }

    private let bytes: [UInt8]
    private var index: Int
    private var depth = 0
    private static let maximumDepth = 512

    init(bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte order mark is tolerated (editors add one); Xcode never writes it.
        index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// Parses the whole input as one JSON value followed only by whitespace.
    mutating func parseDocument() throws(SyntaxError) -> ConfigurationJSON {
        skipWhitespace()
        guard index < bytes.count else {
            throw SyntaxError(
                offset: index, message: "The file is empty.",
                fix: "A .storekit file is a JSON object; create one in Xcode (File > New > File > StoreKit Configuration File).")
        }
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw SyntaxError(
                offset: index, message: "Unexpected \(describeByte(at: index)) after the end of the top-level value.",
                fix: "Remove everything after the final '}' (a file holds exactly one JSON object).")
        }
        return value
    }

    /// The 1-based line and column of a byte offset. Columns count characters (Unicode scalars), not bytes.
    func position(ofOffset offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }

    // MARK: - Values

    private mutating func parseValue() throws(SyntaxError) -> ConfigurationJSON {
        guard index < bytes.count else { throw unexpectedEnd() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case UInt8(ascii: "t"): try parseLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try parseLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try parseLiteral("null"); return .null
        case UInt8(ascii: "'"):
            throw SyntaxError(
                offset: index, message: "Strings must use double quotes, found a single quote.",
                fix: "Replace the single quotes with double quotes (\").")
        case UInt8(ascii: "/"):
            throw SyntaxError(
                offset: index, message: "JSON has no comments.", fix: "Remove the comment.")
        case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","):
            throw SyntaxError(
                offset: index, message: "Expected a value, found \(describeByte(at: index)).",
                fix: "Write a value here (a string, number, true, false, null, object or array), or remove the extra comma.")
        default:
            throw SyntaxError(
                offset: index, message: "Expected a value, found \(describeByte(at: index)).",
                fix: "Strings need double quotes; the only bare words are true, false and null.")
        }
    }

    private mutating func parseObject() throws(SyntaxError) -> ConfigurationJSON {
        let start = index
        try enterContainer()
        index += 1  // {
        var members: [String: ConfigurationJSON] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw unclosed("object", "}", openedAt: start) }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if bytes[index] == UInt8(ascii: "/") {
                    throw SyntaxError(offset: index, message: "JSON has no comments.", fix: "Remove the comment.")
                }
                if bytes[index] == UInt8(ascii: "}") {
                    throw SyntaxError(
                        offset: index, message: "Trailing comma before '}'.",
                        fix: "Remove the comma after the object's last member.")
                }
                throw SyntaxError(
                    offset: index, message: "Expected a key in double quotes, found \(describeByte(at: index)).",
                    fix: "Write each member as \"key\" : value, with the key in double quotes.")
            }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count else { throw unclosed("object", "}", openedAt: start) }
            guard bytes[index] == UInt8(ascii: ":") else {
                throw SyntaxError(
                    offset: index, message: "Expected ':' after the key \"\(key)\", found \(describeByte(at: index)).",
                    fix: "Write the member as \"\(key)\" : value.")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            if members[key] != nil {
                throw SyntaxError(
                    offset: keyOffset, message: "The key \"\(key)\" appears twice in the same object.",
                    fix: "Keep one \"\(key)\" member and delete the other.")
            }
            members[key] = value
            skipWhitespace()
            guard index < bytes.count else { throw unclosed("object", "}", openedAt: start) }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default:
                throw SyntaxError(
                    offset: index,
                    message: "Expected ',' or '}' after the value of \"\(key)\", found \(describeByte(at: index)).",
                    fix: "Add a comma between members, or close the object with '}'.")
            }
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> ConfigurationJSON {
        let start = index
        try enterContainer()
        index += 1  // [
        var elements: [ConfigurationJSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw unclosed("array", "]", openedAt: start) }
            if bytes[index] == UInt8(ascii: "]") {
                throw SyntaxError(
                    offset: index, message: "Trailing comma before ']'.",
                    fix: "Remove the comma after the array's last element.")
            }
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw unclosed("array", "]", openedAt: start) }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default:
                throw SyntaxError(
                    offset: index, message: "Expected ',' or ']' after an array element, found \(describeByte(at: index)).",
                    fix: "Add a comma between elements, or close the array with ']'.")
            }
        }
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        let start = index
        index += 1  // opening quote
        var buffer: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw SyntaxError(
                    offset: start, message: "This string is never closed.", fix: "Add the closing double quote (\").")
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw SyntaxError(
                        offset: start, message: "This string is not valid UTF-8.",
                        fix: "Save the file as UTF-8 (Xcode always does).")
                }
                return text
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw SyntaxError(
                    offset: start, message: "This string is not closed before the end of the line.",
                    fix: "Add the closing double quote, or write the line break as \\n.")
            case 0..<0x20:
                throw SyntaxError(
                    offset: index, message: "A control character (U+00\(hex2(byte))) appears inside a string.",
                    fix: "Escape it (for example \\t for a tab) or remove it.")
            default:
                buffer.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(SyntaxError) {
        let escapeOffset = index
        index += 1
        guard index < bytes.count else { throw unexpectedEnd() }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeOffset: escapeOffset)
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw badSurrogate(at: escapeOffset) }
                index += 2
                let low = try parseHex4(escapeOffset: escapeOffset)
                guard (0xDC00...0xDFFF).contains(low) else { throw badSurrogate(at: escapeOffset) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw badSurrogate(at: escapeOffset)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw badSurrogate(at: escapeOffset) }
            buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw SyntaxError(
                offset: escapeOffset, message: "\\\(describeRaw(byte)) is not a JSON escape.",
                fix: "Use one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX, or write the backslash itself as \\\\.")
        }
    }

    private mutating func parseHex4(escapeOffset: Int) throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexValue(bytes[index]) else {
                throw SyntaxError(
                    offset: escapeOffset, message: "\\u must be followed by four hexadecimal digits.",
                    fix: "Write the character as \\uXXXX (for example \\u00E9), or type it directly.")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(SyntaxError) -> String {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        if integerDigits == 0 { throw badNumber(start) }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") {
            throw SyntaxError(
                offset: start, message: "Numbers cannot have leading zeros.",
                fix: "Remove the leading zeros (write 7, not 07).")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { throw badNumber(start) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            if digits() == 0 { throw badNumber(start) }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func parseLiteral(_ literal: StaticString) throws(SyntaxError) {
        let expected = Array(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw SyntaxError(
                offset: index, message: "Expected a value, found \(describeWord(at: index)).",
                fix: "Strings need double quotes; the only bare words are true, false and null (lower case).")
        }
        index += expected.count
    }

    // MARK: - Helpers

    private mutating func enterContainer() throws(SyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw SyntaxError(
                offset: index, message: "Objects and arrays are nested more than \(Self.maximumDepth) deep.",
                fix: "A .storekit file nests about 6 levels; check for a runaway generator.")
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    private func unexpectedEnd() -> SyntaxError {
        SyntaxError(
            offset: bytes.count, message: "The file ends before the JSON is complete.",
            fix: "Close every open '{' and '[' (the file may have been cut short).")
    }

    private func unclosed(_ kind: String, _ closer: String, openedAt offset: Int) -> SyntaxError {
        let (line, column) = position(ofOffset: offset)
        return SyntaxError(
            offset: bytes.count,
            message: "The file ends inside the \(kind) opened at line \(line), column \(column).",
            fix: "Close it with '\(closer)' (the file may have been cut short).")
    }

    private func badNumber(_ offset: Int) -> SyntaxError {
        SyntaxError(
            offset: offset, message: "Malformed number \(describeWord(at: offset)).",
            fix: "Write numbers like 3, -1 or 0.5 (digits on both sides of the point, no '+' sign).")
    }

    private func badSurrogate(at offset: Int) -> SyntaxError {
        SyntaxError(
            offset: offset, message: "This \\u escape is a lone UTF-16 surrogate.",
            fix: "Write the character directly in UTF-8, or as a high+low surrogate pair.")
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private func hex2(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    private func describeRaw(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "U+00\(hex2(byte))"
    }

    /// `'x'` for a printable ASCII byte, otherwise a description of the character.
    private func describeByte(at offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the file" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(String(UnicodeScalar(byte)))'" }
        if byte < 0x80 { return "U+00\(hex2(byte))" }
        return "a non-ASCII character"
    }

    /// The run of letters/digits starting at an offset, quoted (for bare words such as `True` or `yes`).
    private func describeWord(at offset: Int) -> String {
        var end = offset
        while end < bytes.count, end - offset < 20 {
            let byte = bytes[end]
            let isWordByte =
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte >= 0x80
            if !isWordByte { break }
            end += 1
        }
        if end == offset { return describeByte(at: offset) }
        return "'\(String(decoding: bytes[offset..<end], as: UTF8.self))'"
    }
}
