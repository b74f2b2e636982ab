/// A minimal DER writer for the structures this module emits byte for byte (receipt payloads and the
/// PKCS#7 envelope). SwiftASN1 parses everything; writing by hand keeps the exact layout Apple uses and
/// lets `ReceiptSigner` splice precomputed certificate bytes without re-serialising them.
enum DERWriter {
    static let sequenceTag: UInt8 = 0x30
    static let setTag: UInt8 = 0x31
    static let integerTag: UInt8 = 0x02
    static let octetStringTag: UInt8 = 0x04
    static let nullTag: UInt8 = 0x05
    static let oidTag: UInt8 = 0x06
    static let utf8StringTag: UInt8 = 0x0C
    static let ia5StringTag: UInt8 = 0x16

    /// Appends a definite DER length.
    static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        if length < 0x80 {
            bytes.append(UInt8(length))
            return
        }
        var value = length
        var lengthBytes = [UInt8]()
        while value > 0 {
            lengthBytes.append(UInt8(value & 0xFF))
            value >>= 8
        }
        bytes.append(0x80 | UInt8(lengthBytes.count))
        bytes.append(contentsOf: lengthBytes.reversed())
    }

    /// A complete TLV with the given tag and contents.
    static func tlv<Contents: Collection>(_ tag: UInt8, _ contents: Contents) -> [UInt8] where Contents.Element == UInt8 {
        var bytes = [UInt8]()
        bytes.reserveCapacity(contents.count + 6)
        bytes.append(tag)
        appendLength(contents.count, to: &bytes)
        bytes.append(contentsOf: contents)
        return bytes
    }

    /// A TLV whose contents are the concatenation of `parts`.
    static func tlv(_ tag: UInt8, parts: [[UInt8]]) -> [UInt8] {
        let total = parts.reduce(0) { $0 + $1.count }
        var bytes = [UInt8]()
        bytes.reserveCapacity(total + 6)
        bytes.append(tag)
        appendLength(total, to: &bytes)
        for part in parts { bytes.append(contentsOf: part) }
        return bytes
    }

    /// The minimal two's-complement contents of an INTEGER.
    static func integerContents(_ value: Int64) -> [UInt8] {
        var bytes = withUnsafeBytes(of: value.bigEndian) { Array($0) }
        while bytes.count > 1,
            (bytes[0] == 0x00 && bytes[1] & 0x80 == 0) || (bytes[0] == 0xFF && bytes[1] & 0x80 != 0)
        {
            bytes.removeFirst()
        }
        return bytes
    }

    static func integer(_ value: Int64) -> [UInt8] { tlv(integerTag, integerContents(value)) }
    static func utf8String(_ value: String) -> [UInt8] { tlv(utf8StringTag, Array(value.utf8)) }
    static func ia5String(_ value: String) -> [UInt8] { tlv(ia5StringTag, Array(value.utf8)) }
    static func octetString<Contents: Collection>(_ contents: Contents) -> [UInt8] where Contents.Element == UInt8 {
        tlv(octetStringTag, contents)
    }

    /// A SET OF in DER order: elements sorted by their encodings, compared as octet strings.
    static func setOf(_ elements: [[UInt8]]) -> [UInt8] {
        tlv(setTag, parts: elements.sorted { $0.lexicographicallyPrecedes($1) })
    }

    /// Encodes a dotted object identifier such as "1.2.840.113549.1.7.2".
    static func objectIdentifier(_ dotted: String) -> [UInt8] {
        let arcs = dotted.split(separator: ".").map { UInt64($0)! }
        var contents = [UInt8]()
        func appendBase128(_ value: UInt64) {
            var chunks = [UInt8(value & 0x7F)]
            var rest = value >> 7
            while rest > 0 {
                chunks.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            contents.append(contentsOf: chunks.reversed())
        }
        appendBase128(arcs[0] * 40 + arcs[1])
        for arc in arcs.dropFirst(2) { appendBase128(arc) }
        return tlv(oidTag, contents)
    }

    /// An AlgorithmIdentifier with NULL parameters.
    static func algorithmIdentifier(_ dotted: String) -> [UInt8] {
        tlv(sequenceTag, parts: [objectIdentifier(dotted), [nullTag, 0x00]])
    }
}
