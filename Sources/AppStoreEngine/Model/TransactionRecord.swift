public import AppStoreFormats
public import Foundation
public import StoreKitConfiguration

/// How a transaction came about.
public enum TransactionOrigin: String, Sendable, Hashable, Codable {
    /// The customer bought the product.
    case purchase
    /// The customer bought a non-consumable or non-renewing subscription they already owned: a new regular
    /// transaction that is not charged again.
    case repurchase
    /// A restore replayed an earlier purchase on a device.
    case restore
    /// A family member's purchase of a family-shareable product, shared with this account.
    case familyShare
    /// An auto-renewable subscription renewed at the end of a period.
    case renewal
}

/// Where a transaction stands.
public enum TransactionState: Sendable, Hashable, Codable {
    /// Completed: the customer was charged (or owned it already) and is entitled.
    case purchased
    /// Waiting for a parent to approve (Ask to Buy).
    case pendingApproval
    /// A parent declined the Ask to Buy request.
    case declined
    /// Waiting for the customer to resolve a billing issue (an interrupted purchase).
    case interrupted
    /// The purchase failed with an `SKError.Code` raw value.
    case failed(errorCode: Int)

    /// Whether the transaction completed and grants the product.
    public var isCompleted: Bool { self == .purchased }
}

/// One transaction as the store keeps it.
public struct TransactionRecord: Sendable, Hashable, Codable, Identifiable {
    /// The transaction's identifier (Apple's numeric string form is `String(id)`).
    public var id: UInt64
    /// The identifier of the first purchase this transaction derives from; equal to ``id`` for a first purchase.
    public var originalID: UInt64
    /// The account that made the transaction.
    public var accountID: String
    /// The app's bundle identifier.
    public var bundleID: String
    /// The product bought.
    public var productID: String
    /// The kind of product.
    public var productType: ProductType
    /// How many were bought (consumables may be bought several at a time).
    public var quantity: Int
    /// When the transaction happened, from the store's clock.
    public var purchaseDate: Date
    /// When the original purchase happened.
    public var originalPurchaseDate: Date
    /// The storefront (ISO 3166-1 alpha-3) the transaction was made in.
    public var storefront: String
    /// Apple's numeric identifier of that storefront.
    public var storefrontID: String
    /// The ISO 4217 currency charged.
    public var currency: String
    /// The price of one unit, in ``currency``.
    public var unitPrice: Decimal
    /// What the customer paid in all: unit price × quantity, or zero for a repurchase or a restore.
    public var amountCharged: Decimal
    /// Why the transaction exists.
    public var origin: TransactionOrigin
    /// Where the transaction stands.
    public var state: TransactionState
    /// The device the app made the request on; nil for purchases made outside any app.
    public var deviceID: UUID?
    /// The app's opaque token for the customer (`applicationUsername` or `appAccountToken`), if given.
    public var applicationUsername: String?
    /// The app-supplied UUID that ties the purchase to its own account, if given.
    public var appAccountToken: UUID?
    /// For an auto-renewable subscription: the subscription group the product belongs to.
    public var subscriptionGroupID: String?
    /// For an auto-renewable subscription: when the period this transaction paid for ends.
    public var expiresDate: Date?
    /// When the App Store refunded or revoked the transaction.
    public var revocationDate: Date?
    /// Why the App Store refunded the transaction.
    public var revocationReason: RevocationReason?
    /// How the entitlement was taken back: a refund (the default) or `FAMILY_REVOKE` when the family stopped sharing it.
    public var revocationType: RevocationType?
    /// For a prorated refund: the share of the price refunded, in milli-percent (`revocationPercentage`, 50000 is 50%).
    public var revocationPercentage: Int?
    /// The customer's latest refund request for this transaction, pending or decided; `nil` when they never asked
    /// through a store that waits for decisions.
    public var refundRequest: RefundRequestRecord?
    /// For an auto-renewable subscription: `true` once the customer upgraded to a higher level during this period,
    /// which then ended early (`isUpgraded`).
    public var isUpgraded: Bool?
    /// For an auto-renewable subscription: the offer that priced this period, if any.
    public var offer: SubscriptionOffer?
    /// For an auto-renewable subscription whose product has billing plans: the plan this transaction billed
    /// (`billingPlanType`), `BILLED_UPFRONT` or `MONTHLY`; `nil` for a product without billing plans.
    public var billingPlanType: BillingPlanType?
    /// For a billing of the `MONTHLY` plan: where it stands in its 12-month commitment (`commitmentInfo`).
    public var commitment: BillingCommitment?
    /// For a restore: the transaction it replays (a non-consumable's purchase, or one period of a subscription).
    public var restoredTransactionID: UInt64?
    /// For a restore: when the transaction it replays happened.
    public var restoredPurchaseDate: Date?
    /// The idempotency key of the request that made this purchase, if the client gave one: a request repeating it
    /// returns this transaction instead of buying again.
    public var idempotencyKey: String?
    /// For an Advanced Commerce purchase or renewal: what it sold, item by item (`advancedCommerceInfo`).
    public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?
    /// For an Advanced Commerce subscription's purchase: what the subscription renews with once the purchase
    /// completes (its items at their regular prices, an offer's remaining periods).
    public var advancedCommerceRenewal: AdvancedCommerceRenewalInfo?

    /// Creates a record.
    public init(
        id: UInt64, originalID: UInt64, accountID: String, bundleID: String, productID: String,
        productType: ProductType, quantity: Int, purchaseDate: Date, originalPurchaseDate: Date,
        storefront: Storefront, unitPrice: Decimal, amountCharged: Decimal, origin: TransactionOrigin,
        state: TransactionState, deviceID: UUID? = nil, applicationUsername: String? = nil,
        appAccountToken: UUID? = nil, revocationDate: Date? = nil, revocationReason: RevocationReason? = nil
    ) {
        self.id = id
        self.originalID = originalID
        self.accountID = accountID
        self.bundleID = bundleID
        self.productID = productID
        self.productType = productType
        self.quantity = quantity
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.storefront = storefront.countryCode
        self.storefrontID = storefront.id
        self.currency = storefront.currency
        self.unitPrice = unitPrice
        self.amountCharged = amountCharged
        self.origin = origin
        self.state = state
        self.deviceID = deviceID
        self.applicationUsername = applicationUsername
        self.appAccountToken = appAccountToken
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
    }

    /// Whether the App Store refunded or revoked the transaction.
    public var isRevoked: Bool { revocationDate != nil }

    /// The order identifier on the customer's App Store receipt email (what the App Store Server API's "Look up
    /// order ID" takes): `M` and the transaction identifier in base 36, so it leads back to the transaction.
    public var orderID: String { "M" + String(id, radix: 36, uppercase: true) }

    /// The transaction identifier an ``orderID`` stands for; `nil` for text that is not one.
    public static func transactionID(orderID: String) -> UInt64? {
        guard orderID.hasPrefix("M") else { return nil }
        return UInt64(orderID.dropFirst(), radix: 36)
    }

    /// Whether the account owns the purchase itself or through Family Sharing.
    public var ownershipType: InAppOwnershipType { origin == .familyShare ? .familyShared : .purchased }

    /// Whether the transaction currently grants its product: completed and not revoked.
    public var isActive: Bool { state.isCompleted && !isRevoked }
}
