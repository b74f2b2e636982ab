public import Foundation

/// A receipt read but not yet verified: its PKCS#7 envelope and its payload's attributes, parsed once.
///
/// A server that must look inside a receipt before it verifies it (to pick the store that issued it, say) reads it
/// into this value and hands the same value to a ``ReceiptVerifier`` (`verify(_:deviceIdentifierBytes:)`), so the receipt
/// is parsed once however many steps look at it. Nothing read from it is trustworthy until it is verified.
public struct UnverifiedReceipt: Sendable {
    /// The envelope, with the payload and the signature the verifier checks.
    let envelope: ReceiptEnvelope
    /// The payload's attributes, or why they do not read: reported only once the signature is known to be good, so a
    /// forged receipt is refused as forged whatever its payload holds.
    let attributes: Result<[ReceiptAttribute], FormatError>

    /// Reads a receipt: PKCS#7 in DER or BER, or base64 text of either (whitespace allowed).
    ///
    /// - Throws: ``FormatError`` when the bytes are not a PKCS#7 `SignedData`.
    public init(receiptData: Data) throws(FormatError) {
        do {
            envelope = try ReceiptEnvelope(bytes: ReceiptEnvelope.bytes(of: receiptData))
        } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError.malformedData("The receipt is not a PKCS#7 SignedData: \(error)")
        }
        let payload = envelope.payload
        attributes = Result { () throws(FormatError) in try ReceiptPayloadReader.attributes(in: payload) }
    }

    /// The store (tenant) the receipt says issued it (``AppReceipt/issuingStore``), unverified: fit to choose which
    /// store verifies it, not to trust. `nil` when the receipt names none or its payload does not read.
    public var issuingStore: String? {
        guard case .success(let attributes) = attributes,
              let attribute = attributes.first(where: { $0.type == AppReceipt.issuingStoreType }) else { return nil }
        return ReceiptPayloadReader.Value(attribute.value).string
    }
}
