public import Foundation

/// The claims of a signed introductory offer eligibility (`Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`),
/// as Apple's `IntroductoryOfferEligibilitySignatureCreator` writes them: the developer's server decides whether the
/// customer gets the subscription's introductory offer. There is no `exp`.
public struct IntroductoryOfferEligibilityClaims: Codable, Hashable, Sendable {
    /// `bid`: the app's bundle identifier.
    public var bundleID: String
    /// `iss`: the developer's issuer ID.
    public var issuerID: String?
    /// `aud`: always `introductory-offer-eligibility`.
    public var audience: String
    /// `iat`: when the signature was made, in seconds since 1970.
    public var issuedAt: Int64
    /// `nonce`: a random UUID string.
    public var nonce: String
    /// `productId`: the subscription product.
    public var productID: String
    /// `allowIntroductoryOffer`: whether the purchase gets the product's introductory offer.
    public var allowIntroductoryOffer: Bool
    /// `transactionId`: a transaction of the customer (their app transaction identifier will do).
    public var transactionID: String?

    /// The audience Apple uses for introductory offer eligibility.
    public static let introductoryOfferEligibilityAudience = "introductory-offer-eligibility"

    /// Creates claims for an introductory offer eligibility.
    public init(
        bundleID: String, issuerID: String?, issuedAt: Int64, nonce: UUID, productID: String, allowIntroductoryOffer: Bool,
        transactionID: String? = nil
    ) {
        self.bundleID = bundleID
        self.issuerID = issuerID
        self.audience = Self.introductoryOfferEligibilityAudience
        self.issuedAt = issuedAt
        self.nonce = nonce.uuidString.lowercased()
        self.productID = productID
        self.allowIntroductoryOffer = allowIntroductoryOffer
        self.transactionID = transactionID
    }

    enum CodingKeys: String, CodingKey {
        case bundleID = "bid"
        case issuerID = "iss"
        case audience = "aud"
        case issuedAt = "iat"
        case nonce
        case productID = "productId"
        case allowIntroductoryOffer
        case transactionID = "transactionId"
    }
}
