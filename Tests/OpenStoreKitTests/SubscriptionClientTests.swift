import AppStoreEngine
import AppStoreFormats
import Crypto
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// Auto-renewable subscriptions as an app and its tests see them: renewals delivered to observers, the receipt,
/// and StoreKit Test's subscription controls.
@Suite("Subscriptions in the app")
struct SubscriptionClientTests {
    let month: TimeInterval = 31 * 86_400

    func session() throws -> (SKTestSession, RecordingTransactionObserver) {
        let session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: testStart), transport: sessionTransport)
        session.disableDialogs = true
        let observer = RecordingTransactionObserver(finishesTransactions: true)
        session.paymentQueue.add(observer)
        return (session, observer)
    }

    @Test("A renewal reaches the app's observer as a new purchased transaction, and the receipt lists both periods")
    func renewalReachesObserver() async throws {
        let (session, observer) = try session()
        let product = try #require(try await ProductsFetcher.fetch([Demo.monthly], from: session.paymentQueue).products.first)
        session.paymentQueue.add(SKPayment(product: product))
        await session.paymentQueue.waitUntilIdle()
        let purchased = observer.updatedTransactions.filter { $0.state == .purchased }.map(\.transaction)
        #expect(purchased.count == 1)

        try await session.advanceTime(by: month)
        await session.paymentQueue.waitUntilIdle()
        let afterRenewal = observer.updatedTransactions.filter { $0.state == .purchased }.map(\.transaction)
        #expect(afterRenewal.count == 2)
        let renewal = try #require(afterRenewal.last)
        #expect(renewal.payment.productIdentifier == Demo.monthly)
        #expect(renewal.transactionIdentifier != purchased.first?.transactionIdentifier)
        #expect(observer.removedTransactions.count == 2)

        let receiptURL = try #require(session.paymentQueue.appStoreReceiptURL)
        let receipt = try AppReceipt(receiptData: try Data(contentsOf: receiptURL))
        let periods = receipt.inAppPurchases.filter { $0.productID == Demo.monthly }.sorted { ($0.purchaseDate ?? .distantPast) < ($1.purchaseDate ?? .distantPast) }
        #expect(periods.count == 2)
        #expect(periods.allSatisfy { $0.originalTransactionID == periods.first?.transactionID })
        #expect(periods.last?.purchaseDate == periods.first?.expiresDate)
    }

    @Test("SKTestSession's subscription controls: auto-renew off and on, forced renewal, expiry")
    func sessionControls() async throws {
        let (session, observer) = try session()
        let product = try #require(try await ProductsFetcher.fetch([Demo.monthly], from: session.paymentQueue).products.first)
        session.paymentQueue.add(SKPayment(product: product))
        await session.paymentQueue.waitUntilIdle()
        let purchase = try #require(session.allTransactions().first)
        #expect(purchase.autoRenewingEnabled)
        #expect(purchase.expirationDate == testStart.addingTimeInterval(7 * 86_400), "a one-week free trial first")

        try session.disableAutoRenewForTransaction(identifier: purchase.identifier)
        #expect(session.allTransactions().first?.autoRenewingEnabled == false)
        try session.enableAutoRenewForTransaction(identifier: purchase.identifier)
        #expect(session.allTransactions().first?.autoRenewingEnabled == true)

        try await session.advanceTime(by: 86_400)
        try session.forceRenewalOfSubscription(productIdentifier: Demo.monthly)
        await session.paymentQueue.waitUntilIdle()
        let transactions = session.allTransactions()
        #expect(transactions.count == 2)
        #expect(transactions.last?.originalTransactionIdentifier == purchase.identifier)
        #expect(transactions.last?.purchaseDate == testStart.addingTimeInterval(86_400))
        #expect(observer.updatedTransactions.filter { $0.state == .purchased }.count == 2)

        try session.expireSubscription(productIdentifier: Demo.monthly)
        #expect(session.allTransactions().last?.autoRenewingEnabled == false)
        try await session.advanceTime(by: 3 * month)
        await session.paymentQueue.waitUntilIdle()
        #expect(session.allTransactions().count == 2)
    }

    @Test("Billing retry with a grace period: the renewal fails, the transaction has a purchase issue, resolving it renews")
    func billingRetryAndGracePeriod() async throws {
        let (session, observer) = try session()
        session.shouldEnterBillingRetryOnRenewal = true
        session.billingGracePeriodIsEnabled = true
        let product = try #require(try await ProductsFetcher.fetch([Demo.monthly], from: session.paymentQueue).products.first)
        session.paymentQueue.add(SKPayment(product: product))
        await session.paymentQueue.waitUntilIdle()
        try await session.advanceTime(by: 8 * 86_400)
        await session.paymentQueue.waitUntilIdle()

        let failing = try #require(session.allTransactions().last)
        #expect(session.allTransactions().count == 1)
        #expect(failing.hasPurchaseIssue)
        #expect(failing.isInBillingGracePeriod)
        #expect(observer.updatedTransactions.filter { $0.state == .purchased }.count == 1)

        session.shouldEnterBillingRetryOnRenewal = false
        try session.resolveIssueForTransaction(identifier: failing.identifier)
        await session.paymentQueue.waitUntilIdle()
        let transactions = session.allTransactions()
        #expect(transactions.count == 2)
        #expect(transactions.allSatisfy { !$0.hasPurchaseIssue })
        #expect(transactions.last?.originalTransactionIdentifier == failing.identifier)
        #expect(transactions.last?.purchaseDate == failing.expirationDate)
        #expect(observer.updatedTransactions.filter { $0.state == .purchased }.count == 2)
        #expect(throws: SKTestError.self) { try session.resolveIssueForTransaction(identifier: failing.identifier) }
    }

    @Test("A forced renewal and expireSubscription end the current period now, as StoreKit Test in Xcode does")
    func forcedRenewalAndExpiryEndThePeriodNow() async throws {
        let (session, _) = try session()
        try session.buyProduct(productIdentifier: Demo.monthly)
        await session.paymentQueue.waitUntilIdle()
        try await session.advanceTime(by: 86_400)
        try session.forceRenewalOfSubscription(productIdentifier: Demo.monthly)
        await session.paymentQueue.waitUntilIdle()
        let renewedAt = testStart.addingTimeInterval(86_400)
        let periods = session.allTransactions()
        #expect(periods.count == 2)
        #expect(periods.first?.expirationDate == renewedAt, "the forced renewal ends the trial period now")
        #expect(periods.last?.purchaseDate == renewedAt)

        try await session.advanceTime(by: 86_400)
        try session.expireSubscription(productIdentifier: Demo.monthly)
        await session.paymentQueue.waitUntilIdle()
        let expired = try #require(session.allTransactions().last)
        #expect(expired.expirationDate == renewedAt.addingTimeInterval(86_400), "expiring ends the renewed period now")
        #expect(!expired.autoRenewingEnabled)
        #expect(session.allTransactions().compactMap(\.expirationDate).allSatisfy { $0 <= renewedAt.addingTimeInterval(86_400) })
    }

    @Test("At a fast time rate, a downgrade starts its period when the current one ends, never before")
    func downgradeWaitsForThePeriodEnd() async throws {
        let (session, _) = try session()
        session.timeRate = .monthlyRenewalEveryHour
        try session.buyProduct(productIdentifier: Demo.yearly)
        let yearly = try #require(session.allTransactions().last)
        let end = try #require(yearly.expirationDate)
        try await session.advanceTime(by: 60)
        try session.buyProduct(productIdentifier: Demo.monthly)
        await session.paymentQueue.waitUntilIdle()
        let monthly = session.allTransactions().filter { $0.productIdentifier == Demo.monthly }
        #expect(!monthly.isEmpty)
        #expect(monthly.allSatisfy { $0.purchaseDate >= end }, "the lower level waits for the current period to end")
        #expect(session.allTransactions().first?.expirationDate == end, "the current period runs on")

        try await session.advanceTime(by: end.timeIntervalSince(testStart))
        await session.paymentQueue.waitUntilIdle()
        let renewal = try #require(session.allTransactions().last)
        #expect(renewal.productIdentifier == Demo.monthly)
        #expect(renewal.purchaseDate == end)
        #expect(renewal.originalTransactionIdentifier == yearly.identifier)
    }

    @Test("Resolving billing retry (no grace period) delivers the recovered period to the observer as purchased")
    func billingRetryRecoveryReachesObserver() async throws {
        let (session, observer) = try session()
        session.shouldEnterBillingRetryOnRenewal = true
        let product = try #require(try await ProductsFetcher.fetch([Demo.monthly], from: session.paymentQueue).products.first)
        session.paymentQueue.add(SKPayment(product: product))
        await session.paymentQueue.waitUntilIdle()
        try await session.advanceTime(by: 10 * 86_400)
        await session.paymentQueue.waitUntilIdle()
        let failing = try #require(session.allTransactions().last)
        #expect(failing.hasPurchaseIssue)
        #expect(!failing.isInBillingGracePeriod)

        session.shouldEnterBillingRetryOnRenewal = false
        try session.resolveIssueForTransaction(identifier: failing.identifier)
        await session.paymentQueue.waitUntilIdle()
        let recovered = try #require(session.allTransactions().last)
        #expect(recovered.identifier != failing.identifier)
        #expect(recovered.purchaseDate == testStart.addingTimeInterval(10 * 86_400), "recovered after the grace period, the period starts now")
        let delivered = observer.updatedTransactions.filter { $0.state == .purchased }
        #expect(delivered.count == 2)
        #expect(delivered.last?.transaction.transactionIdentifier == String(recovered.identifier))
    }

    @Test("A price-increase request asks the queue's delegate; the sheet shows now, or when the app calls showPriceConsentIfNeeded")
    func priceConsentSheet() async throws {
        let (session, observer) = try session()
        defer { withExtendedLifetime(observer) {} }
        let delegate = PriceConsentDelegate(showsNow: false)
        session.paymentQueue.delegate = delegate
        let product = try #require(try await ProductsFetcher.fetch([Demo.monthly], from: session.paymentQueue).products.first)
        session.paymentQueue.add(SKPayment(product: product))
        await session.paymentQueue.waitUntilIdle()
        let purchase = try #require(session.allTransactions().first)

        try session.requestPriceIncreaseConsentForTransaction(identifier: purchase.identifier)
        await session.paymentQueue.waitUntilIdle()
        #expect(delegate.questions.current == 1)
        #expect(session.allTransactions().first?.isPendingPriceIncreaseConsent == true)
        #expect(session.paymentQueue.shownPriceConsentSheets.isEmpty)
        session.paymentQueue.showPriceConsentIfNeeded()
        #expect(session.paymentQueue.shownPriceConsentSheets == [Demo.monthly])

        try session.consentToPriceIncreaseForTransaction(identifier: purchase.identifier)
        #expect(session.allTransactions().first?.isPendingPriceIncreaseConsent == false)
        try await session.advanceTime(by: month)
        await session.paymentQueue.waitUntilIdle()
        #expect(session.allTransactions().count == 2)

        // A new request after the answer is asked about again; the default delegate answer shows it at once.
        delegate.showsNow = true
        try session.requestPriceIncreaseConsentForTransaction(identifier: purchase.identifier)
        await session.paymentQueue.waitUntilIdle()
        #expect(delegate.questions.current == 2)
        #expect(session.paymentQueue.shownPriceConsentSheets == [Demo.monthly, Demo.monthly])
        try session.declinePriceIncreaseForTransaction(identifier: purchase.identifier)
        #expect(session.allTransactions().last?.autoRenewingEnabled == false)
        #expect(throws: SKTestError.self) { try session.consentToPriceIncreaseForTransaction(identifier: purchase.identifier) }
    }

    @Test("A payment with a signed SKPaymentDiscount buys a lapsed subscriber the offer; a bad signature fails with invalidSignature, a new customer with ineligibleForOffer")
    func promotionalOfferDiscount() async throws {
        let (session, observer) = try session()
        let signer = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "DEMOKEY", bundleID: try session.paymentQueue.environment().bundleID)
        await session.engine.addPromotionalOfferKey(signer.key)
        let product = try #require(try await ProductsFetcher.fetch([Demo.monthly], from: session.paymentQueue).products.first)
        #expect(product.discounts.map(\.identifier) == ["plus.monthly.comeback"])

        func pay(signedWith signer: PromotionalOfferSigner) throws {
            let signed = try signer.signV1(productID: Demo.monthly, offerID: "plus.monthly.comeback", nonce: UUID(), timestamp: Int64(testStart.timeIntervalSince1970 * 1000))
            let payment = SKMutablePayment(product: product)
            payment.paymentDiscount = SKPaymentDiscount(
                identifier: signed.offerID, keyIdentifier: signed.keyID, nonce: signed.nonce, signature: signed.signature,
                timestamp: NSNumber(value: signed.timestamp)
            )
            session.paymentQueue.add(payment)
        }
        let forger = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "DEMOKEY", bundleID: signer.bundleID)
        try pay(signedWith: forger)
        await session.paymentQueue.waitUntilIdle()
        let failed = try #require(observer.updatedTransactions.last)
        #expect(failed.state == .failed)
        #expect((failed.transaction.error as? SKError)?.code == .invalidSignature)

        try pay(signedWith: signer)
        await session.paymentQueue.waitUntilIdle()
        let refused = try #require(observer.updatedTransactions.last)
        #expect(refused.state == .failed)
        #expect((refused.transaction.error as? SKError)?.code == .ineligibleForOffer, "a customer who never subscribed to the group gets no promotional offer")

        // A lapsed subscriber gets it.
        try session.buyProduct(productIdentifier: Demo.monthly)
        try session.expireSubscription(productIdentifier: Demo.monthly)
        try pay(signedWith: signer)
        await session.paymentQueue.waitUntilIdle()
        let bought = try #require(session.allTransactions().last)
        #expect(bought.record.offer?.identifier == "plus.monthly.comeback")
        #expect(bought.record.amountCharged == Decimal(string: "1.99")!)
        let receipt = try AppReceipt(receiptData: try Data(contentsOf: try #require(session.paymentQueue.appStoreReceiptURL)))
        #expect(receipt.inAppPurchases.first { $0.transactionID == String(bought.identifier) }?.promotionalOfferID == "plus.monthly.comeback")
    }

    @Test("presentCodeRedemptionSheet redeems the code the customer types; the transaction reaches the observer")
    func codeRedemptionSheet() async throws {
        let (session, observer) = try session()
        session.paymentQueue.presentCodeRedemptionSheet()
        await session.paymentQueue.waitUntilIdle()
        #expect(session.allTransactions().isEmpty, "a customer who closes the sheet redeems nothing")

        session.paymentQueue.codeRedemptionSheetEntry = "Launch code"
        session.paymentQueue.presentCodeRedemptionSheet()
        await session.paymentQueue.waitUntilIdle()
        let redeemed = try #require(observer.updatedTransactions.last)
        #expect(redeemed.state == .purchased)
        #expect(redeemed.transaction.payment.productIdentifier == Demo.monthly)
        #expect(session.allTransactions().first?.record.offer?.type == .subscriptionOfferCode)
    }

    @Test("Subscription controls refuse what they cannot do, with StoreKit Test's errors")
    func controlErrors() async throws {
        let (session, _) = try session()
        try session.buyProduct(productIdentifier: Demo.coins)
        let coins = try #require(session.allTransactions().first)
        #expect(throws: SKTestError(.invalidProductType)) { try session.disableAutoRenewForTransaction(identifier: coins.identifier) }
        #expect(throws: SKTestError(.noTransactionFound)) { try session.forceRenewalOfSubscription(productIdentifier: Demo.monthly) }
        #expect(throws: SKTestError(.noTransactionFound)) { try session.enableAutoRenewForTransaction(identifier: 99) }

        let systemSession = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, transport: sessionTransport)
        await #expect(throws: SKTestError(.invalidAction)) { try await systemSession.advanceTime(by: 60) }
    }

    @Test("Restore delivers each paid period of a subscription as restored, its original the period's transaction")
    func restoreDeliversPeriods() async throws {
        let (session, observer) = try session()
        let product = try #require(try await ProductsFetcher.fetch([Demo.monthly], from: session.paymentQueue).products.first)
        session.paymentQueue.add(SKPayment(product: product))
        await session.paymentQueue.waitUntilIdle()
        try await session.advanceTime(by: month)
        await session.paymentQueue.waitUntilIdle()
        let periods = observer.updatedTransactions.filter { $0.state == .purchased }.compactMap(\.transaction.transactionIdentifier)
        #expect(periods.count == 2)

        session.paymentQueue.restoreCompletedTransactions()
        await session.paymentQueue.waitUntilIdle()
        let restored = observer.updatedTransactions.filter { $0.state == .restored }.map(\.transaction)
        #expect(restored.compactMap(\.original?.transactionIdentifier) == periods)
        #expect(restored.allSatisfy { $0.payment.productIdentifier == Demo.monthly })
        #expect(observer.events.contains { if case .restoreFinished = $0 { true } else { false } })
    }
}

/// A payment-queue delegate that answers the price-consent question as told and counts the questions.
final class PriceConsentDelegate: NSObject, SKPaymentQueueDelegate, @unchecked Sendable {
    /// Whether the sheet may show now. Set from the test between questions, read on the callback queue.
    var showsNow: Bool
    let questions = Locked(0)

    init(showsNow: Bool) {
        self.showsNow = showsNow
    }

    func paymentQueueShouldShowPriceConsent(_ paymentQueue: SKPaymentQueue) -> Bool {
        questions.withLock { $0 += 1 }
        return showsNow
    }
}
