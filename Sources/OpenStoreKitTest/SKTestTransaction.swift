public import AppStoreEngine
public import Foundation
public import OpenStoreKit

/// A transaction as the test session sees it: every transaction of the store, including failed ones,
/// pending Ask to Buy requests and consumables. A snapshot; ask the session again for fresh values.
///
/// `@unchecked Sendable`: its stored properties are `let`s of `Sendable` types.
open class SKTestTransaction: NSObject, @unchecked Sendable {
    /// The store's record of the transaction.
    public let record: TransactionRecord
    /// For an auto-renewable subscription, the subscription the transaction belongs to, as it is now.
    public let subscription: SubscriptionRecord?

    init(_ record: TransactionRecord, subscription: SubscriptionRecord? = nil) {
        self.record = record
        self.subscription = subscription
        super.init()
    }

    /// The transaction's identifier: what every ``SKTestSession`` control takes.
    open var identifier: Int { Int(truncatingIfNeeded: record.id) }

    /// The identifier of the purchase a restore or repurchase derives from; the transaction's own otherwise.
    open var originalTransactionIdentifier: Int { Int(truncatingIfNeeded: record.originalID) }

    /// The product bought.
    open var productIdentifier: String { record.productID }

    /// The state an app's payment queue reports for the transaction.
    open var state: SKPaymentTransactionState {
        switch record.state {
        case .purchased: record.origin == .restore ? .restored : .purchased
        case .pendingApproval: .deferred
        case .declined, .interrupted, .failed: .failed
        }
    }

    /// When the transaction happened.
    open var purchaseDate: Date { record.purchaseDate }

    /// When the App Store refunded or revoked the transaction.
    open var cancelDate: Date? { record.revocationDate }

    /// When the subscription period this transaction paid for ends; `nil` for products that are not
    /// auto-renewable subscriptions.
    open var expirationDate: Date? { record.expiresDate }

    /// Whether the subscription renews automatically at the end of its current period; `false` for products
    /// that are not auto-renewable subscriptions.
    open var autoRenewingEnabled: Bool { subscription?.autoRenewEnabled ?? false }

    /// Whether the purchase waits for the customer to resolve an issue: an interrupted purchase, or the latest
    /// period of a subscription whose renewal failed to bill (billing retry, with or without a grace period).
    open var hasPurchaseIssue: Bool {
        record.state == .interrupted || (subscription?.isInBillingRetry == true && subscription?.latestTransactionID == record.id)
    }

    /// Whether the subscription is in a billing grace period: its renewal failed to bill, yet the customer keeps
    /// the service until the grace period ends. An OpenStoreKit addition, from the subscription's state.
    open var isInBillingGracePeriod: Bool { subscription?.status == .gracePeriod }

    /// Whether a subscription waits for consent to a price increase; `false` for other products.
    open var isPendingPriceIncreaseConsent: Bool { subscription?.priceIncrease == .pending }

    /// Whether the purchase waits for a parent's approval (Ask to Buy).
    open var pendingAskToBuyConfirmation: Bool { record.state == .pendingApproval }

    /// The identifier, product and state.
    open override var description: String {
        "<SKTestTransaction \(record.id) \(productIdentifier) \(state)>"
    }
}
