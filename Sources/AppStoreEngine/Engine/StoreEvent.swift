public import Foundation

/// Something that changed in a store, for clients that keep devices up to date.
public enum StoreEvent: Sendable, Hashable {
    /// A transaction was created or changed state (purchase, approval, decline, resolved issue, restore).
    case transactionUpdated(TransactionRecord)
    /// The App Store refunded or revoked these transactions.
    case transactionsRevoked([TransactionRecord])
    /// These transactions were deleted (test control).
    case transactionsDeleted([UInt64])
    /// Every transaction of the store was deleted (test control).
    case transactionsCleared
    /// A customer's refund request for this transaction was made, received consumption information or was declined
    /// (``TransactionRecord/refundRequest``): nothing a device holds changed, but what the store shows of it did.
    case refundRequestChanged(TransactionRecord)
    /// An account moved to another storefront.
    case storefrontChanged(accountID: String, storefront: String)
    /// A customer started a promoted purchase on the App Store; the app's devices offer it to the app.
    case purchaseIntentAdded(PurchaseIntentRecord)
    /// The App Store asked a subscriber to consent to a price increase; the app may show its consent sheet.
    case priceIncreaseConsentRequested(SubscriptionRecord)
    /// These subscriptions changed: a renewal, an expiry, billing retry or a grace period, auto-renew turned off or on,
    /// an upgrade. StoreKit 2's `Product.SubscriptionInfo.Status.updates` follows them.
    case subscriptionsChanged([SubscriptionRecord])
    /// Notifications were added to the outbox, or one's delivery state changed (an attempt, a redelivery).
    case notificationsChanged
    /// The store's clock was moved forward to this date (what was due on the way has been applied and announced).
    case clockMoved(Date)
    /// The store's settings (test switches, storefront, time rate) changed.
    case settingsChanged
    /// Another process or server sharing the storage committed changes to this store (see
    /// ``ChangeSignalingStorage``); what changed is not known, so listeners read what they show again.
    case changedElsewhere
}
