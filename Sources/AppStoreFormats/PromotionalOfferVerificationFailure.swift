/// Why ``PromotionalOfferVerifier`` rejected a promotional offer signature. A value, never thrown.
///
/// Compare with the static members; equality ignores ``message``.
public struct PromotionalOfferVerificationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case unknownKey
        case malformedSignature
        case invalidSignature
        case timestampOutOfRange
        case wrongBundleID
        case wrongProduct
        case wrongOffer
        case wrongAudience
    }

    let code: Code

    /// What failed, in words.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// No key with the signature's key ID is registered.
    public static let unknownKey = Self(.unknownKey, "The signature's key ID is not registered.")
    /// The signature is not base64 DER (V1), or the token is not an ES256 compact JWS with a `kid` (V2).
    public static let malformedSignature = Self(.malformedSignature, "The signature is malformed.")
    /// The signature does not match the offer's fields.
    public static let invalidSignature = Self(.invalidSignature, "The signature does not match the offer.")
    /// The timestamp (V1) or `iat` (V2) is more than 24 hours away from now.
    public static let timestampOutOfRange = Self(.timestampOutOfRange, "The signature is older than 24 hours or dated in the future.")
    /// The signature was made for another app.
    public static let wrongBundleID = Self(.wrongBundleID, "The signature was made for another app.")
    /// The signature was made for another product.
    public static let wrongProduct = Self(.wrongProduct, "The signature was made for another product.")
    /// The signature was made for another offer.
    public static let wrongOffer = Self(.wrongOffer, "The signature was made for another offer.")
    /// The V2 token's `aud` is not `promotional-offer`.
    public static let wrongAudience = Self(.wrongAudience, "The token is not a promotional offer signature.")

    func with(_ message: String) -> Self { Self(code, message) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { message }
}
