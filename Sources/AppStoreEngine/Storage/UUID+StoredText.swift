package import Foundation

extension UUID {
    /// The text `uuidString` gives — 36 characters, upper-case hexadecimal in groups of 8, 4, 4, 4 and 12 — written in
    /// one pass: the storage writes identifiers this way, and Foundation's getter costs several thousand instructions
    /// on Linux, twice per purchase (a notification's row and its body).
    package var storedText: String {
        String(unsafeUninitializedCapacity: 36) { text in
            withUnsafeBytes(of: uuid) { bytes in
                var written = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    text[written] = Self.hexDigit(byte >> 4)
                    text[written + 1] = Self.hexDigit(byte & 0x0F)
                    written += 2
                }
                return written
            }
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
