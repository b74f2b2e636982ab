public import Foundation
public import OpenStoreKit

/// A payment queue observer that records every callback, in order, for tests to inspect.
///
/// Attach it, act, wait for the queue with `SKPaymentQueue.waitUntilIdle()`, then look at ``events`` or the
/// helpers built on it. It can finish transactions as they arrive, as most apps do (``finishesTransactions``),
/// and answer promoted purchases (``acceptsStorePayments``). An OpenStoreKit addition; StoreKit has none.
///
/// ```swift
/// let observer = RecordingTransactionObserver(finishesTransactions: true)
/// session.paymentQueue.add(observer)
/// session.paymentQueue.add(SKPayment(product: premium))
/// await session.paymentQueue.waitUntilIdle()
/// #expect(observer.updatedTransactions.map(\.transactionState) == [.purchasing, .purchased])
/// ```
///
/// `@unchecked Sendable`: the recorded events and settings are guarded by the lock of `state`.
open class RecordingTransactionObserver: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
    /// One callback the queue made.
    public enum Event: Sendable {
        /// `paymentQueue(_:updatedTransactions:)`, with each transaction's state at the time of the call.
        case updated([SKPaymentTransaction], states: [SKPaymentTransactionState])
        /// `paymentQueue(_:removedTransactions:)`.
        case removed([SKPaymentTransaction])
        /// `paymentQueueRestoreCompletedTransactionsFinished(_:)`.
        case restoreFinished
        /// `paymentQueue(_:restoreCompletedTransactionsFailedWithError:)`.
        case restoreFailed(any Error)
        /// `paymentQueue(_:updatedDownloads:)`.
        case updatedDownloads([SKDownload])
        /// `paymentQueue(_:shouldAddStorePayment:for:)`, with the product asked about.
        case shouldAddStorePayment(productIdentifier: String)
        /// `paymentQueueDidChangeStorefront(_:)`, with the storefront the queue reported then.
        case storefrontChanged(countryCode: String?)
        /// `paymentQueue(_:didRevokeEntitlementsForProductIdentifiers:)`.
        case revokedEntitlements([String])
    }

    private struct State {
        var events: [Event] = []
        var finishesTransactions: Bool
        var acceptsStorePayments: Bool
    }

    private let state: Locked<State>

    /// An observer that records callbacks and finishes transactions when `finishesTransactions` is `true`.
    public init(finishesTransactions: Bool = false, acceptsStorePayments: Bool = true) {
        state = Locked(State(finishesTransactions: finishesTransactions, acceptsStorePayments: acceptsStorePayments))
        super.init()
    }

    /// Every callback so far, oldest first.
    public var events: [Event] { state.withLock { $0.events } }

    /// Whether purchased, restored and failed transactions are finished as they arrive.
    public var finishesTransactions: Bool {
        get { state.withLock { $0.finishesTransactions } }
        set { state.withLock { $0.finishesTransactions = newValue } }
    }

    /// The answer to `paymentQueue(_:shouldAddStorePayment:for:)`.
    public var acceptsStorePayments: Bool {
        get { state.withLock { $0.acceptsStorePayments } }
        set { state.withLock { $0.acceptsStorePayments = newValue } }
    }

    /// Every transaction update so far, flattened, as (transaction, state at the time of the callback).
    public var updatedTransactions: [(transaction: SKPaymentTransaction, state: SKPaymentTransactionState)] {
        events.flatMap { event -> [(transaction: SKPaymentTransaction, state: SKPaymentTransactionState)] in
            guard case .updated(let transactions, let states) = event else { return [] }
            return Array(zip(transactions, states)).map { (transaction: $0.0, state: $0.1) }
        }
    }

    /// The transactions removed from the queue so far, in order.
    public var removedTransactions: [SKPaymentTransaction] {
        events.flatMap { event -> [SKPaymentTransaction] in
            if case .removed(let transactions) = event { transactions } else { [] }
        }
    }

    /// Forgets the events recorded so far.
    public func reset() {
        state.withLock { $0.events = [] }
    }

    private func record(_ event: Event) {
        state.withLock { $0.events.append(event) }
    }

    // MARK: SKPaymentTransactionObserver

    /// Records the update, then finishes completed transactions if ``finishesTransactions`` is on.
    open func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {
        record(.updated(transactions, states: transactions.map(\.transactionState)))
        guard finishesTransactions else { return }
        for transaction in transactions where [.purchased, .restored, .failed].contains(transaction.transactionState) {
            queue.finishTransaction(transaction)
        }
    }

    /// Records the removal.
    open func paymentQueue(_ queue: SKPaymentQueue, removedTransactions transactions: [SKPaymentTransaction]) {
        record(.removed(transactions))
    }

    /// Records the end of a restore.
    open func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
        record(.restoreFinished)
    }

    /// Records a failed restore.
    open func paymentQueue(_ queue: SKPaymentQueue, restoreCompletedTransactionsFailedWithError error: any Error) {
        record(.restoreFailed(error))
    }

    /// Records the downloads' new state.
    open func paymentQueue(_ queue: SKPaymentQueue, updatedDownloads downloads: [SKDownload]) {
        record(.updatedDownloads(downloads))
    }

    /// Records the question and answers ``acceptsStorePayments``.
    open func paymentQueue(_ queue: SKPaymentQueue, shouldAddStorePayment payment: SKPayment, for product: SKProduct) -> Bool {
        record(.shouldAddStorePayment(productIdentifier: product.productIdentifier))
        return acceptsStorePayments
    }

    /// Records the storefront change.
    open func paymentQueueDidChangeStorefront(_ queue: SKPaymentQueue) {
        record(.storefrontChanged(countryCode: queue.storefront?.countryCode))
    }

    /// Records the revocation.
    open func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {
        record(.revokedEntitlements(productIdentifiers))
    }
}
