import AppStoreEngine
import Dispatch
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

@Suite("SKTestSession controls")
struct TestSessionTests {
    @Test("allTransactions lists every transaction, failed and pending ones included, with their test states")
    func allTransactions() async throws {
        let harness = try Harness(autoFinish: true)
        try await harness.buy(Demo.coins)
        try await harness.spy.waitForTransaction(Demo.coins, .purchased)
        harness.session.askToBuyEnabled = true
        try await harness.buy(Demo.premium)
        try await harness.spy.waitForTransaction(Demo.premium, .deferred)
        harness.session.askToBuyEnabled = false
        harness.session.failTransactionsEnabled = true
        try await harness.buy(Demo.darkTheme)
        try await harness.spy.waitForTransaction(Demo.darkTheme, .failed)
        let all = harness.session.allTransactions()
        #expect(all.map(\.productIdentifier) == [Demo.coins, Demo.premium, Demo.darkTheme])
        #expect(all.map(\.state) == [.purchased, .deferred, .failed])
        #expect(all[1].pendingAskToBuyConfirmation && !all[0].pendingAskToBuyConfirmation)
        #expect(all[0].originalTransactionIdentifier == all[0].identifier)
        #expect(all.allSatisfy { $0.cancelDate == nil && $0.expirationDate == nil && !$0.hasPurchaseIssue })
    }

    @Test("Deleting a purchase lets the customer buy it as new; clearing leaves nothing to restore")
    func deleteAndClear() async throws {
        let harness = try Harness(autoFinish: true)
        try await harness.buy(Demo.premium)
        try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        let purchase = try #require(harness.session.allTransactions().first)
        try harness.session.deleteTransaction(identifier: purchase.identifier)
        #expect(harness.session.allTransactions().isEmpty)
        #expect(throws: SKTestError(.noTransactionFound)) { try harness.session.deleteTransaction(identifier: purchase.identifier) }
        #expect(throws: SKTestError(.noTransactionFound)) { try harness.session.refundTransaction(identifier: -1) }

        try await harness.buy(Demo.premium)
        try await harness.spy.waitForTransaction(Demo.premium, .purchased, after: 1)
        #expect(try await harness.session.engine.transactions().last?.origin == .purchase)
        harness.session.clearTransactions()
        #expect(harness.session.allTransactions().isEmpty)
        harness.queue.restoreCompletedTransactions()
        try await harness.spy.waitForRestoreFinished()
        #expect(!harness.spy.updates.contains { $0.state == .restored })
    }

    @Test("Buying a product the store does not sell outside the app fails with invalidProductIdentifier")
    func buyUnknownProduct() throws {
        let harness = try Harness()
        #expect(throws: SKTestError(.invalidProductIdentifier)) { try harness.session.buyProduct(productIdentifier: "nope") }
    }

    @Test("A session reads the configuration's settings, and finds a configuration file by name in the test's resources")
    func configurationFileNamed() async throws {
        let session = try SKTestSession(configurationFileNamed: "SessionFixture", scope: .isolated)
        #expect(session.askToBuyEnabled)
        #expect(session.storefront == "GBR")
        #expect(session.paymentQueue.storefront?.countryCode == "GBR")
        let response = try await ProductsFetcher.fetch(["com.example.fixture.gem"], from: session.paymentQueue)
        let gem = try #require(response.products.first)
        #expect(gem.localizedTitle == "Fixture Gem")
        #expect(gem.priceLocale.currency?.identifier == "GBP")
        #expect(throws: SKTestError(.fileNotFound)) { try SKTestSession(configurationFileNamed: "NoSuchConfiguration", scope: .isolated) }
        #expect(throws: SKTestError(.fileNotFound)) {
            try SKTestSession(contentsOf: URL(fileURLWithPath: "/nonexistent/Products.storekit"), scope: .isolated, transport: sessionTransport)
        }
    }

    @Test("Isolated sessions never see each other's purchases")
    func isolation() async throws {
        let first = try Harness(autoFinish: true)
        let second = try Harness(autoFinish: true)
        try await first.buy(Demo.premium)
        try await first.spy.waitForTransaction(Demo.premium, .purchased)
        #expect(first.session.allTransactions().count == 1)
        #expect(second.session.allTransactions().isEmpty)
        second.queue.restoreCompletedTransactions()
        try await second.spy.waitForRestoreFinished()
        #expect(second.spy.updates.isEmpty)
    }

    @Test("By default a queue calls its observers on the main queue, which swift test drains")
    func mainQueueByDefault() async throws {
        let harness = try Harness(attach: false)
        let spy = ObserverSpy(queue: harness.queue)
        let onMain = Locked<[Bool]>([])
        spy.onUpdate { _ in
            onMain.withLock { $0.append(DispatchQueue.isCurrent(.main)) }
        }
        harness.queue.add(spy)
        try harness.session.buyProduct(productIdentifier: Demo.coins)
        try await spy.waitForTransaction(Demo.coins, .purchased)
        #expect(onMain.current == [true])
    }

    @Test("A queue calls its observers on the callback queue it was made with")
    func callbackQueue() async throws {
        let session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, transport: sessionTransport)
        let callbacks = DispatchQueue(label: "test.callbacks")
        let queue = SKPaymentQueue(environment: session.environment, callbackQueue: callbacks)
        let spy = ObserverSpy(queue: queue)
        let onCallbackQueue = Locked<[Bool]>([])
        spy.onUpdate { _ in
            onCallbackQueue.withLock { $0.append(DispatchQueue.isCurrent(callbacks)) }
        }
        queue.add(spy)
        let response = try await ProductsFetcher.fetch([Demo.coins], from: queue)
        queue.add(SKPayment(product: try #require(response.products.first)))
        try await spy.waitForTransaction(Demo.coins, .purchased)
        #expect(onCallbackQueue.current == [true, true])
    }
}

extension DispatchQueue {
    /// Whether the caller runs on `queue`.
    static func isCurrent(_ queue: DispatchQueue) -> Bool {
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        defer { queue.setSpecific(key: key, value: nil) }
        return DispatchQueue.getSpecific(key: key) == true
    }
}
