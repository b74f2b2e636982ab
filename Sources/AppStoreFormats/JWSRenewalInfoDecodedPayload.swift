public import Foundation

/// A subscription's signed renewal information (`signedRenewalInfo`, StoreKit 2 `RenewalInfo`), with Apple's
/// field names.
///
/// Properties are declared in Apple's order; unset ones are omitted from the JSON. Enum-valued fields are
/// stored raw (`raw…`) with typed accessors.
public struct JWSRenewalInfoDecodedPayload: Codable, Hashable, Sendable {
    /// The raw `expirationIntent` value; see ``expirationIntent``.
    public var rawExpirationIntent: Int32?
    /// The original transaction identifier of the subscription.
    public var originalTransactionId: String?
    /// The product the subscription renews to.
    public var autoRenewProductId: String?
    /// The product the customer is subscribed to now.
    public var productId: String?
    /// The raw `autoRenewStatus` value; see ``autoRenewStatus``.
    public var rawAutoRenewStatus: Int32?
    /// Whether the App Store is still trying to bill the customer.
    public var isInBillingRetryPeriod: Bool?
    /// The raw `priceIncreaseStatus` value; see ``priceIncreaseStatus``.
    public var rawPriceIncreaseStatus: Int32?
    /// When the billing grace period ends.
    public var gracePeriodExpiresDate: Date?
    /// The raw `offerType` value; see ``offerType``.
    public var rawOfferType: Int32?
    /// The offer that applies at the next renewal.
    public var offerIdentifier: String?
    /// When the App Store signed this payload. Verifiers check the certificate chain at this date.
    public var signedDate: Date?
    /// The raw `environment` value; see ``environment``.
    public var rawEnvironment: String?
    /// The start of the current run of the subscription (lapses under 60 days ignored).
    public var recentSubscriptionStartDate: Date?
    /// When the subscription renews next.
    public var renewalDate: Date?
    /// The renewal price in milliunits of ``currency``.
    public var renewalPrice: Int64?
    /// The ISO 4217 currency code of ``renewalPrice``.
    public var currency: String?
    /// The raw `offerDiscountType` value; see ``offerDiscountType``.
    public var rawOfferDiscountType: String?
    /// The offer's duration as an ISO 8601 period.
    public var offerPeriod: String?
    /// Win-back offers the customer is eligible for.
    public var eligibleWinBackOfferIds: [String]?
    /// The UUID the app attached to purchases (written in lowercase).
    public var appAccountToken: UUID?
    /// The app download's transaction identifier.
    public var appTransactionId: String?
    /// The billing plan of the next renewal.
    public var renewalBillingPlanType: String?
    /// For a subscription billed monthly with a 12-month commitment: what happens when the commitment ends.
    public var commitmentInfo: RenewalCommitmentInfo?
    /// On a device only: the SHA-384 hash that ties the renewal info to the device (see ``DeviceVerification``), base64.
    public var deviceVerification: String?
    /// On a device only: the nonce used in ``deviceVerification``.
    public var deviceVerificationNonce: UUID?
    /// What an Advanced Commerce subscription renews with; Advanced Commerce subscriptions only.
    public var advancedCommerceInfo: AdvancedCommerceRenewalInfo?

    /// Creates an empty payload in the given environment; set the other properties before signing.
    public init(environment: AppStoreEnvironment = .sandbox) {
        self.rawEnvironment = environment.rawValue
    }

    /// Why the subscription expired (`expirationIntent`).
    public var expirationIntent: ExpirationIntent? {
        get { rawExpirationIntent.flatMap(ExpirationIntent.init(rawValue:)) }
        set { rawExpirationIntent = newValue?.rawValue }
    }

    /// Whether the subscription renews automatically (`autoRenewStatus`).
    public var autoRenewStatus: AutoRenewStatus? {
        get { rawAutoRenewStatus.flatMap(AutoRenewStatus.init(rawValue:)) }
        set { rawAutoRenewStatus = newValue?.rawValue }
    }

    /// The customer's answer to a price increase (`priceIncreaseStatus`).
    public var priceIncreaseStatus: PriceIncreaseStatus? {
        get { rawPriceIncreaseStatus.flatMap(PriceIncreaseStatus.init(rawValue:)) }
        set { rawPriceIncreaseStatus = newValue?.rawValue }
    }

    /// The kind of offer at the next renewal (`offerType`).
    public var offerType: OfferType? {
        get { rawOfferType.flatMap(OfferType.init(rawValue:)) }
        set { rawOfferType = newValue?.rawValue }
    }

    /// How that offer discounts the price (`offerDiscountType`).
    public var offerDiscountType: OfferDiscountType? {
        get { rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:)) }
        set { rawOfferDiscountType = newValue?.rawValue }
    }

    /// The environment (`environment`).
    public var environment: AppStoreEnvironment? {
        get { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    enum CodingKeys: String, CodingKey {
        case rawExpirationIntent = "expirationIntent"
        case originalTransactionId, autoRenewProductId, productId
        case rawAutoRenewStatus = "autoRenewStatus"
        case isInBillingRetryPeriod
        case rawPriceIncreaseStatus = "priceIncreaseStatus"
        case gracePeriodExpiresDate
        case rawOfferType = "offerType"
        case offerIdentifier, signedDate
        case rawEnvironment = "environment"
        case recentSubscriptionStartDate, renewalDate, renewalPrice, currency
        case rawOfferDiscountType = "offerDiscountType"
        case offerPeriod, eligibleWinBackOfferIds, appAccountToken, appTransactionId, renewalBillingPlanType, commitmentInfo
        case deviceVerification, deviceVerificationNonce
        case advancedCommerceInfo
    }
}

extension JWSRenewalInfoDecodedPayload: JWSVerifiable {
    public var verificationDate: Date? { signedDate }
    /// Renewal info carries no bundle ID; Apple's verifier does not check one.
    public var verificationBundleID: String? { nil }
    public var verificationEnvironment: String? { rawEnvironment }
    public static var verifiesBundleID: Bool { false }
}
