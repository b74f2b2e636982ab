import Foundation

/// The `appData` of a RESCIND_CONSENT notification.
public struct AppData: Codable, Hashable, Sendable {
    /// The app's Apple ID.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The raw `environment` value; see ``environment``.
    public var rawEnvironment: String?
    /// The signed app transaction (an ``AppTransactionPayload`` JWS).
    public var signedAppTransactionInfo: String?

    /// Creates app data for an app in the given environment.
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
        case appAppleId, bundleId
        case rawEnvironment = "environment"
        case signedAppTransactionInfo
    }
}
