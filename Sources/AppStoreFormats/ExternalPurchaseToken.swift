public import Foundation

/// An external purchase token, as Apple's External Purchase API hands it to an app (Base64URL-encoded JSON) and as the
/// `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification carries it.
///
/// It has no environment field: an `externalPurchaseId` starting with `SANDBOX` marks the sandbox. Custom link tokens
/// (`ExternalPurchaseCustomLink.token(for:)`) also carry ``tokenType`` and ``tokenExpirationDate``.
public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
    /// The token's identifier (starts with `SANDBOX_` in the sandbox): what the developer reports it under.
    public var externalPurchaseId: String?
    /// When the token was created.
    public var tokenCreationDate: Date?
    /// The app's Apple ID.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// A custom link token's type, `ACQUISITION` or `SERVICES`; absent for other tokens.
    public var tokenType: String?
    /// When a custom link token stops being active; absent for other tokens.
    public var tokenExpirationDate: Date?

    /// Creates a token report.
    public init(externalPurchaseId: String, bundleId: String) {
        self.externalPurchaseId = externalPurchaseId
        self.bundleId = bundleId
    }

    /// The token as the External Purchase API hands it to an app: its JSON, Base64URL-encoded, dates in milliseconds.
    public func encodedValue() throws -> String {
        Base64.urlEncoded(try AppStoreJSON.encode(self))
    }

    /// Reads a token string an app received (Base64URL-encoded JSON, padded or not).
    ///
    /// - Throws: `DecodingError` when the text is not a token.
    public init(encodedValue: String) throws {
        guard let bytes = Base64.decode(Array(encodedValue.utf8)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The external purchase token is not Base64URL text."))
        }
        self = try AppStoreJSON.decode(Self.self, from: bytes)
    }
}
