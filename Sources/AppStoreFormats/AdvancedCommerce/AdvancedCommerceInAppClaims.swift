public import Foundation

/// The claims of a signed Advanced Commerce in-app request, as Apple's `AdvancedCommerceAPIInAppSignatureCreator`
/// writes them: the app's bundle ID, the issuer, the audience `advanced-commerce-api`, when it was signed, a nonce,
/// and the request itself as Base64 of its JSON. There is no `exp`.
public struct AdvancedCommerceInAppClaims: Codable, Hashable, Sendable {
    /// `bid`: the app's bundle identifier.
    public var bundleID: String
    /// `iss`: the developer's issuer ID.
    public var issuerID: String?
    /// `aud`: always `advanced-commerce-api`.
    public var audience: String
    /// `iat`: when the request was signed, in seconds since 1970.
    public var issuedAt: Int64
    /// `nonce`: a random UUID string.
    public var nonce: String?
    /// `request`: Base64 of the request's UTF-8 JSON.
    public var request: String

    /// The audience Apple uses for Advanced Commerce in-app requests.
    public static let advancedCommerceAudience = "advanced-commerce-api"

    /// Creates claims for a request.
    public init(bundleID: String, issuerID: String?, issuedAt: Int64, nonce: UUID, request: AdvancedCommerceInAppRequest) throws {
        self.bundleID = bundleID
        self.issuerID = issuerID
        self.audience = Self.advancedCommerceAudience
        self.issuedAt = issuedAt
        self.nonce = nonce.uuidString.lowercased()
        self.request = try AppStoreJSON.encode(request).base64EncodedString()
    }

    /// The request the claims carry; `nil` when `request` is not Base64 of a JSON object.
    public var decodedRequest: AdvancedCommerceInAppRequest? {
        guard let data = Base64.decodeIgnoringWhitespace(request) else { return nil }
        return try? AppStoreJSON.decode(AdvancedCommerceInAppRequest.self, from: Data(data))
    }

    enum CodingKeys: String, CodingKey {
        case bundleID = "bid"
        case issuerID = "iss"
        case audience = "aud"
        case issuedAt = "iat"
        case nonce, request
    }
}
