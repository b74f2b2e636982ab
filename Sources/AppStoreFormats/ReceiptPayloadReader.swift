import Foundation

/// Reads receipt payload SETs and attribute values as BER (so Xcode's BER receipts and non-canonical encodings
/// decode too), in place with ``BERElement``.
enum ReceiptPayloadReader {
    /// The attributes of a payload or in-app SET, in encoded order.
    static func attributes(in data: Data) throws(FormatError) -> [ReceiptAttribute] {
        do {
            return try data.withUnsafeBytes { bytes in try attributes(in: bytes) }
        } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError.malformedData("\(error)")
        }
    }

    private static func attributes(in bytes: UnsafeRawBufferPointer) throws(FormatError) -> [ReceiptAttribute] {
        let root = try BERElement(in: bytes, at: 0, limit: bytes.count)
        guard root.isUniversal(BERElement.UniversalTag.set, constructed: true) else {
            throw FormatError.malformedData("The receipt payload is not an ASN.1 SET.")
        }
        guard root.end == bytes.count else {
            throw FormatError.malformedData("The receipt payload has \(bytes.count - root.end) bytes after its SET.")
        }
        var attributes: [ReceiptAttribute] = []
        for attribute in try root.children(in: bytes) {
            guard attribute.isUniversal(BERElement.UniversalTag.sequence, constructed: true) else {
                throw FormatError.malformedData("A receipt attribute is not a SEQUENCE.")
            }
            // type INTEGER, version INTEGER, value OCTET STRING; anything after them is ignored.
            var fieldOffset = attribute.contents.lowerBound
            func nextField() throws(FormatError) -> BERElement {
                guard fieldOffset < attribute.contents.upperBound else {
                    throw FormatError.malformedData("A receipt attribute has fewer than three fields.")
                }
                let field = try BERElement(in: bytes, at: fieldOffset, limit: attribute.contents.upperBound)
                fieldOffset = field.end
                return field
            }
            let typeField = try nextField()
            let versionField = try nextField()
            let valueField = try nextField()
            guard typeField.isUniversal(BERElement.UniversalTag.integer, constructed: false),
                versionField.isUniversal(BERElement.UniversalTag.integer, constructed: false),
                let type = typeField.integer(in: bytes).flatMap(Int.init(exactly:)),
                let version = versionField.integer(in: bytes).flatMap(Int.init(exactly:))
            else {
                throw FormatError.malformedData("A receipt attribute's type or version is not an INTEGER.")
            }
            guard valueField.isUniversal(BERElement.UniversalTag.octetString, constructed: false) else {
                throw FormatError.malformedData("Receipt attribute \(type)'s value is not a primitive OCTET STRING.")
            }
            let value = Data(UnsafeRawBufferPointer(rebasing: bytes[valueField.contents]))
            attributes.append(ReceiptAttribute(type: type, version: version, value: value))
        }
        return attributes
    }

    /// An attribute value interpreted as the DER TLV it usually wraps.
    struct Value {
        /// The string inside a UTF8String, IA5String or other string type, if that is what the value holds.
        let string: String?
        /// The INTEGER inside, if the value holds one that fits in 64 bits.
        let integer: Int64?

        init(_ data: Data) {
            (string, integer) = data.withUnsafeBytes { bytes -> (String?, Int64?) in
                guard let element = try? BERElement(in: bytes, at: 0, limit: bytes.count), element.end == bytes.count,
                    element.tagClass == 0, !element.isConstructed
                else { return (nil, nil) }
                if BERElement.UniversalTag.isString(element.tagNumber) {
                    return (String(decoding: UnsafeRawBufferPointer(rebasing: bytes[element.contents]), as: UTF8.self), nil)
                }
                if element.tagNumber == BERElement.UniversalTag.integer { return (nil, element.integer(in: bytes)) }
                return (nil, nil)
            }
        }

        /// The date string inside, parsed; nil when empty or not a date.
        var date: Date? { string.flatMap(ReceiptDate.date(from:)) }
    }
}
