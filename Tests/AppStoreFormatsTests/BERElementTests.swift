import Foundation
import SwiftASN1
import Testing

@testable import AppStoreFormats

@Suite("Reading BER in place")
struct BERElementTests {
    func element(_ bytes: [UInt8]) throws -> BERElement {
        try bytes.withUnsafeBytes { try BERElement(in: $0, at: 0, limit: $0.count) }
    }

    func failure(_ bytes: [UInt8]) -> String? {
        do {
            _ = try element(bytes)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func shortAndLongLengths() throws {
        let short = try element([0x04, 0x02, 0xAA, 0xBB])
        #expect(short.isUniversal(BERElement.UniversalTag.octetString, constructed: false))
        #expect(short.contents == 2..<4 && short.end == 4 && short.encoded == 0..<4)

        // BER allows a long form where the short one would do.
        let long = try element([0x04, 0x82, 0x00, 0x02, 0xAA, 0xBB, 0xFF])
        #expect(long.contents == 4..<6 && long.end == 6)
    }

    @Test func highTagNumbersAndClasses() throws {
        // [APPLICATION 200] constructed, empty: 0x7F 0x81 0x48 0x00.
        let application = try element([0x7F, 0x81, 0x48, 0x00])
        #expect(application.tagClass == 1 && application.isConstructed && application.tagNumber == 200)
        let context = try element([0xA0, 0x00])
        #expect(context.tagClass == 2 && context.tagNumber == 0)
    }

    @Test func indefiniteLengthsEndAtTheirOwnEndOfContents() throws {
        // SEQUENCE (indefinite) { SEQUENCE (indefinite) { INTEGER 5 } , NULL }, then a trailing byte.
        let bytes: [UInt8] = [0x30, 0x80, 0x30, 0x80, 0x02, 0x01, 0x05, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0xFF]
        let outer = try element(bytes)
        #expect(outer.contents == 2..<11)
        #expect(outer.end == 13)
        let inner = try bytes.withUnsafeBytes { try BERElement(in: $0, at: 2, limit: 11) }
        #expect(inner.contents == 4..<7 && inner.end == 9)
    }

    @Test func malformedInputIsRefusedWithItsOffset() {
        #expect(failure([]) == "The BER element at byte 0 ends inside an element's header.")
        #expect(failure([0x04]) == "The BER element at byte 1 ends inside an element's header.")
        #expect(failure([0x04, 0x05, 0x01]) == "The BER element at byte 0 claims 5 bytes of contents, but 1 remain.")
        #expect(failure([0x04, 0x80, 0x00, 0x00]) == "The BER element at byte 0 gives a primitive element an indefinite length.")
        #expect(failure([0x30, 0x80, 0x02, 0x01, 0x05]) == "The BER element at byte 0 has no end-of-contents for its indefinite length.")
        #expect(failure([0x04, 0x85, 1, 0, 0, 0, 0]) == "The BER element at byte 0 has a length of 5 bytes.")
        // Deep nesting of indefinite lengths cannot exhaust the stack.
        let deep = Array(repeating: [UInt8]([0x30, 0x80]), count: 10_000).flatMap { $0 }
        #expect(failure(deep) == "The BER element at byte 66 nests deeper than 32 levels.")
    }

    @Test func integersAreSignedBigEndianUpToSixtyFourBits() throws {
        func integer(_ contents: [UInt8]) throws -> Int64? {
            let bytes = [0x02, UInt8(contents.count)] + contents
            return try bytes.withUnsafeBytes { buffer in
                try BERElement(in: buffer, at: 0, limit: buffer.count).integer(in: buffer)
            }
        }
        #expect(try integer([0x05]) == 5)
        #expect(try integer([0x00, 0x80]) == 128)
        #expect(try integer([0xFF]) == -1)
        #expect(try integer([0xFF, 0x7F]) == -129)
        #expect(try integer([0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == Int64.max)
        #expect(try integer([0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2A]) == 42)
        #expect(try integer([0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]) == nil)
        #expect(try integer([]) == nil)
    }

    /// The in-place reader finds exactly the attributes swift-asn1's tree does, in every receipt we have: Apple's
    /// DER receipts, Xcode's BER ones and ours.
    @Test(arguments: ["receipt-production-2024.b64", "receipt-sandbox-g5-2025.b64", "receipt-xcode-with-transaction.b64", "receipt-xcode-empty.b64", nil])
    func attributesMatchSwiftASN1(vector: String?) throws {
        let receiptData = try vector.map(Fixtures.base64Vector) ?? ReceiptSigner(certificateAuthority: TestAuthority.shared).sign(Samples.receipt())
        let payload = try ReceiptEnvelope(bytes: ReceiptEnvelope.bytes(of: receiptData)).payload
        let attributes = try ReceiptPayloadReader.attributes(in: payload)
        #expect(attributes == (try Self.attributesBySwiftASN1(payload)))
        for purchase in attributes where purchase.type == 17 {
            #expect(try ReceiptPayloadReader.attributes(in: purchase.value) == (try Self.attributesBySwiftASN1(purchase.value)))
        }
    }

    static func attributesBySwiftASN1(_ payload: Data) throws -> [ReceiptAttribute] {
        guard case .constructed(let children) = try BER.parse(Array(payload)).content else { return [] }
        return try children.map { child in
            guard case .constructed(let fields) = child.content else { throw FormatError.malformedData }
            let values = Array(fields)
            return ReceiptAttribute(
                type: try Int(berEncoded: values[0]), version: try Int(berEncoded: values[1]),
                value: Data(try ASN1OctetString(berEncoded: values[2]).bytes)
            )
        }
    }
}
