import AppStoreEngine
public import Foundation

/// Where a transaction in the payment queue stands. Raw values are Apple's.
public enum SKPaymentTransactionState: Int, Sendable {
    /// The App Store is processing the payment.
    case purchasing = 0
    /// The customer was charged; deliver the product, then finish the transaction.
    case purchased = 1
    /// The payment failed or was cancelled; read ``SKPaymentTransaction/error``, then finish the transaction.
    case failed = 2
    /// A restore replayed an earlier purchase; deliver the product again, then finish the transaction.
    case restored = 3
    /// The purchase waits for someone else, such as a parent with Ask to Buy; wait for another update.
    case deferred = 4
}

/// A transaction in the payment queue: a payment on its way through the App Store, or a restored purchase.
///
/// The queue updates one transaction object in place as its state changes, and hands it to the observers'
/// `paymentQueue(_:updatedTransactions:)`. Finish every transaction that is purchased, restored or failed with
/// `SKPaymentQueue.finishTransaction(_:)`; until then it comes back each time the app adds its observer.
///
/// `@unchecked Sendable`: the changing state is guarded by the locks of `state`, `recordID` and `isFinished`;
/// the payment is a private immutable `SKPayment` copy.
open class SKPaymentTransaction: NSObject, @unchecked Sendable {
    struct Snapshot: Sendable {
        var state: SKPaymentTransactionState
        var identifier: String? = nil
        var date: Date? = nil
        var error: SKError? = nil
        var original: SKPaymentTransaction? = nil
        var downloads: [SKDownload] = []
        /// The store's state of the transaction, when the store has it.
        var storeState: TransactionState? = nil
        /// The content the store hosts for the product.
        var hostedContent: HostedContent? = nil
    }

    private let state: Locked<Snapshot>
    /// The latest state the queue sent to the callback queue; ``snapshot`` catches up when the callback runs.
    private let sent: Locked<Snapshot?> = Locked(nil)
    private let paymentCopy: SKPayment
    /// The store's transaction, once the store has one.
    let recordID: Locked<UInt64?>
    /// Set when the app finished the transaction.
    let isFinished = Locked(false)

    /// A purchasing transaction of an empty payment, as StoreKit's `init()` makes. Test doubles subclass
    /// `SKPaymentTransaction` and override the properties (`transactionState`, `payment`, …).
    public override init() {
        paymentCopy = SKPayment()
        state = Locked(Snapshot(state: .purchasing))
        recordID = Locked(nil)
        super.init()
    }

    init(payment: SKPayment.Details, snapshot: Snapshot, recordID: UInt64? = nil) {
        paymentCopy = SKPayment(details: payment)
        state = Locked(snapshot)
        self.recordID = Locked(recordID)
        super.init()
    }

    var snapshot: Snapshot { state.current }
    var paymentDetails: SKPayment.Details { paymentCopy.details }

    /// The state the observers will have seen once the callback queue caught up.
    var sentSnapshot: Snapshot { sent.current ?? state.current }

    func noteSent(_ snapshot: Snapshot) {
        sent.withLock { $0 = snapshot }
    }

    func apply(_ snapshot: Snapshot) {
        state.withLock { $0 = snapshot }
    }

    /// The error that made the transaction fail; only for ``SKPaymentTransactionState/failed``.
    open var error: (any Error)? { state.current.error }

    /// The purchase a restored transaction replays; only for ``SKPaymentTransactionState/restored``.
    open var original: SKPaymentTransaction? { state.current.original }

    /// The payment this transaction processes.
    open var payment: SKPayment { paymentCopy }

    /// The hosted content to download for the product.
    open var downloads: [SKDownload] { state.current.downloads }

    /// When the transaction was added to the App Store; only for purchased and restored transactions.
    open var transactionDate: Date? { state.current.date }

    /// The App Store's identifier of the transaction; only for purchased and restored transactions.
    open var transactionIdentifier: String? { state.current.identifier }

    /// Where the transaction stands.
    open var transactionState: SKPaymentTransactionState { state.current.state }

    /// The product, state and identifier, read through the overridable properties (``payment``,
    /// ``transactionState``, ``transactionIdentifier``), so a test double that overrides them describes itself by
    /// its own values; the class name is the dynamic one.
    open override var description: String {
        "<\(type(of: self)) \(payment.productIdentifier) \(transactionState) \(transactionIdentifier ?? "-")>"
    }
}
