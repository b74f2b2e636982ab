// C.1 SKTestSession, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// A test session subclass in another module: Apple's `SKTestSession` members are `open`. An override repeats the exact
/// signature, so it also pins which methods throw.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceTestSession: SKTestSession, @unchecked Sendable {
    // C.1 SKTestSession.resetToDefaultState()
    override func resetToDefaultState() {}
    // C.1 SKTestSession.storefront
    override var storefront: String { get { super.storefront } set { super.storefront = newValue } }
    // C.1 SKTestSession.locale
    override var locale: Locale { get { super.locale } set { super.locale = newValue } }
    // C.1 SKTestSession.disableDialogs
    override var disableDialogs: Bool { get { super.disableDialogs } set { super.disableDialogs = newValue } }
    // C.1 SKTestSession.timeRate
    override var timeRate: SKTestSession.TimeRate { get { super.timeRate } set { super.timeRate = newValue } }
    // C.1 SKTestSession.askToBuyEnabled
    override var askToBuyEnabled: Bool { get { super.askToBuyEnabled } set { super.askToBuyEnabled = newValue } }
    // C.1 SKTestSession.interruptedPurchasesEnabled
    override var interruptedPurchasesEnabled: Bool {
        get { super.interruptedPurchasesEnabled }
        set { super.interruptedPurchasesEnabled = newValue }
    }
    // C.1 SKTestSession.failTransactionsEnabled
    override var failTransactionsEnabled: Bool {
        get { super.failTransactionsEnabled }
        set { super.failTransactionsEnabled = newValue }
    }
    // C.1 SKTestSession.failureError
    override var failureError: SKError.Code { get { super.failureError } set { super.failureError = newValue } }
    // C.1 SKTestSession.shouldEnterBillingRetryOnRenewal
    override var shouldEnterBillingRetryOnRenewal: Bool {
        get { super.shouldEnterBillingRetryOnRenewal }
        set { super.shouldEnterBillingRetryOnRenewal = newValue }
    }
    // C.1 SKTestSession.billingGracePeriodIsEnabled
    override var billingGracePeriodIsEnabled: Bool {
        get { super.billingGracePeriodIsEnabled }
        set { super.billingGracePeriodIsEnabled = newValue }
    }
    // C.1 SKTestSession.allTransactions()
    override func allTransactions() -> [SKTestTransaction] { [] }
    // C.1 SKTestSession.deleteTransaction(identifier:)
    override func deleteTransaction(identifier: Int) throws {}
    // C.1 SKTestSession.clearTransactions()
    override func clearTransactions() {}
    // C.1 SKTestSession.approveAskToBuyTransaction(identifier:)
    override func approveAskToBuyTransaction(identifier: Int) throws {}
    // C.1 SKTestSession.declineAskToBuyTransaction(identifier:)
    override func declineAskToBuyTransaction(identifier: Int) throws {}
    // C.1 SKTestSession.resolveIssueForTransaction(identifier:)
    override func resolveIssueForTransaction(identifier: Int) throws {}
    // C.1 SKTestSession.enableAutoRenewForTransaction(identifier:)
    override func enableAutoRenewForTransaction(identifier: Int) throws {}
    // C.1 SKTestSession.disableAutoRenewForTransaction(identifier:)
    override func disableAutoRenewForTransaction(identifier: Int) throws {}
    // C.1 SKTestSession.forceRenewalOfSubscription(productIdentifier:)
    override func forceRenewalOfSubscription(productIdentifier: String) throws {}
    // C.1 SKTestSession.expireSubscription(productIdentifier:)
    override func expireSubscription(productIdentifier: String) throws {}
    // C.1 SKTestSession.requestPriceIncreaseConsentForTransaction(identifier:)
    override func requestPriceIncreaseConsentForTransaction(identifier: Int) throws {}
    // C.1 SKTestSession.consentToPriceIncreaseForTransaction(identifier:)
    override func consentToPriceIncreaseForTransaction(identifier: Int) throws {}
    // C.1 SKTestSession.declinePriceIncreaseForTransaction(identifier:)
    override func declinePriceIncreaseForTransaction(identifier: Int) throws {}
    // C.1 SKTestSession.refundTransaction(identifier:)
    override func refundTransaction(identifier: Int) throws {}
    // C.1 SKTestSession.buyProduct(productIdentifier:)
    override func buyProduct(productIdentifier: String) throws {}
}

@Suite("C.1 SKTestSession has Apple's declarations")
struct SKTestSessionConformance {
    typealias Session = SKTestSession

    @Test("C.1 SKTestSession: the class, its initializers, switches and transaction controls")
    func session() {
        // C.1 SKTestSession — open class, NSObject subclass, Sendable
        requireNSObjectSubclass(Session.self)
        requireSendable(Session.self)

        // C.1 SKTestSession.init(configurationFileNamed:)
        let _: (String) throws -> Session = Session.init(configurationFileNamed:)
        let _: (String) throws -> Session = { try Session(configurationFileNamed: $0) }
        let _: (String) throws -> ConformanceTestSession = { try ConformanceTestSession(configurationFileNamed: $0) }
        // C.1 SKTestSession.init(contentsOf:)
        let _: (URL) throws -> Session = Session.init(contentsOf:)
        let _: (URL) throws -> Session = { try Session(contentsOf: $0) }
        let _: (URL) throws -> ConformanceTestSession = { try ConformanceTestSession(contentsOf: $0) }

        // C.1 SKTestSession.resetToDefaultState()
        let _: (Session) -> () -> Void = Session.resetToDefaultState
        // C.1 SKTestSession.storefront
        let _: ReferenceWritableKeyPath<Session, String> = \.storefront
        // C.1 SKTestSession.locale
        let _: ReferenceWritableKeyPath<Session, Locale> = \.locale
        // C.1 SKTestSession.disableDialogs
        let _: ReferenceWritableKeyPath<Session, Bool> = \.disableDialogs
        // C.1 SKTestSession.timeRate
        let _: ReferenceWritableKeyPath<Session, SKTestSession.TimeRate> = \.timeRate
        // C.1 SKTestSession.askToBuyEnabled
        let _: ReferenceWritableKeyPath<Session, Bool> = \.askToBuyEnabled
        // C.1 SKTestSession.interruptedPurchasesEnabled
        let _: ReferenceWritableKeyPath<Session, Bool> = \.interruptedPurchasesEnabled
        // C.1 SKTestSession.failTransactionsEnabled
        let _: ReferenceWritableKeyPath<Session, Bool> = \.failTransactionsEnabled
        // C.1 SKTestSession.failureError
        let _: ReferenceWritableKeyPath<Session, SKError.Code> = \.failureError
        // C.1 SKTestSession.shouldEnterBillingRetryOnRenewal
        let _: ReferenceWritableKeyPath<Session, Bool> = \.shouldEnterBillingRetryOnRenewal
        // C.1 SKTestSession.billingGracePeriodIsEnabled
        let _: ReferenceWritableKeyPath<Session, Bool> = \.billingGracePeriodIsEnabled

        // C.1 SKTestSession.allTransactions()
        let _: (Session) -> () -> [SKTestTransaction] = Session.allTransactions
        // C.1 SKTestSession.deleteTransaction(identifier:)
        let _: (Session) -> (Int) throws -> Void = Session.deleteTransaction(identifier:)
        // C.1 SKTestSession.clearTransactions()
        let _: (Session) -> () -> Void = Session.clearTransactions
        // C.1 SKTestSession.approveAskToBuyTransaction(identifier:)
        let _: (Session) -> (Int) throws -> Void = Session.approveAskToBuyTransaction(identifier:)
        // C.1 SKTestSession.declineAskToBuyTransaction(identifier:)
        let _: (Session) -> (Int) throws -> Void = Session.declineAskToBuyTransaction(identifier:)
        // C.1 SKTestSession.resolveIssueForTransaction(identifier:)
        let _: (Session) -> (Int) throws -> Void = Session.resolveIssueForTransaction(identifier:)
        // C.1 SKTestSession.enableAutoRenewForTransaction(identifier:)
        let _: (Session) -> (Int) throws -> Void = Session.enableAutoRenewForTransaction(identifier:)
        // C.1 SKTestSession.disableAutoRenewForTransaction(identifier:)
        let _: (Session) -> (Int) throws -> Void = Session.disableAutoRenewForTransaction(identifier:)
        // C.1 SKTestSession.forceRenewalOfSubscription(productIdentifier:)
        let _: (Session) -> (String) throws -> Void = Session.forceRenewalOfSubscription(productIdentifier:)
        // C.1 SKTestSession.expireSubscription(productIdentifier:)
        let _: (Session) -> (String) throws -> Void = Session.expireSubscription(productIdentifier:)
        // C.1 SKTestSession.requestPriceIncreaseConsentForTransaction(identifier:)
        let _: (Session) -> (Int) throws -> Void = Session.requestPriceIncreaseConsentForTransaction(identifier:)
        // C.1 SKTestSession.consentToPriceIncreaseForTransaction(identifier:)
        let _: (Session) -> (Int) throws -> Void = Session.consentToPriceIncreaseForTransaction(identifier:)
        // C.1 SKTestSession.declinePriceIncreaseForTransaction(identifier:)
        let _: (Session) -> (Int) throws -> Void = Session.declinePriceIncreaseForTransaction(identifier:)
        // C.1 SKTestSession.refundTransaction(identifier:)
        let _: (Session) -> (Int) throws -> Void = Session.refundTransaction(identifier:)
        // C.1 SKTestSession.buyProduct(productIdentifier:)
        let _: (Session) -> (String) throws -> Void = Session.buyProduct(productIdentifier:)
    }

    @Test("C.1 SKTestSession's Swift overlay: buyProduct(identifier:options:), setSimulatedError, simulatedError")
    func overlay() {
        // C.1 SKTestSession.buyProduct(identifier:options:) — @discardableResult, options default to []
        let _: (Session) -> (Product.ID, Set<Product.PurchaseOption>) async throws -> Transaction =
            Session.buyProduct(identifier:options:)
        let _: (Session) async throws -> Void = { session in
            try await session.buyProduct(identifier: "com.example.product")
            try await session.buyProduct(identifier: "com.example.product", options: [.quantity(1)])
        }

        // C.1 SKTestSession.setSimulatedError(_:forAPI:)
        let _: (Session) -> (SKTestFailures.Purchase?, StoreKitPurchaseAPI) async throws -> Void =
            Session.setSimulatedError(_:forAPI:)
        let _: (Session) async throws -> Void = { session in
            try await session.setSimulatedError(.generic(.userCancelled), forAPI: .purchase)
            try await session.setSimulatedError(nil, forAPI: .loadProducts)
        }

        // C.1 SKTestSession.simulatedError(forAPI:)
        let _: (Session) -> (StoreKitPurchaseAPI) async -> SKTestFailures.Purchase? = Session.simulatedError(forAPI:)
        let _: (Session) async -> SKTestFailures.Verification? = { await $0.simulatedError(forAPI: .verification) }
    }
}
