// A.1 SKPaymentQueue, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A payment queue subclass in another module: every member Apple declares `open` must be overridable here, with
/// Apple's exact signature (an override cannot change a type, add `throws` or drop a label).
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformancePaymentQueue: SKPaymentQueue, @unchecked Sendable {
    // A.1 SKPaymentQueue.default() — open class func returning Self
    override class func `default`() -> Self { self.init() }
    // A.1 SKPaymentQueue.canMakePayments() — open class func
    override class func canMakePayments() -> Bool { true }
    // A.1 SKPaymentQueue.delegate — weak open var
    override var delegate: (any SKPaymentQueueDelegate)? {
        get { super.delegate }
        set { super.delegate = newValue }
    }
    // A.1 SKPaymentQueue.storefront — open var, get
    override var storefront: SKStorefront? { nil }
    // A.1 SKPaymentQueue.add(_:) (payment)
    override func add(_ payment: SKPayment) {}
    // A.1 SKPaymentQueue.add(_:) (observer)
    override func add(_ observer: any SKPaymentTransactionObserver) {}
    // A.1 SKPaymentQueue.remove(_:)
    override func remove(_ observer: any SKPaymentTransactionObserver) {}
    // A.1 SKPaymentQueue.transactionObservers
    override var transactionObservers: [any SKPaymentTransactionObserver] { [] }
    // A.1 SKPaymentQueue.transactions
    override var transactions: [SKPaymentTransaction] { [] }
    // A.1 SKPaymentQueue.finishTransaction(_:)
    override func finishTransaction(_ transaction: SKPaymentTransaction) {}
    // A.1 SKPaymentQueue.restoreCompletedTransactions()
    override func restoreCompletedTransactions() {}
    // A.1 SKPaymentQueue.restoreCompletedTransactions(withApplicationUsername:)
    override func restoreCompletedTransactions(withApplicationUsername username: String?) {}
    // A.1 SKPaymentQueue.start(_:)
    override func start(_ downloads: [SKDownload]) {}
    // A.1 SKPaymentQueue.pause(_:)
    override func pause(_ downloads: [SKDownload]) {}
    // A.1 SKPaymentQueue.resume(_:)
    override func resume(_ downloads: [SKDownload]) {}
    // A.1 SKPaymentQueue.cancel(_:)
    override func cancel(_ downloads: [SKDownload]) {}
    // A.1 SKPaymentQueue.showPriceConsentIfNeeded()
    override func showPriceConsentIfNeeded() {}
    // A.1 SKPaymentQueue.presentCodeRedemptionSheet()
    override func presentCodeRedemptionSheet() {}
}

/// A delegate for the weak-reference check.
private final class QueueDelegate: NSObject, SKPaymentQueueDelegate {}

@Suite("A.1 SKPaymentQueue has Apple's declarations")
struct SKPaymentQueueConformance {
    @Test("A.1 SKPaymentQueue: the class, its members' types and labels")
    func declarations() {
        // A.1 SKPaymentQueue — open class, NSObject subclass, Sendable (NS_SWIFT_SENDABLE)
        requireNSObjectSubclass(SKPaymentQueue.self)
        requireSendable(SKPaymentQueue.self)
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKPaymentQueue = { SKPaymentQueue() }
        let _: () -> ConformancePaymentQueue = { ConformancePaymentQueue() }

        // A.1 SKPaymentQueue.default()
        let _: () -> SKPaymentQueue = SKPaymentQueue.default
        let _: () -> ConformancePaymentQueue = ConformancePaymentQueue.default

        // A.1 SKPaymentQueue.canMakePayments()
        let _: () -> Bool = SKPaymentQueue.canMakePayments

        // A.1 SKPaymentQueue.delegate
        let _: ReferenceWritableKeyPath<SKPaymentQueue, (any SKPaymentQueueDelegate)?> = \.delegate

        // A.1 SKPaymentQueue.storefront
        let _: KeyPath<SKPaymentQueue, SKStorefront?> = \.storefront

        // A.1 SKPaymentQueue.add(_:) (payment)
        let _: (SKPaymentQueue) -> (SKPayment) -> Void = SKPaymentQueue.add(_:)
        let _: (SKPaymentQueue, SKPayment) -> Void = { $0.add($1) }

        // A.1 SKPaymentQueue.add(_:) (observer)
        let _: (SKPaymentQueue) -> (any SKPaymentTransactionObserver) -> Void = SKPaymentQueue.add(_:)
        let _: (SKPaymentQueue, any SKPaymentTransactionObserver) -> Void = { $0.add($1) }

        // A.1 SKPaymentQueue.remove(_:)
        let _: (SKPaymentQueue) -> (any SKPaymentTransactionObserver) -> Void = SKPaymentQueue.remove(_:)

        // A.1 SKPaymentQueue.transactionObservers
        let _: KeyPath<SKPaymentQueue, [any SKPaymentTransactionObserver]> = \.transactionObservers

        // A.1 SKPaymentQueue.transactions
        let _: KeyPath<SKPaymentQueue, [SKPaymentTransaction]> = \.transactions

        // A.1 SKPaymentQueue.finishTransaction(_:)
        let _: (SKPaymentQueue) -> (SKPaymentTransaction) -> Void = SKPaymentQueue.finishTransaction(_:)

        // A.1 SKPaymentQueue.restoreCompletedTransactions()
        let _: (SKPaymentQueue) -> () -> Void = SKPaymentQueue.restoreCompletedTransactions

        // A.1 SKPaymentQueue.restoreCompletedTransactions(withApplicationUsername:)
        let _: (SKPaymentQueue) -> (String?) -> Void = SKPaymentQueue.restoreCompletedTransactions(withApplicationUsername:)

        // A.1 SKPaymentQueue.start(_:)
        let _: (SKPaymentQueue) -> ([SKDownload]) -> Void = SKPaymentQueue.start(_:)

        // A.1 SKPaymentQueue.pause(_:)
        let _: (SKPaymentQueue) -> ([SKDownload]) -> Void = SKPaymentQueue.pause(_:)

        // A.1 SKPaymentQueue.resume(_:)
        let _: (SKPaymentQueue) -> ([SKDownload]) -> Void = SKPaymentQueue.resume(_:)

        // A.1 SKPaymentQueue.cancel(_:)
        let _: (SKPaymentQueue) -> ([SKDownload]) -> Void = SKPaymentQueue.cancel(_:)

        // A.1 SKPaymentQueue.showPriceConsentIfNeeded()
        let _: (SKPaymentQueue) -> () -> Void = SKPaymentQueue.showPriceConsentIfNeeded

        // A.1 SKPaymentQueue.presentCodeRedemptionSheet()
        let _: (SKPaymentQueue) -> () -> Void = SKPaymentQueue.presentCodeRedemptionSheet
    }

    @Test("A.1 SKPaymentQueue.delegate holds its delegate weakly")
    func delegateIsWeak() {
        // A.1 SKPaymentQueue.delegate — weak
        let queue = ConformancePaymentQueue()
        var delegate: QueueDelegate? = QueueDelegate()
        queue.delegate = delegate
        #expect(queue.delegate === delegate, "A.1 SKPaymentQueue.delegate keeps the delegate set")
        delegate = nil
        #expect(queue.delegate == nil, "A.1 SKPaymentQueue.delegate is weak")
    }
}
