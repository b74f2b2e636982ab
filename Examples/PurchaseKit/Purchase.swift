#if canImport(StoreKit)
public import StoreKit
#else
public import OpenStoreKit
#endif

/// A purchased or restored transaction, as ``PaymentQueueController`` hands it to the app: what to deliver, and
/// whether the app still has to finish the transaction.
public struct Purchase: Sendable {
    /// The identifier of the product to deliver.
    public let productIdentifier: String
    /// How many units were bought.
    public let quantity: Int
    /// The App Store's identifier of the transaction.
    public let transactionIdentifier: String?
    /// When the App Store recorded the transaction.
    public let transactionDate: Date?
    /// For a restored transaction, the identifier of the purchase it restores; `nil` otherwise.
    public let originalTransactionIdentifier: String?
    /// The transaction itself, for anything this summary leaves out.
    public let transaction: SKPaymentTransaction
    /// Whether the app must call ``PaymentQueueController/finish(_:)`` once it delivered the product. `false` when
    /// the controller already finished the transaction.
    public let needsFinishTransaction: Bool

    /// A summary of `transaction`; `needsFinishTransaction` says whether the app still has to finish it.
    public init(transaction: SKPaymentTransaction, needsFinishTransaction: Bool) {
        productIdentifier = transaction.payment.productIdentifier
        quantity = transaction.payment.quantity
        transactionIdentifier = transaction.transactionIdentifier
        transactionDate = transaction.transactionDate
        originalTransactionIdentifier = transaction.original?.transactionIdentifier
        self.transaction = transaction
        self.needsFinishTransaction = needsFinishTransaction
    }
}

/// How a purchase started with ``PaymentQueueController/purchase(_:quantity:applicationUsername:simulatesAskToBuyInSandbox:finishesTransaction:completion:)``
/// ended.
public enum PurchaseOutcome: Sendable {
    /// The customer paid: deliver the product.
    case purchased(Purchase)
    /// The purchase waits for someone else's approval (Ask to Buy). If it is approved later, the purchase reaches
    /// ``PaymentQueueController/unfinishedPurchasesHandler``.
    case deferred(productIdentifier: String)
    /// The purchase failed or the customer cancelled it; the transaction is finished.
    case failed(SKError)

    /// Whether the customer cancelled the purchase: nothing to tell them.
    public var isCancelled: Bool {
        if case .failed(let error) = self { return error.code == .paymentCancelled }
        return false
    }

    /// The purchase, when the customer paid.
    public var purchase: Purchase? {
        if case .purchased(let purchase) = self { return purchase }
        return nil
    }

    /// The error, when the purchase failed.
    public var error: SKError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}

/// How a restore started with ``PaymentQueueController/restorePurchases(applicationUsername:finishesTransactions:completion:)``
/// ended.
public struct RestoreOutcome: Sendable {
    /// The purchases the App Store restored, in the order they arrived.
    public var restoredPurchases: [Purchase]
    /// Why the restore stopped, when it failed; purchases restored before the failure are still listed.
    public var error: SKError?

    /// A restore outcome.
    public init(restoredPurchases: [Purchase], error: SKError?) {
        self.restoredPurchases = restoredPurchases
        self.error = error
    }

    /// The identifiers of the restored products, without repeats, in the order they first arrived.
    public var restoredProductIdentifiers: [String] {
        var seen = Set<String>()
        return restoredPurchases.map(\.productIdentifier).filter { seen.insert($0).inserted }
    }
}
