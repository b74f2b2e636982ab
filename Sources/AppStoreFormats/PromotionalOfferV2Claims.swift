public import Foundation

/// The claims of a JWS promotional offer signature (`Product.PurchaseOption.promotionalOffer(_:compactJWS:)`),
/// as Apple's `PromotionalOfferV2SignatureCreator` writes them. There is no `exp`.
public struct PromotionalOfferV2Claims: Codable, Hashable, Sendable {
    /// `bid`: the app's bundle identifier.
    public var bundleID: String
    /// `iss`: the developer's issuer ID.
    public var issuerID: String?
    /// `aud`: always `promotional-offer`.
    public var audience: String
    /// `iat`: when the signature was made, in seconds since 1970.
    public var issuedAt: Int64
    /// `nonce`: a random UUID string.
    public var nonce: String
    /// `productId`: the subscription product.
    public var productID: String
    /// `offerIdentifier`: the promotional offer.
    public var offerIdentifier: String
    /// `transactionId`: optionally, a transaction of the customer.
    public var transactionID: String?

    /// The audience Apple uses for promotional offers.
    public static let promotionalOfferAudience = "promotional-offer"

    /// Creates claims for a promotional offer.
    public init(
        bundleID: String, issuerID: String?, issuedAt: Int64, nonce: UUID, productID: String, offerIdentifier: String,
        transactionID: String? = nil
    ) {
        self.bundleID = bundleID
        self.issuerID = issuerID
        self.audience = Self.promotionalOfferAudience
        self.issuedAt = issuedAt
        self.nonce = nonce.uuidString.lowercased()
        self.productID = productID
        self.offerIdentifier = offerIdentifier
        self.transactionID = transactionID
    }

    enum CodingKeys: String, CodingKey {
        case bundleID = "bid"
        case issuerID = "iss"
        case audience = "aud"
        case issuedAt = "iat"
        case nonce
        case productID = "productId"
        case offerIdentifier
        case transactionID = "transactionId"
    }
}
