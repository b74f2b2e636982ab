import Foundation

/// The `data` of a notification V2: which app and transaction it concerns, with the signed transaction and
/// renewal info.
public struct NotificationData: Codable, Hashable, Sendable {
    /// The app's Apple ID (omitted in sandbox TEST notifications).
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app's build version.
    public var bundleVersion: String?
    /// The raw `environment` value; see ``environment``.
    public var rawEnvironment: String?
    /// The signed transaction (a ``JWSTransactionDecodedPayload`` JWS).
    public var signedTransactionInfo: String?
    /// The signed renewal info (a ``JWSRenewalInfoDecodedPayload`` JWS); subscriptions only.
    public var signedRenewalInfo: String?
    /// The raw `status` value; see ``status``.
    public var rawStatus: Int32?
    /// The raw `consumptionRequestReason` value; see ``consumptionRequestReason``.
    public var rawConsumptionRequestReason: String?

    /// Creates notification data for an app in the given environment.
    public init(bundleId: String, environment: AppStoreEnvironment = .sandbox) {
        self.bundleId = bundleId
        self.rawEnvironment = environment.rawValue
    }

    /// The environment (`environment`).
    public var environment: AppStoreEnvironment? {
        get { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    /// The subscription status (`status`); subscriptions only.
    public var status: Status? {
        get { rawStatus.flatMap(Status.init(rawValue:)) }
        set { rawStatus = newValue?.rawValue }
    }

    /// Why the customer asked for a refund (`consumptionRequestReason`); CONSUMPTION_REQUEST only.
    public var consumptionRequestReason: ConsumptionRequestReason? {
        get { rawConsumptionRequestReason.flatMap(ConsumptionRequestReason.init(rawValue:)) }
        set { rawConsumptionRequestReason = newValue?.rawValue }
    }

    enum CodingKeys: String, CodingKey {
        case appAppleId, bundleId, bundleVersion
        case rawEnvironment = "environment"
        case signedTransactionInfo, signedRenewalInfo
        case rawStatus = "status"
        case rawConsumptionRequestReason = "consumptionRequestReason"
    }
}
