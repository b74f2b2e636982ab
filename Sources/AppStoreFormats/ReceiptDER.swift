import Foundation
import SwiftASN1

/// The DER that receipts are made of, written with swift-asn1's serializer.
enum ReceiptDER {
    /// The bytes `body` serializes.
    ///
    /// Receipts hold only integers, octet strings, ASCII dates, UTF-8 strings, object identifiers and bytes that
    /// are already DER; swift-asn1 cannot fail to serialize those, so a failure here is a programming error.
    static func serialized(_ body: (inout DER.Serializer) throws -> Void) -> [UInt8] {
        var serializer = DER.Serializer()
        do {
            try body(&serializer)
        } catch {
            preconditionFailure("DER serialization of receipt data failed: \(error)")
        }
        return serializer.serializedBytes
    }

    /// A UTF8String.
    static func utf8String(_ value: String) -> [UInt8] {
        serialized { try $0.serialize(ASN1UTF8String(value)) }
    }

    /// An IA5String of ASCII text (receipt dates).
    static func ia5String(_ value: String) -> [UInt8] {
        serialized { try $0.serialize(try ASN1IA5String(contentBytes: ArraySlice(value.utf8))) }
    }

    /// An INTEGER.
    static func integer(_ value: Int64) -> [UInt8] {
        serialized { try $0.serialize(value) }
    }

    /// A receipt payload: a SET OF attributes, in the order DER requires.
    static func attributeSet(_ attributes: [ReceiptAttribute]) -> Data {
        Data(serialized { try $0.serializeSetOf(attributes.map(AttributeNode.init)) })
    }

    /// An AlgorithmIdentifier with NULL parameters.
    static func serializeAlgorithm(_ dotted: String, into serializer: inout DER.Serializer) throws {
        try serializer.appendConstructedNode(identifier: .sequence) { algorithm in
            try algorithm.serialize(try ASN1ObjectIdentifier(dotRepresentation: dotted))
            try algorithm.serialize(ASN1Null())
        }
    }

    /// `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
    private struct AttributeNode: DERSerializable {
        let attribute: ReceiptAttribute

        func serialize(into coder: inout DER.Serializer) throws {
            try coder.appendConstructedNode(identifier: .sequence) { sequence in
                try sequence.serialize(Int64(attribute.type))
                try sequence.serialize(Int64(attribute.version))
                try sequence.serialize(ASN1OctetString(contentBytes: ArraySlice(attribute.value)))
            }
        }
    }
}
