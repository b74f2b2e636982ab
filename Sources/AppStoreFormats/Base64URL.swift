import Foundation

/// Base64 for JWS (RFC 7515 base64url without padding) and lenient standard base64, on Foundation's codec.
enum Base64 {
    /// Encodes bytes as base64url without padding.
    static func urlEncoded<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // Rewritten from Foundation's standard alphabet over the raw buffer: every signed JWS encodes its payload
        // here, and iterating `Data` byte by byte cost a fifth of `bench jws-sign`.
        Data(bytes).base64EncodedData().withUnsafeBytes { standard in
            var length = standard.count
            while length > 0, standard[length - 1] == UInt8(ascii: "=") { length -= 1 }
            return String(unsafeUninitializedCapacity: length) { url in
                for offset in 0..<length {
                    url[offset] = switch standard[offset] {
                    case UInt8(ascii: "+"): UInt8(ascii: "-")
                    case UInt8(ascii: "/"): UInt8(ascii: "_")
                    case let byte: byte
                    }
                }
                return length
            }
        }
    }

    /// Decodes base64url or standard base64, with or without padding. Returns nil for any other character.
    static func decode<Text: Collection>(_ text: Text) -> [UInt8]? where Text.Element == UInt8 {
        var end = text.count
        while end > 0, text[text.index(text.startIndex, offsetBy: end - 1)] == UInt8(ascii: "=") { end -= 1 }
        guard end % 4 != 1 else { return nil }
        // Rewritten into the standard alphabet with its padding, in place: JWS verification decodes every
        // payload, and a byte-by-byte append to `Data` costs ten times Foundation's decoding itself.
        guard end > 0 else { return [] }
        let padded = (end + 3) / 4 * 4
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: padded) { output in
            for (offset, byte) in text.prefix(end).enumerated() {
                output[offset] = switch byte {
                case UInt8(ascii: "-"): UInt8(ascii: "+")
                case UInt8(ascii: "_"): UInt8(ascii: "/")
                default: byte
                }
            }
            for offset in end..<padded { output[offset] = UInt8(ascii: "=") }
            let standard = Data(bytesNoCopy: output.baseAddress!, count: padded, deallocator: .none)
            return Data(base64Encoded: standard).map(Array.init)
        }
    }

    /// Decodes base64 text that may contain whitespace or line breaks (as in files and PEM bodies).
    static func decodeIgnoringWhitespace(_ text: String) -> [UInt8]? {
        decode(text.utf8.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 })
    }
}
