// C.3 SKTestTransaction, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// A test transaction subclass in another module: Apple's getters are `open`.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceTestTransaction: SKTestTransaction, @unchecked Sendable {
    // C.3 SKTestTransaction.identifier
    override var identifier: Int { 1 }
    // C.3 SKTestTransaction.originalTransactionIdentifier
    override var originalTransactionIdentifier: Int { 1 }
    // C.3 SKTestTransaction.productIdentifier
    override var productIdentifier: String { "" }
    // C.3 SKTestTransaction.state
    override var state: SKPaymentTransactionState { .purchased }
    // C.3 SKTestTransaction.purchaseDate
    override var purchaseDate: Date { Date(timeIntervalSince1970: 0) }
    // C.3 SKTestTransaction.cancelDate
    override var cancelDate: Date? { nil }
    // C.3 SKTestTransaction.expirationDate
    override var expirationDate: Date? { nil }
    // C.3 SKTestTransaction.autoRenewingEnabled
    override var autoRenewingEnabled: Bool { false }
    // C.3 SKTestTransaction.hasPurchaseIssue
    override var hasPurchaseIssue: Bool { false }
    // C.3 SKTestTransaction.isPendingPriceIncreaseConsent
    override var isPendingPriceIncreaseConsent: Bool { false }
    // C.3 SKTestTransaction.pendingAskToBuyConfirmation
    override var pendingAskToBuyConfirmation: Bool { false }
}

@Suite("C.3 SKTestTransaction has Apple's declarations")
struct SKTestTransactionConformance {
    @Test("C.3 SKTestTransaction: the class and its read-only properties")
    func declarations() {
        // C.3 SKTestTransaction — open class, NSObject subclass
        requireNSObjectSubclass(SKTestTransaction.self)

        // C.3 SKTestTransaction.identifier
        let _: KeyPath<SKTestTransaction, Int> = \.identifier
        // C.3 SKTestTransaction.originalTransactionIdentifier
        let _: KeyPath<SKTestTransaction, Int> = \.originalTransactionIdentifier
        // C.3 SKTestTransaction.productIdentifier
        let _: KeyPath<SKTestTransaction, String> = \.productIdentifier
        // C.3 SKTestTransaction.state
        let _: KeyPath<SKTestTransaction, SKPaymentTransactionState> = \.state
        // C.3 SKTestTransaction.purchaseDate
        let _: KeyPath<SKTestTransaction, Date> = \.purchaseDate
        // C.3 SKTestTransaction.cancelDate
        let _: KeyPath<SKTestTransaction, Date?> = \.cancelDate
        // C.3 SKTestTransaction.expirationDate
        let _: KeyPath<SKTestTransaction, Date?> = \.expirationDate
        // C.3 SKTestTransaction.autoRenewingEnabled
        let _: KeyPath<SKTestTransaction, Bool> = \.autoRenewingEnabled
        // C.3 SKTestTransaction.hasPurchaseIssue
        let _: KeyPath<SKTestTransaction, Bool> = \.hasPurchaseIssue
        // C.3 SKTestTransaction.isPendingPriceIncreaseConsent
        let _: KeyPath<SKTestTransaction, Bool> = \.isPendingPriceIncreaseConsent
        // C.3 SKTestTransaction.pendingAskToBuyConfirmation
        let _: KeyPath<SKTestTransaction, Bool> = \.pendingAskToBuyConfirmation
    }
}
