public import Foundation

/// One raw receipt attribute: `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
///
/// ``AppReceipt`` and ``InAppPurchaseReceipt`` model the documented types; every other attribute (Apple's
/// undocumented ones such as 6, 7, 13 or 1709) is kept here, so decoding and re-encoding loses nothing.
public struct ReceiptAttribute: Hashable, Sendable {
    /// The attribute type number.
    public var type: Int
    /// The attribute version (Apple writes 1, and 2 for the opaque value; parsers ignore it).
    public var version: Int
    /// The OCTET STRING contents: usually a complete DER TLV (UTF8String, IA5String or INTEGER).
    public var value: Data

    /// Creates an attribute.
    public init(type: Int, version: Int = 1, value: Data) {
        self.type = type
        self.version = version
        self.value = value
    }

    static func utf8String(_ type: Int, _ value: String) -> ReceiptAttribute {
        ReceiptAttribute(type: type, value: Data(ReceiptDER.utf8String(value)))
    }

    static func ia5String(_ type: Int, _ value: String) -> ReceiptAttribute {
        ReceiptAttribute(type: type, value: Data(ReceiptDER.ia5String(value)))
    }

    static func date(_ type: Int, _ value: Date?) -> ReceiptAttribute {
        ia5String(type, value.map(ReceiptDate.string(from:)) ?? "")
    }

    static func integer(_ type: Int, _ value: Int64) -> ReceiptAttribute {
        ReceiptAttribute(type: type, value: Data(ReceiptDER.integer(value)))
    }
}
