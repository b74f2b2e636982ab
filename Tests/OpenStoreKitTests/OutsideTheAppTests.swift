import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

@Suite("Refunds, promoted purchases and storefront changes")
struct OutsideTheAppTests {
    @Test("A refund of a non-consumable revokes it: observers get didRevokeEntitlements with the product")
    func refundRevokes() async throws {
        let harness = try Harness(autoFinish: true)
        try await harness.buy(Demo.premium)
        let purchased = try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        let identifier = try #require(purchased.identifier.flatMap { Int($0) })
        try harness.session.refundTransaction(identifier: identifier)
        let revoked = try await harness.spy.wait(for: "revocation") { log in
            log.lazy.compactMap { event -> [String]? in
                if case .revoked(let products) = event { return products }
                return nil
            }.first
        }
        #expect(revoked == [Demo.premium])
        #expect(harness.session.allTransactions().first?.cancelDate != nil)
        #expect(throws: SKTestError(.invalidAction)) { try harness.session.refundTransaction(identifier: identifier) }
    }

    @Test("A refund the app did not hear about while it was not running is announced at the next launch")
    func refundWhileNotRunning() async throws {
        let harness = try Harness(autoFinish: true)
        try await harness.buy(Demo.darkTheme)
        let purchased = try await harness.spy.waitForTransaction(Demo.darkTheme, .purchased)
        harness.queue.remove(harness.spy)
        let identifier = try #require(purchased.identifier.flatMap { Int($0) })
        try harness.session.refundTransaction(identifier: identifier)
        let relaunch = SKPaymentQueue(environment: harness.session.environment)
        let observer = ObserverSpy(queue: relaunch)
        relaunch.add(observer)
        let revoked = try await observer.wait(for: "revocation") { log in
            log.lazy.compactMap { event -> [String]? in
                if case .revoked(let products) = event { return products }
                return nil
            }.first
        }
        #expect(revoked == [Demo.darkTheme])
    }

    @Test("A promoted purchase the app continues is bought at once")
    func promotedPurchaseContinued() async throws {
        let harness = try Harness(autoFinish: true)
        harness.spy.answerStorePayments { _ in true }
        try harness.session.startPromotedPurchase(productIdentifier: Demo.premium)
        try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        let asked = harness.spy.log.filter { if case .shouldAddStorePayment(Demo.premium) = $0 { true } else { false } }
        #expect(asked.count == 1)
        #expect(try await harness.session.engine.purchaseIntents(accountID: StoreDefaults.accountID, bundleID: harness.session.environment.bundleID).isEmpty)
    }

    @Test("A promoted purchase the app defers is bought when the app adds the saved payment later")
    func promotedPurchaseDeferred() async throws {
        let harness = try Harness(autoFinish: true)
        harness.spy.answerStorePayments { _ in false }
        let url = try #require(URL(string: "itms-services://?action=purchaseIntent&bundleId=\(harness.session.environment.bundleID)&productIdentifier=\(Demo.darkTheme)"))
        try harness.session.startPromotedPurchase(url: url)
        try await harness.spy.wait(for: "shouldAddStorePayment") { log in
            log.contains { if case .shouldAddStorePayment(Demo.darkTheme) = $0 { true } else { false } } ? true : nil
        }
        #expect(harness.session.allTransactions().isEmpty)
        let saved = try #require(harness.spy.savedPayments.first)
        #expect(saved.productIdentifier == Demo.darkTheme)
        harness.queue.add(saved)
        try await harness.spy.waitForTransaction(Demo.darkTheme, .purchased)
        #expect(harness.session.allTransactions().count == 1)
    }

    @Test("A promoted purchase the app cancels buys nothing and is not offered again")
    func promotedPurchaseCancelled() async throws {
        let harness = try Harness(autoFinish: true)
        harness.spy.answerStorePayments { _ in false }
        try harness.session.startPromotedPurchase(productIdentifier: Demo.coins)
        try await harness.spy.wait(for: "shouldAddStorePayment") { log in
            log.contains { if case .shouldAddStorePayment(Demo.coins) = $0 { true } else { false } } ? true : nil
        }
        // A restore round trip lets the queue synchronize again; the intent must not be offered twice.
        harness.queue.restoreCompletedTransactions()
        try await harness.spy.waitForRestoreFinished()
        let asked = harness.spy.log.filter { if case .shouldAddStorePayment = $0 { true } else { false } }
        #expect(asked.count == 1)
        #expect(harness.session.allTransactions().isEmpty)
    }

    @Test("A promoted purchase waits for the app's observer and is dropped when no observer implements shouldAddStorePayment")
    func promotedPurchaseWithoutHandler() async throws {
        let harness = try Harness(attach: false)
        try harness.session.startPromotedPurchase(productIdentifier: Demo.premium)
        let bundleID = harness.session.environment.bundleID
        #expect(try await harness.session.engine.purchaseIntents(accountID: StoreDefaults.accountID, bundleID: bundleID).count == 1)
        let plain = PlainObserver()
        harness.queue.add(plain)
        harness.queue.restoreCompletedTransactions()
        try await plain.restored.wait(on: harness.queue)
        #expect(try await harness.session.engine.purchaseIntents(accountID: StoreDefaults.accountID, bundleID: bundleID).isEmpty)
        #expect(harness.session.allTransactions().isEmpty)
    }

    @Test("Opening a purchase-intent URL for another app or of another shape is refused")
    func badPurchaseIntentURL() throws {
        let harness = try Harness()
        let otherApp = try #require(URL(string: "itms-services://?action=purchaseIntent&bundleId=com.other.app&productIdentifier=\(Demo.premium)"))
        #expect(throws: SKTestError(.invalidURL)) { try harness.session.startPromotedPurchase(url: otherApp) }
        let notIntent = try #require(URL(string: "https://example.com/?action=purchaseIntent"))
        #expect(throws: SKTestError(.invalidURL)) { try harness.session.startPromotedPurchase(url: notIntent) }
        #expect(throws: SKTestError(.invalidProductIdentifier)) { try harness.session.startPromotedPurchase(productIdentifier: "nope") }
    }

    @Test("A storefront change calls paymentQueueDidChangeStorefront and the queue reports the new storefront")
    func storefrontChange() async throws {
        let harness = try Harness()
        #expect(harness.queue.storefront?.countryCode == "USA")
        #expect(harness.queue.storefront?.identifier == "143441")
        harness.session.storefront = "FRA"
        let reported = try await harness.spy.wait(for: "storefront change") { log in
            log.lazy.compactMap { event -> String?? in
                if case .storefrontChanged(let code) = event { return .some(code) }
                return nil
            }.first
        }
        #expect(reported == "FRA")
        #expect(harness.queue.storefront?.identifier == "143442")
        let product = try #require(try await harness.products(Demo.coins)[Demo.coins])
        #expect(product.priceLocale.currency?.identifier == "EUR")
    }

    @Test(
        "A storefront change during a purchase asks the delegate; false fails the purchase, true buys in the new storefront",
        arguments: [false, true]
    )
    func storefrontChangeDuringPurchase(shouldContinue: Bool) async throws {
        let session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: testStart), transport: sessionTransport)
        session.disableDialogs = true
        // The customer moves to the United Kingdom while the store works on the payment: the store's account reads
        // GBR the first time the purchase looks at it, while the device still remembers USA.
        var environment = session.environment
        let connection = StorefrontChangingConnection(
            base: session.environment.connection, engine: session.engine, accountID: environment.accountID, to: "GBR"
        )
        environment.connection = connection
        let queue = SKPaymentQueue(environment: environment)
        let harness = Harness(session: session, queue: queue)
        harness.spy.answerShouldContinue(shouldContinue)
        let premium = try #require(try await harness.products(Demo.premium)[Demo.premium])
        await queue.waitUntilIdle()
        connection.arm()
        queue.add(SKPayment(product: premium))
        let outcome = try await harness.spy.wait(for: "outcome") { log in
            log.lazy.compactMap { event -> TransactionView? in
                if case .updated(let views) = event { return views.first { $0.state == .purchased || $0.state == .failed } }
                return nil
            }.first
        }
        let asked = harness.spy.log.contains { if case .shouldContinue(Demo.premium, "GBR") = $0 { true } else { false } }
        #expect(asked)
        #expect(harness.spy.log.contains { if case .storefrontChanged("GBR") = $0 { true } else { false } })
        if shouldContinue {
            #expect(outcome.state == .purchased)
            #expect(try await harness.session.engine.transactions().first?.storefront == "GBR")
        } else {
            #expect(outcome.state == .failed)
            #expect(outcome.errorCode == .storeProductNotAvailable)
            #expect(harness.session.allTransactions().isEmpty)
        }
    }
}

/// An observer that implements only the required method and the restore callback.
final class PlainObserver: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
    let restored = Signal()

    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {}

    func paymentQueueRestoreCompletedTransactionsFinished(_ queue: SKPaymentQueue) {
        restored.fire()
    }
}

/// A one-shot event a test can wait for.
final class Signal: Sendable {
    private let fired = Watched(false)

    func fire() {
        fired.update { $0 = true }
    }

    /// Lets `queue` deliver everything; fails the test unless the signal fired by then.
    func wait(on queue: SKPaymentQueue, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let fired = fired
        _ = try await expectEventually("a signal", on: queue, sourceLocation: sourceLocation, lastSeen: { "not fired" }) {
            fired.current ? true : nil
        }
    }
}
