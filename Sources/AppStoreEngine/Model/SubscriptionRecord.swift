public import AppStoreFormats
public import Foundation
public import StoreKitConfiguration

/// Where an auto-renewable subscription stands.
public enum SubscriptionStatus: String, Sendable, Hashable, Codable {
    /// In a paid period: the customer has the service until ``SubscriptionRecord/expiresDate``.
    case active
    /// A renewal failed to bill and the App Store keeps retrying, with a grace period: the customer keeps the
    /// service until ``SubscriptionRecord/gracePeriodExpiresDate``.
    case gracePeriod
    /// A renewal failed to bill and the App Store keeps retrying until ``SubscriptionRecord/billingRetryEndDate``;
    /// the customer has no service meanwhile.
    case billingRetry
    /// The last period ended and nothing renewed it.
    case expired
    /// The App Store refunded or revoked the subscription.
    case revoked
}

/// Where a subscription's price increase stands.
public enum PriceIncreaseConsent: String, Sendable, Hashable, Codable {
    /// The App Store asked the customer to consent to the new price and has no answer yet; without one by the
    /// renewal date, the subscription expires.
    case pending
    /// The customer consented: the subscription renews at the new price.
    case agreed
    /// The customer declined: auto-renew is off and the subscription expires at the period's end because of it.
    case declined
}

/// One auto-renewable subscription of an account: the chain of transactions that share an original transaction,
/// and what the store will do at the end of the current period.
///
/// The store keeps one record per subscription and moves it forward as periods end: at ``nextEventDate`` it renews
/// (a new transaction with the same original) while auto-renew is on, or expires. The date is stored, so a store
/// that nobody ran for months renews every missed period, in order, when it is next opened.
public struct SubscriptionRecord: Sendable, Hashable, Codable, Identifiable {
    /// The original transaction's identifier, shared by every transaction of the subscription.
    public var id: UInt64
    /// The subscriber.
    public var accountID: String
    /// The app's bundle identifier.
    public var bundleID: String
    /// The subscription group.
    public var groupID: String
    /// The product of the current period.
    public var productID: String
    /// The product the subscription renews into (`autoRenewProductId`).
    public var autoRenewProductID: String
    /// Whether the subscription renews at the end of the period (`autoRenewStatus`).
    public var autoRenewEnabled: Bool
    /// The newest transaction: the purchase or the latest renewal.
    public var latestTransactionID: UInt64
    /// When the subscription was first bought.
    public var originalPurchaseDate: Date
    /// The app's token for the customer, carried into every renewal.
    public var appAccountToken: UUID?
    /// When the current stretch of service began, as Apple counts it for `recentSubscriptionStartDate`: the first
    /// purchase, or the latest resubscription after a lapse longer than ``longestIgnoredLapse``.
    public var recentStartDate: Date

    /// The longest lapse of paid service `recentSubscriptionStartDate` ignores: 60 days.
    public static let longestIgnoredLapse: TimeInterval = 60 * 86_400
    /// When the current period started.
    public var periodStartDate: Date
    /// When the current period ends.
    public var expiresDate: Date
    /// Where the subscription stands.
    public var status: SubscriptionStatus
    /// Why the subscription expired, once it has.
    public var expirationIntent: ExpirationIntent?
    /// How many times the subscription renewed.
    public var renewalCount: Int
    /// In a grace period: when it ends and, unless billing recovers, the service stops (`gracePeriodExpiresDate`).
    public var gracePeriodExpiresDate: Date?
    /// In billing retry: when the App Store gives up and the subscription expires.
    public var billingRetryEndDate: Date?
    /// The offer that priced the current period, counting the discounted periods still to come.
    public var offer: SubscriptionOffer?
    /// An offer the subscriber redeemed during this period for the product the subscription renews into
    /// (``autoRenewProductID``), which prices the next period.
    public var pendingOffer: SubscriptionOffer?
    /// When the developer extended the renewal date (App Store Server API), most recent last.
    public var renewalExtensionDates: [Date]?
    /// A price increase the customer was asked to consent to, and their answer.
    public var priceIncrease: PriceIncreaseConsent?
    /// For a subscription billed monthly with a 12-month commitment: the current commitment. While billings of it
    /// remain, the subscription renews monthly whatever ``autoRenewEnabled`` says, which then decides only whether
    /// a new commitment follows this one.
    public var commitment: BillingCommitment?
    /// The billing plan the subscription renews on (`renewalBillingPlanType`) for a product that has billing plans:
    /// `MONTHLY` starts a new commitment when the current one ends (or at the next renewal, chosen with a change of
    /// plan); `nil` bills up front.
    public var renewalBillingPlanType: BillingPlanType?
    /// For an Advanced Commerce subscription (bought with a signed request, or migrated): what it renews with —
    /// its items and their prices, descriptors and period — in place of its product's price and period.
    public var advancedCommerceInfo: AdvancedCommerceRenewalInfo?

    /// Creates a record.
    public init(
        id: UInt64, accountID: String, bundleID: String, groupID: String, productID: String,
        autoRenewProductID: String? = nil, autoRenewEnabled: Bool = true, latestTransactionID: UInt64,
        originalPurchaseDate: Date, appAccountToken: UUID? = nil, periodStartDate: Date, expiresDate: Date, status: SubscriptionStatus = .active,
        expirationIntent: ExpirationIntent? = nil, renewalCount: Int = 0
    ) {
        self.id = id
        self.accountID = accountID
        self.bundleID = bundleID
        self.groupID = groupID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID ?? productID
        self.autoRenewEnabled = autoRenewEnabled
        self.latestTransactionID = latestTransactionID
        self.originalPurchaseDate = originalPurchaseDate
        self.appAccountToken = appAccountToken
        self.recentStartDate = periodStartDate
        self.periodStartDate = periodStartDate
        self.expiresDate = expiresDate
        self.status = status
        self.expirationIntent = expirationIntent
        self.renewalCount = renewalCount
    }

    /// When the store must next act on the subscription: renew or expire it at the period's end, end its grace
    /// period, or give up retrying; `nil` when nothing is due.
    public var nextEventDate: Date? {
        switch status {
        case .active: expiresDate
        case .gracePeriod: gracePeriodExpiresDate
        case .billingRetry: billingRetryEndDate
        case .expired, .revoked: nil
        }
    }

    /// Whether the subscription bills again at the end of the current period: auto-renew is on, or billings of its
    /// commitment remain and it has not ended (a commitment expired early, by StoreKit Test or a refund, bills no more).
    public var willBillAgain: Bool {
        autoRenewEnabled || (commitment?.hasBillingsLeft == true && status != .expired && status != .revoked)
    }

    /// The offer that prices the next period: the current offer's next discounted period, or an offer redeemed
    /// during this one.
    public var nextPeriodOffer: SubscriptionOffer? { offer?.next ?? pendingOffer }

    /// Forgets a billing problem: no grace period, no retry.
    public mutating func clearBillingRetry() {
        gracePeriodExpiresDate = nil
        billingRetryEndDate = nil
    }

    /// Whether the App Store is retrying a failed renewal (`isInBillingRetryPeriod`).
    public var isInBillingRetry: Bool { status == .gracePeriod || status == .billingRetry }

    /// Whether the customer has the service at `date`: in a paid period, or in a grace period.
    public func isActive(at date: Date) -> Bool {
        switch status {
        case .active: expiresDate > date
        case .gracePeriod: (gracePeriodExpiresDate ?? expiresDate) > date
        case .billingRetry, .expired, .revoked: false
        }
    }

    /// The status Apple reports for the subscription (notification `data.status`, subscription statuses).
    public var appleStatus: Status {
        switch status {
        case .active: .active
        case .gracePeriod: .billingGracePeriod
        case .billingRetry: .billingRetry
        case .expired: .expired
        case .revoked: .revoked
        }
    }
}
