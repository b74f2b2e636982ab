import Foundation

/// The `summary` of a RENEWAL_EXTENSION notification: the outcome of a mass renewal-date extension.
public struct NotificationSummary: Codable, Hashable, Sendable {
    /// The raw `environment` value; see ``environment``.
    public var rawEnvironment: String?
    /// The app's Apple ID.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The product whose subscriptions were extended.
    public var productId: String?
    /// The identifier the developer gave the extension request.
    public var requestIdentifier: String?
    /// The storefronts the extension applied to.
    public var storefrontCountryCodes: [String]?
    /// How many subscriptions were extended.
    public var succeededCount: Int64?
    /// How many subscriptions could not be extended.
    public var failedCount: Int64?

    /// Creates a summary for an app in the given environment.
    public init(bundleId: String, environment: AppStoreEnvironment = .sandbox) {
        self.bundleId = bundleId
        self.rawEnvironment = environment.rawValue
    }

    /// The environment (`environment`).
    public var environment: AppStoreEnvironment? {
        get { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case appAppleId, bundleId, productId, requestIdentifier, storefrontCountryCodes, succeededCount, failedCount
    }
}
