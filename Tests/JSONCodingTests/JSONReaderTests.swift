import Foundation
@testable import JSONCoding
import Testing

/// The one fast reader answers as `JSONDecoder` answers: the same values, the same refusals with the same coding
/// paths, for stored rows (dates in seconds since 2001) and for Apple's payloads (dates in milliseconds since 1970).
@Suite("JSON reader")
struct JSONReaderTests {
    struct Sample: Codable, Equatable {
        var id: UInt64
        var name: String
        var kind: Kind
        var date: Date
        var price: Decimal?
        var token: UUID?
        var items: [Item]
    }

    struct Item: Codable, Equatable {
        var quantity: Int
    }

    enum Kind: String, Codable {
        case purchased = "PURCHASED"
        case gift = "GIFT"
    }

    @Test("It reads escapes, whitespace and what JSONEncoder wrote, and refuses what JSONDecoder refuses")
    func readsAnyJSON() throws {
        let reader = JSONReader()
        #expect(try reader.decode(String.self, from: #" "a\/b\"c\\d\n\t\r\b\f\u00e9\ud83c\udf89" "#) == "a/b\"c\\d\n\t\r\u{8}\u{c}é🎉")
        #expect(try reader.decode([String: [Int]].self, from: #" { "a" : [ 1 , -2 ] , "b\u0063" : [ ] } "#) == ["a": [1, -2], "bc": []])
        #expect(try reader.decode([Double].self, from: "[-0, 1e3, 2.5E-3, 10]") == [-0.0, 1000, 0.0025, 10])
        #expect(try reader.decode(Double.self, from: "-0").sign == .minus)
        #expect(try reader.decode([Int?].self, from: "[null,1]") == [nil, 1])
        #expect(try reader.decode([Float].self, from: "[0.1]") == [0.1])
        for text in ["", "{", #"{"a":1,}"#, "[01]", "tru", #""\x""#, "[1] 2", #"{"a" 1}"#, #"{"a":1}"#] {
            // Whatever it does not read itself, JSONDecoder reads: the same value, or the same refusal.
            let reference = try? JSONDecoder().decode([String: Int].self, from: Data(text.utf8))
            #expect((try? reader.decode([String: Int].self, from: text)) == reference, "\(text)")
        }
        #expect(throws: DecodingError.self) { try reader.decode([String: Int].self, from: "{") }
        #expect(throws: DecodingError.self) { try reader.decode([Int8].self, from: "[128]") }
        #expect(throws: DecodingError.self) { try reader.decode(Item.self, from: "{}") }
        #expect(throws: DecodingError.self) { try reader.decode(Kind.self, from: #""gift""#) }
    }

    @Test("Dates read as seconds since 2001 by default and as milliseconds since 1970, integer or fractional, for payloads")
    func dates() throws {
        let value = Sample(
            id: 2_000_000_001, name: "Pro", kind: .purchased, date: Date(timeIntervalSince1970: 1_700_000_000.5),
            price: Decimal(string: "4.99"), token: UUID(), items: [Item(quantity: 2)]
        )
        let rowText = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        #expect(try JSONReader().decode(Sample.self, from: rowText) == value)

        let payload = #"{"id":2000000001,"name":"Pro","kind":"PURCHASED","date":1700000000500,"items":[{"quantity":2}],"token":null}"#
        let read = try JSONReader(dates: .millisecondsSince1970).decode(Sample.self, from: Data(payload.utf8))
        #expect(read.date == Date(timeIntervalSince1970: 1_700_000_000.5))
        #expect(read.token == nil && read.price == nil)
        let fractional = try JSONReader(dates: .millisecondsSince1970).decode(Date.self, from: "1700000000500.25")
        #expect(fractional == Date(timeIntervalSince1970: 1_700_000_000.50025))
    }

    @Test("A value that does not read says where, with JSONDecoder's coding path")
    func errorsCarryTheCodingPath() throws {
        let payload = #"{"id":1,"name":"Pro","kind":"PURCHASED","date":0,"items":[{"quantity":"two"}]}"#
        let error = try #require(throws: DecodingError.self) {
            try JSONReader(dates: .millisecondsSince1970).decode(Sample.self, from: payload)
        }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["items", "Index 0", "quantity"])

        let unknownKind = try #require(throws: DecodingError.self) {
            try JSONReader().decode(Sample.self, from: #"{"id":1,"name":"Pro","kind":"SOLD","date":0,"items":[]}"#)
        }
        guard case .dataCorrupted(let context) = unknownKind else {
            Issue.record("\(unknownKind)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["kind"])
    }

    @Test("Bytes that are not UTF-8 are refused as JSONDecoder refuses them; valid bytes read as text does")
    func bytes() throws {
        let reader = JSONReader()
        #expect(try reader.decode([String].self, from: Array(#"["é", "a"]"#.utf8)) == ["é", "a"])
        let invalid: [UInt8] = Array(#"[""#.utf8) + [0xC3, 0x28] + Array(#""]"#.utf8)
        #expect(throws: DecodingError.self) { try reader.decode([String].self, from: invalid) }
    }
}
