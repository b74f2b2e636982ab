public import Foundation

/// The methods a payment queue calls to hand over transactions, restores, promoted purchases, revoked
/// purchases, storefront changes and downloads.
///
/// Add your observer with `SKPaymentQueue.default().add(_:)` when the app launches. The queue calls it on its
/// callback queue (the main queue unless you made the queue with another one). Only
/// ``paymentQueue(_:updatedTransactions:)`` is required: every other method has a default implementation
/// that does nothing, and the queue calls your own implementation when your type declares one — including
/// in classes that inherit from `NSObject`, as StoreKit observers do.
///
/// Declare every optional method you use in the class that adopts the protocol; a subclass may override it
/// there. Without Objective-C's `respondsToSelector:`, a method only a subclass declares is not seen: Swift
/// binds the protocol's default to the adopting class.
public protocol SKPaymentTransactionObserver: NSObjectProtocol {
    /// Tells the observer that transactions were added to the queue or changed state.
    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction])

    /// Tells the observer that finished transactions left the queue.
    func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction])

    /// Tells the observer that a restore failed; no more restored transactions follow.
    func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error)

    /// Tells the observer that every restored transaction was delivered.
    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue)

    /// Tells the observer that downloads changed state or progressed.
    func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload])

    /// Asks whether to continue a purchase the customer started on the App Store (a promoted in-app purchase).
    ///
    /// Return `true` to buy now. Return `false` to defer or cancel: keep `payment` and add it to the queue
    /// later to continue. When no observer implements this method, the purchase is dropped.
    func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool

    /// Tells the observer that the customer's storefront changed.
    func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue)

    /// Tells the observer that the customer lost the products: a refund, or Family Sharing stopped sharing
    /// them. The receipt is updated before this call.
    func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String])
}

extension SKPaymentTransactionObserver {
    /// Does nothing.
    public func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {}

    /// Does nothing.
    public func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {}

    /// Does nothing.
    public func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {}

    /// Does nothing.
    public func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload]) {}

    /// Stands for "not implemented": the queue drops the promoted purchase unless another observer implements
    /// the method.
    public func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
        UnimplementedObserverMethods.record(self)
        return false
    }

    /// Does nothing.
    public func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue) {}

    /// Does nothing.
    public func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {}
}

/// Lets the queue tell a default `shouldAddStorePayment` from the app's own, as StoreKit checks whether the
/// observer responds to the selector.
enum UnimplementedObserverMethods {
    private static let called = Locked<Set<ObjectIdentifier>>([])

    static func record(_ observer: AnyObject) {
        _ = called.withLock { $0.insert(ObjectIdentifier(observer)) }
    }

    /// Calls `body` and says whether it ran the default implementation for `observer`.
    static func ranDefault<Result>(for observer: AnyObject, _ body: () -> Result) -> (Result, Bool) {
        let id = ObjectIdentifier(observer)
        _ = called.withLock { $0.remove(id) }
        let result = body()
        let ranDefault = called.withLock { $0.remove(id) != nil }
        return (result, ranDefault)
    }
}

/// Provides information a payment queue needs to complete transactions.
///
/// Both methods have default implementations that answer `true`.
public protocol SKPaymentQueueDelegate: NSObjectProtocol {
    /// Asks whether a transaction in progress should continue after the customer's storefront changed.
    /// Return `false` to fail it with `SKError.storeProductNotAvailable`.
    func paymentQueue(_ paymentQueue: SKPaymentQueue, shouldContinue transaction: SKPaymentTransaction, in newStorefront: SKStorefront) -> Bool

    /// Asks whether to show a price-increase consent sheet now.
    func paymentQueueShouldShowPriceConsent(_ paymentQueue: SKPaymentQueue) -> Bool
}

extension SKPaymentQueueDelegate {
    /// Continues the transaction.
    public func paymentQueue(_ paymentQueue: SKPaymentQueue, shouldContinue transaction: SKPaymentTransaction, in newStorefront: SKStorefront) -> Bool {
        true
    }

    /// Shows the sheet.
    public func paymentQueueShouldShowPriceConsent(_ paymentQueue: SKPaymentQueue) -> Bool {
        true
    }
}
