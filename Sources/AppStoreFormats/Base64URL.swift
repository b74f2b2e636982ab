import Foundation

/// Base64 helpers for JWS (RFC 7515 base64url without padding) and for lenient standard base64.
enum Base64 {
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Decoding table accepting both alphabets (`+/` and `-_`); 0xFF marks an invalid byte.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for (index, byte) in standard.enumerated() { table[Int(byte)] = UInt8(index) }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// Encodes bytes as base64url without padding.
    static func urlEncoded<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            output.append(urlAlphabet[Int(b0 >> 2)])
            output.append(urlAlphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            if let b1 {
                output.append(urlAlphabet[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)])
                if let b2 { output.append(urlAlphabet[Int(b2 & 0x3F)]) }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64url or standard base64, with or without padding. Returns nil for any other character.
    static func decode<Text: Collection>(_ text: Text) -> [UInt8]? where Text.Element == UInt8 {
        if let decoded = text.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    /// The decoder's hot loop over contiguous bytes (JWS verification decodes every payload).
    private static func decode(buffer: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var end = buffer.count
        while end > 0, buffer[end - 1] == UInt8(ascii: "=") { end -= 1 }
        let remainder = end % 4
        guard remainder != 1 else { return nil }
        let quads = end / 4
        let outputCount = quads * 3 + (remainder == 0 ? 0 : remainder - 1)
        var valid = true
        let output = decodeTable.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: outputCount) { out, count in
                var input = 0
                var written = 0
                for _ in 0..<quads {
                    let a = table[Int(buffer[input])], b = table[Int(buffer[input + 1])]
                    let c = table[Int(buffer[input + 2])], d = table[Int(buffer[input + 3])]
                    if (a | b | c | d) & 0x80 != 0 { valid = false; break }
                    out[written] = a << 2 | b >> 4
                    out[written + 1] = b << 4 | c >> 2
                    out[written + 2] = c << 6 | d
                    input += 4
                    written += 3
                }
                if valid, remainder >= 2 {
                    let a = table[Int(buffer[input])], b = table[Int(buffer[input + 1])]
                    let c = remainder == 3 ? table[Int(buffer[input + 2])] : 0
                    if (a | b | c) & 0x80 != 0 {
                        valid = false
                    } else {
                        out[written] = a << 2 | b >> 4
                        if remainder == 3 { out[written + 1] = b << 4 | c >> 2 }
                        written += remainder - 1
                    }
                }
                count = valid ? written : 0
            }
        }
        return valid ? output : nil
    }

    /// Decodes base64 text that may contain whitespace or line breaks (as in files and PEM bodies).
    static func decodeIgnoringWhitespace(_ text: String) -> [UInt8]? {
        decode(text.utf8.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 })
    }
}
