public import Foundation

/// The `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification.
///
/// It has no environment field: an `externalPurchaseId` starting with `SANDBOX` marks the sandbox.
public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
    /// The token's identifier (starts with `SANDBOX` in the sandbox).
    public var externalPurchaseId: String?
    /// When the token was created.
    public var tokenCreationDate: Date?
    /// The app's Apple ID.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?

    /// Creates a token report.
    public init(externalPurchaseId: String, bundleId: String) {
        self.externalPurchaseId = externalPurchaseId
        self.bundleId = bundleId
    }
}
