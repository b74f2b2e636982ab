package import Foundation

/// The spelling of JSON's scalars, shared by every writer in the package: the one-pass encoder (``JSONWriter``), the
/// objects records and signed payloads write field by field, and `JSONValue`. One spelling, so each value is written
/// the same way, byte for byte, whichever writer writes it.
extension [UInt8] {
    /// Appends an integer's digits.
    package mutating func appendJSONInteger<T: BinaryInteger>(_ value: T) {
        if let small = Int64(exactly: value) {
            if small < 0 {
                append(UInt8(ascii: "-"))
                appendDigits(small.magnitude)
            } else {
                appendDigits(UInt64(small))
            }
        } else if let large = UInt64(exactly: value) {
            appendDigits(large)
        } else {
            append(contentsOf: String(value).utf8)
        }
    }

    private mutating func appendDigits(_ value: UInt64) {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var index = self.count - 1
        rest = value
        repeat {
            self[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            index -= 1
        } while rest > 0
    }

    /// Appends a finite number; returns `false`, appending nothing, for one JSON cannot hold (`JSONEncoder` throws).
    package mutating func appendJSONNumber(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        if value.rounded(.towardZero) == value, value.magnitude < 0x1p53, !(value == 0 && value.sign == .minus) {
            // Whole seconds, prices and counts: the integer digits, which read back as the same Double.
            appendJSONInteger(Int64(value))
        } else {
            append(contentsOf: value.description.utf8)
        }
        return true
    }

    /// Appends a decimal as a JSON number, as `Decimal`'s own conformance writes it; returns `false`, appending
    /// nothing, for NaN.
    package mutating func appendJSONNumber(_ value: Decimal) -> Bool {
        guard !value.isNaN else { return false }
        append(contentsOf: value.plainText.utf8)
        return true
    }

    /// Appends `string` in quotes, escaping what JSON requires: quotes, backslashes and control characters.
    package mutating func appendJSONString(_ string: String) {
        append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return }
            // Runs without escapes are copied whole: most strings have none, and every signed payload's keys and
            // values come through here, and every answer's JWS (kilobytes of Base64). Eight bytes are checked at a
            // time; only a word that may hold a byte to escape is looked at byte by byte.
            var runStart = 0
            var index = 0
            while index + 8 <= utf8.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if Self.mayNeedJSONEscape(word) {
                    for byteIndex in index..<(index + 8) where Self.needsJSONEscape(base[byteIndex]) {
                        append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<byteIndex]))
                        appendJSONEscape(for: base[byteIndex])
                        runStart = byteIndex + 1
                    }
                }
                index += 8
            }
            for byteIndex in index..<utf8.count where Self.needsJSONEscape(base[byteIndex]) {
                append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<byteIndex]))
                appendJSONEscape(for: base[byteIndex])
                runStart = byteIndex + 1
            }
            append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        append(UInt8(ascii: "\""))
    }

    /// Whether a byte is a quote, a backslash or a control character.
    @inline(__always)
    private static func needsJSONEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether any of the eight bytes of `word` is one `needsJSONEscape` accepts: exact, in either byte order.
    ///
    /// `(x - 0x01…01 × n) & ~x & 0x80…80` is non-zero exactly when some byte of `x` is below `n` (for `n` ≤ 128); a
    /// byte equal to `c` is a zero byte of `x ^ (0x01…01 × c)`.
    @inline(__always)
    private static func mayNeedJSONEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        return (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highBits != 0
    }

    /// Appends the escape sequence of a quote, a backslash or a control character.
    private mutating func appendJSONEscape(for byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): append(contentsOf: [0x5C, 0x5C])
        case 0x0A: append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x08: append(contentsOf: [0x5C, UInt8(ascii: "b")])
        case 0x0C: append(contentsOf: [0x5C, UInt8(ascii: "f")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
