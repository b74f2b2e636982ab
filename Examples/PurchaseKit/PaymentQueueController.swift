#if canImport(StoreKit)
public import StoreKit
#else
public import OpenStoreKit
#endif

/// Buys and restores products through an `SKPaymentQueue`, with a completion handler per purchase and per restore.
///
/// Make one controller when the app launches, keep it for the app's lifetime (the payment queue holds its observers
/// weakly), set ``unfinishedPurchasesHandler`` and call ``startObserving()``: transactions left unfinished by an
/// earlier launch, approved Ask to Buy requests and purchases made on other devices arrive there. Then:
///
/// ```swift
/// controller.purchase(product) { outcome in
///     switch outcome {
///     case .purchased(let purchase): unlock(purchase.productIdentifier)
///     case .deferred: showWaitingForApproval()
///     case .failed(let error) where error.code == .paymentCancelled: break
///     case .failed(let error): show(error)
///     }
/// }
/// ```
///
/// Transactions are routed to the purchase that asked for them by product identifier, oldest purchase first. Failed
/// transactions are always finished; purchased and restored ones are finished before the completion handler runs
/// unless the caller asked to finish them itself. Handlers run on the queue StoreKit calls observers on (the main
/// queue).
///
/// `@unchecked Sendable`: the pending purchases, the pending restore and the handlers are guarded by `lock`.
open class PaymentQueueController: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
    /// A purchase waiting for its transaction to purchase, fail or defer.
    private struct PendingPurchase {
        let productIdentifier: String
        let finishesTransaction: Bool
        let completion: (PurchaseOutcome) -> Void
    }

    /// A restore waiting for the queue to say it is over.
    private struct PendingRestore {
        let finishesTransactions: Bool
        var restored: [Purchase] = []
        var completions: [(RestoreOutcome) -> Void]
    }

    /// The queue the controller adds payments to and observes.
    public let paymentQueue: SKPaymentQueue

    private let lock = NSLock()
    private var isObserving = false
    private var pendingPurchases: [PendingPurchase] = []
    private var pendingRestore: PendingRestore?
    private var unfinishedHandler: (([Purchase]) -> Void)?
    private var finishesUnfinished = true
    private var storePaymentHandler: ((SKPayment, SKProduct) -> Bool)?
    private var revocationHandler: (([String]) -> Void)?

    /// A controller for `paymentQueue`; apps use the default queue, tests pass a queue of their own.
    public init(paymentQueue: SKPaymentQueue = .default()) {
        self.paymentQueue = paymentQueue
        super.init()
    }

    deinit {
        if isObserving { paymentQueue.remove(self) }
    }

    // MARK: Handlers

    /// Called with purchased and restored transactions that no purchase or restore of this controller asked for:
    /// transactions an earlier launch did not finish, Ask to Buy requests approved later, purchases made on another
    /// device or started on the App Store. Without a handler they stay in the queue, unfinished, until there is one.
    public var unfinishedPurchasesHandler: (([Purchase]) -> Void)? {
        get { lock.withLock { unfinishedHandler } }
        set { lock.withLock { unfinishedHandler = newValue } }
    }

    /// Whether the controller finishes the transactions it hands to ``unfinishedPurchasesHandler`` before calling
    /// it (the default). Set it to `false` to deliver content first and call ``finish(_:)`` afterwards.
    public var finishesUnfinishedPurchases: Bool {
        get { lock.withLock { finishesUnfinished } }
        set { lock.withLock { finishesUnfinished = newValue } }
    }

    /// Decides whether a purchase the customer started on the App Store (a promoted in-app purchase) goes ahead
    /// now. Return `false` to keep the payment and pass it to ``purchase(_:finishesTransaction:completion:)`` later.
    /// Without a handler, promoted purchases go ahead and reach ``unfinishedPurchasesHandler``.
    public var shouldAddStorePaymentHandler: ((SKPayment, SKProduct) -> Bool)? {
        get { lock.withLock { storePaymentHandler } }
        set { lock.withLock { storePaymentHandler = newValue } }
    }

    /// Called with the identifiers of products the customer no longer owns: a refund, or Family Sharing stopped.
    public var entitlementRevocationHandler: (([String]) -> Void)? {
        get { lock.withLock { revocationHandler } }
        set { lock.withLock { revocationHandler = newValue } }
    }

    // MARK: Observing

    /// Adds the controller to the payment queue's observers. Call it once the handlers are set, as early as possible
    /// at launch; purchasing and restoring call it too. Calling it again does nothing.
    open func startObserving() {
        let first = lock.withLock { () -> Bool in
            defer { isObserving = true }
            return !isObserving
        }
        if first { paymentQueue.add(self) }
    }

    /// Removes the controller from the payment queue's observers; purchases and restores in progress never complete.
    open func stopObserving() {
        let wasObserving = lock.withLock { () -> Bool in
            defer { isObserving = false }
            return isObserving
        }
        if wasObserving { paymentQueue.remove(self) }
    }

    // MARK: Purchasing

    /// Buys `product`.
    ///
    /// - Parameters:
    ///   - product: The product, from ``ProductsCache`` or an `SKProductsRequest`.
    ///   - quantity: How many units to buy; only consumables may be bought several at a time.
    ///   - applicationUsername: An opaque identifier of the app's user account, for the App Store's fraud checks.
    ///   - simulatesAskToBuyInSandbox: Whether the sandbox behaves as if Ask to Buy were on.
    ///   - finishesTransaction: Whether the controller finishes the transaction before `completion` runs; pass
    ///     `false` to deliver the product first and call ``finish(_:)`` afterwards.
    ///   - completion: Called once, when the purchase succeeded, failed or was deferred.
    open func purchase(
        _ product: SKProduct, quantity: Int = 1, applicationUsername: String? = nil,
        simulatesAskToBuyInSandbox: Bool = false, finishesTransaction: Bool = true,
        completion: @escaping (PurchaseOutcome) -> Void
    ) {
        let payment = SKMutablePayment(product: product)
        payment.quantity = quantity
        payment.applicationUsername = applicationUsername
        payment.simulatesAskToBuyInSandbox = simulatesAskToBuyInSandbox
        purchase(payment, finishesTransaction: finishesTransaction, completion: completion)
    }

    /// Adds `payment` to the queue and calls `completion` once its transaction succeeded, failed or was deferred.
    /// Use it for payments made elsewhere: a promoted purchase kept for later, a payment with a discount.
    open func purchase(_ payment: SKPayment, finishesTransaction: Bool = true, completion: @escaping (PurchaseOutcome) -> Void) {
        startObserving()
        lock.withLock {
            pendingPurchases.append(PendingPurchase(
                productIdentifier: payment.productIdentifier, finishesTransaction: finishesTransaction, completion: completion
            ))
        }
        paymentQueue.add(payment)
    }

    /// Restores the customer's non-consumables and auto-renewable subscriptions.
    ///
    /// A restore asked for while another runs joins it: both completions get the same outcome.
    ///
    /// - Parameters:
    ///   - applicationUsername: The identifier the app gave its payments, if any.
    ///   - finishesTransactions: Whether the controller finishes each restored transaction before `completion` runs.
    ///   - completion: Called once, when the App Store has sent every restored transaction, or failed.
    open func restorePurchases(
        applicationUsername: String? = nil, finishesTransactions: Bool = true,
        completion: @escaping (RestoreOutcome) -> Void
    ) {
        startObserving()
        let alreadyRunning = lock.withLock { () -> Bool in
            if pendingRestore != nil {
                pendingRestore?.completions.append(completion)
                return true
            }
            pendingRestore = PendingRestore(finishesTransactions: finishesTransactions, completions: [completion])
            return false
        }
        guard !alreadyRunning else { return }
        if let applicationUsername {
            paymentQueue.restoreCompletedTransactions(withApplicationUsername: applicationUsername)
        } else {
            paymentQueue.restoreCompletedTransactions()
        }
    }

    /// Finishes a purchase the controller left unfinished (``Purchase/needsFinishTransaction``), once its content is
    /// delivered.
    open func finish(_ purchase: Purchase) {
        paymentQueue.finishTransaction(purchase.transaction)
    }

    // MARK: SKPaymentTransactionObserver

    /// Routes each transaction to the purchase or restore that asked for it, finishing it as asked.
    open func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        var unfinished: [Purchase] = []
        for transaction in transactions {
            switch transaction.transactionState {
            case .purchasing:
                // The App Store is still working on it; finishing it now would be a programming error.
                break
            case .purchased:
                if let purchase = handlePurchased(transaction) { unfinished.append(purchase) }
            case .failed:
                handleFailed(transaction)
            case .restored:
                if let purchase = handleRestored(transaction) { unfinished.append(purchase) }
            case .deferred:
                handleDeferred(transaction)
            @unknown default:
                break
            }
        }
        deliverUnfinished(unfinished)
    }

    /// Completes the pending restore with the transactions it collected.
    open func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
        completeRestore(error: nil)
    }

    /// Completes the pending restore with the error, keeping what was restored before it.
    open func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {
        completeRestore(error: SKError.fromStoreKit(error))
    }

    /// Asks ``shouldAddStorePaymentHandler``; `true` without one.
    open func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
        guard let handler = shouldAddStorePaymentHandler else { return true }
        return handler(payment, product)
    }

    /// Tells ``entitlementRevocationHandler``.
    open func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {
        entitlementRevocationHandler?(productIdentifiers)
    }

    // MARK: Routing

    /// Takes the oldest pending purchase of the transaction's product, if there is one.
    private func takePendingPurchase(for transaction: SKPaymentTransaction) -> PendingPurchase? {
        let productIdentifier = transaction.payment.productIdentifier
        return lock.withLock {
            guard let index = pendingPurchases.firstIndex(where: { $0.productIdentifier == productIdentifier }) else { return nil }
            return pendingPurchases.remove(at: index)
        }
    }

    /// Completes the pending purchase, or returns the purchase for ``unfinishedPurchasesHandler``.
    private func handlePurchased(_ transaction: SKPaymentTransaction) -> Purchase? {
        guard let pending = takePendingPurchase(for: transaction) else { return unfinishedPurchase(transaction) }
        if pending.finishesTransaction { paymentQueue.finishTransaction(transaction) }
        pending.completion(.purchased(Purchase(transaction: transaction, needsFinishTransaction: !pending.finishesTransaction)))
        return nil
    }

    /// Finishes the transaction: a failed payment has nothing to deliver. Tells the pending purchase, if any.
    private func handleFailed(_ transaction: SKPaymentTransaction) {
        let pending = takePendingPurchase(for: transaction)
        paymentQueue.finishTransaction(transaction)
        pending?.completion(.failed(SKError.fromStoreKit(transaction.error)))
    }

    /// Adds the purchase to the running restore, or returns it for ``unfinishedPurchasesHandler``.
    private func handleRestored(_ transaction: SKPaymentTransaction) -> Purchase? {
        let finishes = lock.withLock { pendingRestore?.finishesTransactions }
        guard let finishes else { return unfinishedPurchase(transaction) }
        if finishes { paymentQueue.finishTransaction(transaction) }
        let purchase = Purchase(transaction: transaction, needsFinishTransaction: !finishes)
        lock.withLock { pendingRestore?.restored.append(purchase) }
        return nil
    }

    /// Tells the pending purchase it waits for approval. The transaction stays in the queue: StoreKit updates it
    /// when the request is answered.
    private func handleDeferred(_ transaction: SKPaymentTransaction) {
        takePendingPurchase(for: transaction)?.completion(.deferred(productIdentifier: transaction.payment.productIdentifier))
    }

    /// A purchase no one asked for, finished if the handler wants it so; `nil` while there is no handler to deliver
    /// it, so the transaction stays in the queue.
    private func unfinishedPurchase(_ transaction: SKPaymentTransaction) -> Purchase? {
        let (hasHandler, finishes) = lock.withLock { (unfinishedHandler != nil, finishesUnfinished) }
        guard hasHandler else { return nil }
        if finishes { paymentQueue.finishTransaction(transaction) }
        return Purchase(transaction: transaction, needsFinishTransaction: !finishes)
    }

    private func deliverUnfinished(_ purchases: [Purchase]) {
        guard !purchases.isEmpty, let handler = unfinishedPurchasesHandler else { return }
        handler(purchases)
    }

    private func completeRestore(error: SKError?) {
        guard let restore = lock.withLock({ () -> PendingRestore? in
            defer { pendingRestore = nil }
            return pendingRestore
        }) else { return }
        let outcome = RestoreOutcome(restoredPurchases: restore.restored, error: error)
        for completion in restore.completions { completion(outcome) }
    }
}
