public import AppStoreEngine
public import Foundation
public import OpenStoreKit

/// A transaction as the test session sees it: every transaction of the store, including failed ones,
/// pending Ask to Buy requests and consumables. A snapshot; ask the session again for fresh values.
///
/// `@unchecked Sendable`: its only stored property is a `let` of a `Sendable` type.
open class SKTestTransaction: NSObject, @unchecked Sendable {
    /// The store's record of the transaction.
    public let record: TransactionRecord

    init(_ record: TransactionRecord) {
        self.record = record
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

    /// When a subscription period ends; `nil` for products that are not subscriptions.
    open var expirationDate: Date? { nil }

    /// Whether a subscription renews automatically; `false` for products that are not subscriptions.
    open var autoRenewingEnabled: Bool { false }

    /// Whether the purchase waits for the customer to resolve an issue (an interrupted purchase).
    open var hasPurchaseIssue: Bool { record.state == .interrupted }

    /// Whether a subscription waits for consent to a price increase; `false` for other products.
    open var isPendingPriceIncreaseConsent: Bool { false }

    /// Whether the purchase waits for a parent's approval (Ask to Buy).
    open var pendingAskToBuyConfirmation: Bool { record.state == .pendingApproval }

    /// The identifier, product and state.
    open override var description: String {
        "<SKTestTransaction \(record.id) \(productIdentifier) \(state)>"
    }
}
