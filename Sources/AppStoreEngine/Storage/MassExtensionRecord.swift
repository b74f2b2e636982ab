public import Foundation

/// A request to extend the renewal date of every active subscriber of a product, as the App Store Server API's
/// "Extend Subscription Renewal Dates for All Active Subscribers" takes it, with its outcome.
///
/// The record is a row of the tenant's storage, written in the same storage transaction as the extensions it made
/// (``StorageChange/saveMassExtension(_:)``), so "Get Status of Subscription Renewal Date Extension Request" answers
/// the same on every server on the storage and after a restart. Erasing the tenant deletes it, as it does the
/// subscriptions it extended; snapshots do not carry it.
public struct MassExtensionRecord: Sendable, Hashable, Codable {
    /// The identifier the developer gave the request (`requestIdentifier`).
    public var requestIdentifier: String
    /// The subscription product whose subscribers were extended.
    public var productID: String
    /// The app.
    public var bundleID: String
    /// The storefronts the request was limited to (ISO 3166-1 alpha-3); every storefront when empty.
    public var storefrontCountryCodes: [String]
    /// How many days each renewal date moved, 1 to 90.
    public var extendByDays: Int
    /// Apple's `extendReasonCode`, 0 to 3.
    public var extendReasonCode: Int
    /// When the request was made, on the store's clock.
    public var requestDate: Date
    /// Whether every subscription it concerns was extended or given up on.
    public var complete: Bool
    /// When it completed, on the store's clock.
    public var completeDate: Date?
    /// How many subscriptions were extended.
    public var succeededCount: Int
    /// How many subscriptions could not be extended.
    public var failedCount: Int

    /// Describes a request, not yet complete unless a complete date is given.
    public init(
        requestIdentifier: String, productID: String, bundleID: String, storefrontCountryCodes: [String] = [],
        extendByDays: Int, extendReasonCode: Int, requestDate: Date, completeDate: Date? = nil,
        succeededCount: Int = 0, failedCount: Int = 0
    ) {
        self.requestIdentifier = requestIdentifier
        self.productID = productID
        self.bundleID = bundleID
        self.storefrontCountryCodes = storefrontCountryCodes
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestDate = requestDate
        self.complete = completeDate != nil
        self.completeDate = completeDate
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}
