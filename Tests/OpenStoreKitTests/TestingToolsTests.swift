import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// The test tools `OpenStoreKitTest` ships for users' own tests: `waitUntilIdle()` and the recording observer.
@Suite("Test tools")
struct TestingToolsTests {
    func session() throws -> SKTestSession {
        let session = try SKTestSession(
            contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: testStart), transport: sessionTransport
        )
        session.disableDialogs = true
        return session
    }

    func product(_ identifier: String, on queue: SKPaymentQueue) async throws -> SKProduct {
        try #require(try await ProductsFetcher.fetch([identifier], from: queue).products.first)
    }

    @Test("After waitUntilIdle, a payment added before it has reached the observer as purchased and, finished, left the queue")
    func idleAfterPurchase() async throws {
        let session = try session()
        let observer = RecordingTransactionObserver(finishesTransactions: true)
        session.paymentQueue.add(observer)
        session.paymentQueue.add(SKPayment(product: try await product(Demo.premium, on: session.paymentQueue)))
        await session.paymentQueue.waitUntilIdle()
        #expect(observer.updatedTransactions.map(\.state) == [.purchasing, .purchased])
        #expect(observer.removedTransactions.count == 1)
        #expect(session.paymentQueue.transactions.isEmpty)
    }

    @Test("After waitUntilIdle, changes the store committed before it have been delivered: a refund, a purchase outside the app")
    func idleAfterStoreChanges() async throws {
        let session = try session()
        let observer = RecordingTransactionObserver(finishesTransactions: true)
        session.paymentQueue.add(observer)
        try session.buyProduct(productIdentifier: Demo.darkTheme)
        await session.paymentQueue.waitUntilIdle()
        #expect(observer.updatedTransactions.map(\.transaction.payment.productIdentifier) == [Demo.darkTheme])

        let bought = try #require(session.allTransactions().first)
        try session.refundTransaction(identifier: bought.identifier)
        await session.paymentQueue.waitUntilIdle()
        let revoked = observer.events.compactMap { event -> [String]? in
            if case .revokedEntitlements(let products) = event { products } else { nil }
        }
        #expect(revoked == [[Demo.darkTheme]])
    }

    @Test("waitUntilIdle covers a restore, and the observer records the end of it after the restored transactions")
    func idleAfterRestore() async throws {
        let session = try session()
        let observer = RecordingTransactionObserver(finishesTransactions: true)
        session.paymentQueue.add(observer)
        try session.buyProduct(productIdentifier: Demo.premium)
        session.paymentQueue.restoreCompletedTransactions()
        await session.paymentQueue.waitUntilIdle()
        #expect(observer.updatedTransactions.map(\.state) == [.purchased, .restored])
        guard case .restoreFinished = try #require(observer.events.last { if case .removed = $0 { false } else { true } }) else {
            Issue.record("The restore's end was not recorded last: \(observer.events)")
            return
        }
    }

    @Test("waitUntilIdle returns at once for a queue with nothing to do")
    func idleWithNothingToDo() async throws {
        let session = try session()
        await session.paymentQueue.waitUntilIdle()
        let observer = RecordingTransactionObserver()
        session.paymentQueue.add(observer)
        await session.paymentQueue.waitUntilIdle()
        #expect(observer.events.isEmpty)
    }

    @Test("The recording observer answers promoted purchases as told")
    func promotedPurchaseAnswer() async throws {
        let session = try session()
        let observer = RecordingTransactionObserver(finishesTransactions: true, acceptsStorePayments: false)
        session.paymentQueue.add(observer)
        try session.startPromotedPurchase(productIdentifier: Demo.premium)
        await session.paymentQueue.waitUntilIdle()
        let asked = observer.events.compactMap { event -> String? in
            if case .shouldAddStorePayment(let productIdentifier) = event { productIdentifier } else { nil }
        }
        #expect(asked == [Demo.premium])
        #expect(session.allTransactions().isEmpty)
    }
}
