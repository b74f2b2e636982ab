import Foundation

/// Base64 for JWS (RFC 7515 base64url without padding) and lenient standard base64, on Foundation's codec.
enum Base64 {
    /// Encodes bytes as base64url without padding.
    static func urlEncoded<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let standard = Data(bytes).base64EncodedData()
        var url = [UInt8]()
        url.reserveCapacity(standard.count)
        for byte in standard {
            switch byte {
            case UInt8(ascii: "+"): url.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): url.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: url.append(byte)
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    /// Decodes base64url or standard base64, with or without padding. Returns nil for any other character.
    static func decode<Text: Sequence>(_ text: Text) -> [UInt8]? where Text.Element == UInt8 {
        var standard = Data()
        standard.reserveCapacity(text.underestimatedCount + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            default: standard.append(byte)
            }
        }
        while standard.last == UInt8(ascii: "=") { standard.removeLast() }
        guard standard.count % 4 != 1 else { return nil }
        standard.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - standard.count % 4) % 4))
        return Data(base64Encoded: standard).map(Array.init)
    }

    /// Decodes base64 text that may contain whitespace or line breaks (as in files and PEM bodies).
    static func decodeIgnoringWhitespace(_ text: String) -> [UInt8]? {
        decode(text.utf8.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 })
    }
}
