import Foundation
import Testing

@testable import JSONCoding

/// The two spellings every stored row and every answer goes through: strings escaped for JSON, and decimal prices.
@Suite("JSON strings and decimal text")
struct JSONTextTests {
    @Test("A string is escaped wherever its quotes, backslashes and control characters fall, and reads back whole")
    func stringsEscapeAtEveryOffset() throws {
        let specials: [Character] = ["\"", "\\", "\n", "\u{0}", "\u{1F}", "\t", "é", "🎉", "\u{7F}", "~"]
        for length in 0...24 {
            for special in specials {
                for offset in 0...length {
                    var characters = Array(repeating: Character("a"), count: length)
                    characters.insert(special, at: offset)
                    if length > 10 { characters[length / 2] = special }
                    let string = String(characters)
                    var output: [UInt8] = []
                    output.appendJSONString(string)
                    #expect(output == Self.reference(string), "\(string.debugDescription)")
                    #expect(try JSONDecoder().decode(String.self, from: Data(output)) == string)
                }
            }
        }
    }

    @Test("Decimal text is what description writes, for prices, their products and quotients, and large and tiny values")
    func decimalTextIsDescription() {
        var values = ["0", "4.990", "0.0099", "-14.97", "1000", "1e3", "0.000001", "1e-30", "-0.5", "123456789.987654321",
                      "9223372036854775807", "18446744073709551615", "123456789012345678901234567890", "1e37", "-1e-39"]
            .map { Decimal(string: $0)! }
        for index in 0..<3_000 {
            let price = Decimal(string: "\(index % 1_000).\(index % 100)")!
            values += [price * Decimal(index % 13 + 1), price / Decimal(index % 7 + 1), price * 10, -price * Decimal(string: "0.001")!]
        }
        for value in values {
            #expect(value.plainText == value.description, "\(value.description)")
        }
        #expect(Decimal.nan.plainText == Decimal.nan.description)
    }

    /// The escaped string, one byte at a time.
    static func reference(_ string: String) -> [UInt8] {
        var output: [UInt8] = [UInt8(ascii: "\"")]
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): output += Array(#"\\"#.utf8)
            case 0x0A: output += Array(#"\n"#.utf8)
            case 0x0D: output += Array(#"\r"#.utf8)
            case 0x09: output += Array(#"\t"#.utf8)
            case 0x08: output += Array(#"\b"#.utf8)
            case 0x0C: output += Array(#"\f"#.utf8)
            case ..<0x20: output += Array(String(format: "\\u%04x", byte).utf8)
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
        return output
    }
}
