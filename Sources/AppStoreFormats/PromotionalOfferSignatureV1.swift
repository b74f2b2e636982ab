public import Foundation

/// A promotional offer signature of the original kind (`SKPaymentDiscount`,
/// `Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`).
///
/// The signature is ECDSA P-256 / SHA-256 (DER, base64) over the UTF-8 string
/// `bundleID ⁣ keyID ⁣ productID ⁣ offerID ⁣ lower(appAccountToken) ⁣ lower(nonce) ⁣ timestamp`, joined by
/// U+2063 INVISIBLE SEPARATOR.
public struct PromotionalOfferSignatureV1: Hashable, Sendable {
    /// The app's bundle identifier.
    public var bundleID: String
    /// The signing key's identifier.
    public var keyID: String
    /// The subscription product.
    public var productID: String
    /// The promotional offer's identifier.
    public var offerID: String
    /// The app account token or application username; empty when none.
    public var appAccountToken: String
    /// A one-time nonce.
    public var nonce: UUID
    /// When the server signed, in milliseconds since 1970.
    public var timestamp: Int64
    /// The base64 DER ECDSA signature.
    public var signature: String

    /// Creates a signature value (from a purchase request, or from ``PromotionalOfferSigner``).
    public init(
        bundleID: String, keyID: String, productID: String, offerID: String, appAccountToken: String = "",
        nonce: UUID, timestamp: Int64, signature: String
    ) {
        self.bundleID = bundleID
        self.keyID = keyID
        self.productID = productID
        self.offerID = offerID
        self.appAccountToken = appAccountToken
        self.nonce = nonce
        self.timestamp = timestamp
        self.signature = signature
    }

    /// The bytes the signature covers.
    public var signedPayload: Data {
        Self.payload(
            bundleID: bundleID, keyID: keyID, productID: productID, offerID: offerID,
            appAccountToken: appAccountToken, nonce: nonce, timestamp: timestamp
        )
    }

    static func payload(
        bundleID: String, keyID: String, productID: String, offerID: String, appAccountToken: String,
        nonce: UUID, timestamp: Int64
    ) -> Data {
        let fields = [
            bundleID, keyID, productID, offerID, appAccountToken.lowercased(), nonce.uuidString.lowercased(),
            String(timestamp),
        ]
        return Data(fields.joined(separator: "\u{2063}").utf8)
    }
}
