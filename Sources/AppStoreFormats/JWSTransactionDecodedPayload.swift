public import Foundation

/// A signed transaction's payload (`signedTransactionInfo`, StoreKit 2 `Transaction`), with Apple's field names.
///
/// Properties are declared in the order Apple emits them, so ``AppStoreJSON/encode(_:)`` reproduces Apple's
/// layout. Unset properties are omitted from the JSON. Enum-valued fields are stored as `raw…` strings or
/// numbers (the JSON value) with a typed accessor, so values Apple adds later survive a round trip.
public struct JWSTransactionDecodedPayload: Codable, Hashable, Sendable {
    /// The transaction's unique identifier (decimal digits).
    public var transactionId: String?
    /// The identifier of the original purchase (equal to `transactionId` for the first purchase).
    public var originalTransactionId: String?
    /// The subscription purchase event identifier across devices; subscriptions only.
    public var webOrderLineItemId: String?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The product identifier.
    public var productId: String?
    /// The subscription group identifier; subscriptions only.
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged the customer (the renewal date for renewals).
    public var purchaseDate: Date?
    /// The purchase date of the original transaction.
    public var originalPurchaseDate: Date?
    /// When the subscription expires or renews; subscriptions only.
    public var expiresDate: Date?
    /// The number of consumable products purchased.
    public var quantity: Int32?
    /// The raw `type` value; see ``type``.
    public var rawType: String?
    /// The UUID the app attached to the purchase (written in lowercase); omitted when unset.
    public var appAccountToken: UUID?
    /// Base64 SHA-384 proving the transaction belongs to the device; on-device copies only.
    public var deviceVerification: String?
    /// The nonce used in ``deviceVerification``.
    public var deviceVerificationNonce: UUID?
    /// The raw `inAppOwnershipType` value; see ``inAppOwnershipType``.
    public var rawInAppOwnershipType: String?
    /// When the App Store signed this payload. Verifiers check the certificate chain at this date.
    public var signedDate: Date?
    /// The raw `revocationReason` value; see ``revocationReason``.
    public var rawRevocationReason: Int32?
    /// When the App Store refunded or revoked the transaction.
    public var revocationDate: Date?
    /// The raw `revocationType` value; see ``revocationType``.
    public var rawRevocationType: String?
    /// The refunded share in milli-percent (50000 = 50%).
    public var revocationPercentage: Int32?
    /// Whether the customer upgraded to another subscription.
    public var isUpgraded: Bool?
    /// The raw `offerType` value; see ``offerType``.
    public var rawOfferType: Int32?
    /// The promotional offer identifier or offer code reference name.
    public var offerIdentifier: String?
    /// The raw `offerDiscountType` value; see ``offerDiscountType``.
    public var rawOfferDiscountType: String?
    /// The offer's duration as an ISO 8601 period, e.g. `P1M`.
    public var offerPeriod: String?
    /// The raw `environment` value; see ``environment``.
    public var rawEnvironment: String?
    /// The raw `transactionReason` value; see ``transactionReason``.
    public var rawTransactionReason: String?
    /// The storefront's ISO 3166-1 alpha-3 country code, e.g. `USA`.
    public var storefront: String?
    /// Apple's storefront identifier, e.g. `143441`.
    public var storefrontId: String?
    /// The price in milliunits of ``currency`` (USD 10.99 is 10990).
    public var price: Int64?
    /// The ISO 4217 currency code.
    public var currency: String?
    /// The app download's transaction identifier.
    public var appTransactionId: String?
    /// The billing plan, e.g. `BILLED_UPFRONT` or `MONTHLY`.
    public var billingPlanType: String?
    /// For a transaction billed on the `MONTHLY` plan: which billing of its 12-month commitment it is.
    public var commitmentInfo: TransactionCommitmentInfo?
    /// What an Advanced Commerce purchase sold, item by item; Advanced Commerce products only.
    public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?

    /// Creates an empty payload in the given environment; set the other properties before signing.
    public init(environment: AppStoreEnvironment = .sandbox) {
        self.rawEnvironment = environment.rawValue
    }

    /// The product type (`type`).
    public var type: ProductType? {
        get { rawType.flatMap(ProductType.init(rawValue:)) }
        set { rawType = newValue?.rawValue }
    }

    /// Purchased by the customer or shared through Family Sharing (`inAppOwnershipType`).
    public var inAppOwnershipType: InAppOwnershipType? {
        get { rawInAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:)) }
        set { rawInAppOwnershipType = newValue?.rawValue }
    }

    /// Why the transaction was refunded (`revocationReason`).
    public var revocationReason: RevocationReason? {
        get { rawRevocationReason.flatMap(RevocationReason.init(rawValue:)) }
        set { rawRevocationReason = newValue?.rawValue }
    }

    /// How the transaction was revoked (`revocationType`).
    public var revocationType: RevocationType? {
        get { rawRevocationType.flatMap(RevocationType.init(rawValue:)) }
        set { rawRevocationType = newValue?.rawValue }
    }

    /// The kind of offer applied (`offerType`).
    public var offerType: OfferType? {
        get { rawOfferType.flatMap(OfferType.init(rawValue:)) }
        set { rawOfferType = newValue?.rawValue }
    }

    /// How the offer discounts the price (`offerDiscountType`).
    public var offerDiscountType: OfferDiscountType? {
        get { rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:)) }
        set { rawOfferDiscountType = newValue?.rawValue }
    }

    /// The environment (`environment`).
    public var environment: AppStoreEnvironment? {
        get { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
        set { rawEnvironment = newValue?.rawValue }
    }

    /// Purchase or renewal (`transactionReason`).
    public var transactionReason: TransactionReason? {
        get { rawTransactionReason.flatMap(TransactionReason.init(rawValue:)) }
        set { rawTransactionReason = newValue?.rawValue }
    }

    enum CodingKeys: String, CodingKey {
        case transactionId, originalTransactionId, webOrderLineItemId, bundleId, productId
        case subscriptionGroupIdentifier, purchaseDate, originalPurchaseDate, expiresDate, quantity
        case rawType = "type"
        case appAccountToken, deviceVerification, deviceVerificationNonce
        case rawInAppOwnershipType = "inAppOwnershipType"
        case signedDate
        case rawRevocationReason = "revocationReason"
        case revocationDate
        case rawRevocationType = "revocationType"
        case revocationPercentage, isUpgraded
        case rawOfferType = "offerType"
        case offerIdentifier
        case rawOfferDiscountType = "offerDiscountType"
        case offerPeriod
        case rawEnvironment = "environment"
        case rawTransactionReason = "transactionReason"
        case storefront, storefrontId, price, currency, appTransactionId, billingPlanType, commitmentInfo
        case advancedCommerceInfo
    }
}

extension JWSTransactionDecodedPayload: JWSVerifiable {
    public var verificationDate: Date? { signedDate }
    public var verificationBundleID: String? { bundleId }
    public var verificationEnvironment: String? { rawEnvironment }
    public static var verifiesBundleID: Bool { true }
}
