import Foundation
@testable import JSONCoding
import Testing

/// The one writer in its two forms: a stored row's (what `JSONEncoder` writes by default) and Apple's (dates as whole
/// milliseconds since 1970, UUIDs in lowercase), each read back by the one reader and by `JSONDecoder`.
@Suite("JSON writer")
struct JSONWriterTests {
    struct Payload: Codable, Equatable {
        var transactionId: String
        var purchaseDate: Date
        var appAccountToken: UUID?
        var price: Decimal
        var quantity: Int
        var revoked: Bool?
        var offers: [Offer]
    }

    struct Offer: Codable, Equatable {
        var id: String
        var period: String?
    }

    static let payload = Payload(
        transactionId: "2000000123", purchaseDate: Date(timeIntervalSince1970: 1_767_225_600.123),
        appAccountToken: UUID(uuidString: "7E3FB20B-4CDB-47CC-936D-99D65F608138"), price: Decimal(string: "4.99")!,
        quantity: 1, revoked: nil, offers: [Offer(id: "intro", period: "P1M"), Offer(id: "promo", period: nil)]
    )

    @Test("Apple's form: keys in declaration order, whole milliseconds, a lowercase UUID, absent optionals left out")
    func applesForm() throws {
        let text = try JSONWriter(dates: .millisecondsSince1970, uuids: .lowercase).encodeText(Self.payload)
        #expect(text == #"{"transactionId":"2000000123","purchaseDate":1767225600123,"appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138","price":4.99,"quantity":1,"offers":[{"id":"intro","period":"P1M"},{"id":"promo"}]}"#)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        let read = try decoder.decode(Payload.self, from: Data(text.utf8))
        #expect(read.purchaseDate == Date(timeIntervalSince1970: 1_767_225_600.123))
        #expect(try JSONReader(dates: .millisecondsSince1970).decode(Payload.self, from: text) == read)
    }

    @Test("A row's form reads back equal with JSONDecoder's defaults: seconds since 2001, UUID's own uppercase")
    func rowForm() throws {
        let text = try JSONWriter().encodeText(Self.payload)
        #expect(text.contains(#""appAccountToken":"7E3FB20B-4CDB-47CC-936D-99D65F608138""#))
        #expect(text.contains(#""purchaseDate":\#(Self.payload.purchaseDate.timeIntervalSinceReferenceDate)"#))
        #expect(try JSONDecoder().decode(Payload.self, from: Data(text.utf8)) == Self.payload)
        #expect(try JSONReader().decode(Payload.self, from: text) == Self.payload)
    }

    /// Writes its second member before its first, which one pass cannot follow.
    struct OutOfOrder: Encodable {
        enum CodingKeys: String, CodingKey { case outer, inner, date }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var outer = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .outer)
            try container.encode(Date(timeIntervalSince1970: 1), forKey: .date)
            try outer.encode("late", forKey: .inner)
        }
    }

    @Test("A conformance one pass cannot follow is written by JSONEncoder with the same date form, not mangled")
    func fallsBackToJSONEncoder() throws {
        let bytes = try JSONWriter(dates: .millisecondsSince1970).encode(OutOfOrder())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect((object["outer"] as? [String: String]) == ["inner": "late"])
        #expect((object["date"] as? NSNumber)?.intValue == 1_000)
    }

    @Test("A date JSON cannot hold is refused in either form, as JSONEncoder refuses it")
    func nonFiniteDates() {
        for dates in [JSONDateFormat.secondsSince2001, .millisecondsSince1970] {
            #expect(throws: EncodingError.self) { try JSONWriter(dates: dates).encode([Date(timeIntervalSince1970: .infinity)]) }
        }
    }
}
