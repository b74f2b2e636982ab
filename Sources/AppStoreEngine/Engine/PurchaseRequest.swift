public import Foundation
public import StoreKitConfiguration

/// A request to buy a product, as an app's payment or a purchase made outside the app.
public struct PurchaseRequest: Sendable, Hashable, Codable {
    /// The product to buy.
    public var productID: String
    /// The buying account.
    public var accountID: String
    /// The app the purchase is for.
    public var bundleID: String
    /// How many to buy (1 to 10; more than 1 only makes sense for consumables).
    public var quantity: Int
    /// The device the app runs on; nil for purchases made outside any app.
    public var deviceID: UUID?
    /// The app's opaque customer token (`SKPayment.applicationUsername`).
    public var applicationUsername: String?
    /// The app's UUID for the customer (`appAccountToken`).
    public var appAccountToken: UUID?
    /// Behave as if Ask to Buy were on for this purchase (`SKPayment.simulatesAskToBuyInSandbox`).
    public var simulatesAskToBuy: Bool
    /// The offer the customer claims, for an auto-renewable subscription; without one, an eligible customer gets
    /// the product's introductory offer.
    public var offer: OfferRedemption?
    /// A key the client chose for this purchase (HTTP `Idempotency-Key`): a request that repeats a key the account
    /// already bought with in the app returns that purchase instead of buying again, so a client may retry a
    /// request whose answer it never got.
    public var idempotencyKey: String?
    /// The developer's signed decision whether the purchase gets the product's introductory offer
    /// (`Product.PurchaseOption.introductoryOfferEligibility(compactJWS:)`): a compact JWS with
    /// `IntroductoryOfferEligibilityClaims`, signed with an In-App Purchase key the store knows. It replaces the
    /// store's own eligibility check when the purchase claims no other offer.
    public var introductoryOfferEligibility: String?
    /// The billing plan the customer chose for an auto-renewable subscription
    /// (`Product.PurchaseOption.billingPlanType(_:)`): `MONTHLY` bills monthly with a 12-month commitment, for a
    /// product whose configuration offers that plan; `nil` or `BILLED_UPFRONT` bills the whole price each period.
    public var billingPlanType: BillingPlanType?
    /// The developer's signed Advanced Commerce request (`AdvancedCommerceProduct.purchase(compactJWS:)`): a compact
    /// JWS made like Apple's `AdvancedCommerceAPIInAppSignatureCreator` makes it, with an In-App Purchase key the
    /// store knows. It prices the purchase item by item (`CREATE_ONE_TIME_CHARGE` for a consumable or non-consumable,
    /// `CREATE_SUBSCRIPTION` for an auto-renewable subscription), and the transaction carries it as
    /// `advancedCommerceInfo`.
    public var advancedCommerceRequest: String?
    /// A purchase date in the past, for a test store (StoreKit Test's `Product.PurchaseOption.purchaseDate(_:renewalBehavior:)`):
    /// the purchase is recorded as made then, and a subscription it starts runs from then. A Production store refuses
    /// it, and so does a store asked for a date after its clock's now.
    public var purchaseDate: Date?
    /// What a back-dated subscription does about the periods that ended since ``purchaseDate``; renewing up to now when
    /// `nil`.
    public var renewalBehavior: RenewalBehavior?

    /// What a subscription bought with a past ``purchaseDate`` does about the periods that ended since then.
    public enum RenewalBehavior: String, Sendable, Hashable, Codable {
        /// It renewed at the end of every period up to now, with a renewal transaction for each.
        case renewUntilNow
        /// Its auto-renew was turned off at purchase: it expires at the end of its first period.
        case cancelImmediately
    }

    /// Creates a request.
    public init(
        productID: String, accountID: String = StoreDefaults.accountID, bundleID: String, quantity: Int = 1,
        deviceID: UUID? = nil, applicationUsername: String? = nil, appAccountToken: UUID? = nil,
        simulatesAskToBuy: Bool = false, offer: OfferRedemption? = nil, idempotencyKey: String? = nil,
        billingPlanType: BillingPlanType? = nil
    ) {
        self.billingPlanType = billingPlanType
        self.productID = productID
        self.accountID = accountID
        self.bundleID = bundleID
        self.quantity = quantity
        self.deviceID = deviceID
        self.applicationUsername = applicationUsername
        self.appAccountToken = appAccountToken
        self.simulatesAskToBuy = simulatesAskToBuy
        self.offer = offer
        self.idempotencyKey = idempotencyKey
    }

    /// The most items one purchase may ask for, as on the App Store.
    public static let maximumQuantity = 10
}
