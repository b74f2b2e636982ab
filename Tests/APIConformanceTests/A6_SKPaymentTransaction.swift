// A.6 SKPaymentTransaction and SKPaymentTransactionState, checked against api-surface.md: each declaration's check
// follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A transaction subclass in another module, the test double apps write: Apple's getters are `open`.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceTransaction: SKPaymentTransaction, @unchecked Sendable {
    // A.6 SKPaymentTransaction.error
    override var error: (any Error)? { nil }
    // A.6 SKPaymentTransaction.original
    override var original: SKPaymentTransaction? { nil }
    // A.6 SKPaymentTransaction.payment
    override var payment: SKPayment { ConformancePayment() }
    // A.6 SKPaymentTransaction.downloads
    override var downloads: [SKDownload] { [] }
    // A.6 SKPaymentTransaction.transactionDate
    override var transactionDate: Date? { Date(timeIntervalSince1970: 0) }
    // A.6 SKPaymentTransaction.transactionIdentifier
    override var transactionIdentifier: String? { "1000000001" }
    // A.6 SKPaymentTransaction.transactionState
    override var transactionState: SKPaymentTransactionState { .purchased }
}

/// Names every case: a case added to or removed from `SKPaymentTransactionState` breaks this `switch`.
private func name(_ state: SKPaymentTransactionState) -> String {
    switch state {
    case .purchasing: "purchasing"
    case .purchased: "purchased"
    case .failed: "failed"
    case .restored: "restored"
    case .deferred: "deferred"
    }
}

@Suite("A.6 SKPaymentTransaction and SKPaymentTransactionState have Apple's declarations")
struct SKPaymentTransactionConformance {
    @Test("A.6 SKPaymentTransaction: the class and its properties")
    func transaction() {
        // A.6 SKPaymentTransaction — open class, NSObject subclass, Sendable (NS_SWIFT_SENDABLE)
        requireNSObjectSubclass(SKPaymentTransaction.self)
        requireSendable(SKPaymentTransaction.self)
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKPaymentTransaction = { SKPaymentTransaction() }
        let _: () -> ConformanceTransaction = { ConformanceTransaction() }

        // A.6 SKPaymentTransaction.error
        let _: KeyPath<SKPaymentTransaction, (any Error)?> = \.error
        // A.6 SKPaymentTransaction.original
        let _: KeyPath<SKPaymentTransaction, SKPaymentTransaction?> = \.original
        // A.6 SKPaymentTransaction.payment
        let _: KeyPath<SKPaymentTransaction, SKPayment> = \.payment
        // A.6 SKPaymentTransaction.downloads
        let _: KeyPath<SKPaymentTransaction, [SKDownload]> = \.downloads
        // A.6 SKPaymentTransaction.transactionDate
        let _: KeyPath<SKPaymentTransaction, Date?> = \.transactionDate
        // A.6 SKPaymentTransaction.transactionIdentifier
        let _: KeyPath<SKPaymentTransaction, String?> = \.transactionIdentifier
        // A.6 SKPaymentTransaction.transactionState
        let _: KeyPath<SKPaymentTransaction, SKPaymentTransactionState> = \.transactionState
    }

    @Test("A.6 SKPaymentTransaction.description reads the properties a subclass overrides")
    func descriptionOfADouble() {
        // A.6 SKPaymentTransaction.description — NSObject's, reflecting overridable properties
        let description = ConformanceTransaction().description
        #expect(description.contains("conformance"), "A.6 description shows the overridden payment's product")
        #expect(description.contains("purchased"), "A.6 description shows the overridden transactionState")
        #expect(description.contains("1000000001"), "A.6 description shows the overridden transactionIdentifier")
    }

    @Test("A.6 SKPaymentTransactionState: Int raw values in Apple's order, every case, Sendable")
    func state() {
        // A.6 SKPaymentTransactionState — enum: Int, Sendable
        requireRawValue(SKPaymentTransactionState.self, Int.self)
        requireSendable(SKPaymentTransactionState.self)
        let _: (Int) -> SKPaymentTransactionState? = SKPaymentTransactionState.init(rawValue:)
        #expect(name(.purchasing) == "purchasing")

        // A.6 SKPaymentTransactionState.purchasing = 0
        #expect(SKPaymentTransactionState.purchasing.rawValue == 0, "A.6 SKPaymentTransactionState.purchasing = 0")
        // A.6 SKPaymentTransactionState.purchased = 1
        #expect(SKPaymentTransactionState.purchased.rawValue == 1, "A.6 SKPaymentTransactionState.purchased = 1")
        // A.6 SKPaymentTransactionState.failed = 2
        #expect(SKPaymentTransactionState.failed.rawValue == 2, "A.6 SKPaymentTransactionState.failed = 2")
        // A.6 SKPaymentTransactionState.restored = 3
        #expect(SKPaymentTransactionState.restored.rawValue == 3, "A.6 SKPaymentTransactionState.restored = 3")
        // A.6 SKPaymentTransactionState.deferred = 4
        #expect(SKPaymentTransactionState.deferred.rawValue == 4, "A.6 SKPaymentTransactionState.deferred = 4")
        #expect(SKPaymentTransactionState(rawValue: 5) == nil, "A.6 SKPaymentTransactionState has no case 5")
    }
}
