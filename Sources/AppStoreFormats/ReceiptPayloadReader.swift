import Foundation
import SwiftASN1

/// Reads receipt payload SETs and attribute values with SwiftASN1 in BER mode (so Xcode's BER receipts and
/// non-canonical encodings decode too).
enum ReceiptPayloadReader {
    /// The attributes of a payload or in-app SET, in encoded order.
    static func attributes(in data: Data) throws -> [ReceiptAttribute] {
        let root: ASN1Node
        do {
            root = try BER.parse(Array(data))
        } catch {
            throw FormatError.malformedData("The receipt payload is not ASN.1: \(error)")
        }
        guard root.identifier == .set, case .constructed(let children) = root.content else {
            throw FormatError.malformedData("The receipt payload is not an ASN.1 SET.")
        }
        var attributes: [ReceiptAttribute] = []
        for child in children {
            guard child.identifier == .sequence, case .constructed(let fields) = child.content else {
                throw FormatError.malformedData("A receipt attribute is not a SEQUENCE.")
            }
            var iterator = fields.makeIterator()
            guard let typeNode = iterator.next(), let versionNode = iterator.next(), let valueNode = iterator.next() else {
                throw FormatError.malformedData("A receipt attribute has fewer than three fields.")
            }
            do {
                let type = try Int(berEncoded: typeNode)
                let version = try Int(berEncoded: versionNode)
                let value = try ASN1OctetString(berEncoded: valueNode)
                attributes.append(ReceiptAttribute(type: type, version: version, value: Data(value.bytes)))
            } catch {
                throw FormatError.malformedData("A receipt attribute has malformed fields: \(error)")
            }
        }
        return attributes
    }

    /// An attribute value interpreted as the DER TLV it usually wraps.
    struct Value {
        let data: Data
        let node: ASN1Node?

        init(_ data: Data) {
            self.data = data
            self.node = try? BER.parse(Array(data))
        }

        /// The UTF8String or IA5String (or other string) inside, if any.
        var string: String? {
            guard let node, case .primitive(let bytes) = node.content,
                node.identifier.tagClass == .universal,
                [12, 22, 19, 26, 30].contains(node.identifier.tagNumber)
            else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// The INTEGER inside, if it fits in 64 bits.
        var integer: Int64? {
            guard let node, node.identifier == .integer else { return nil }
            return try? Int64(berEncoded: node)
        }

        /// The date string inside, parsed; nil when empty or not a date.
        var date: Date? { string.flatMap(ReceiptDate.date(from:)) }
    }
}
