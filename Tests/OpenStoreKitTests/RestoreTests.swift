import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

@Suite("Restoring purchases and relaunching")
struct RestoreTests {
    @Test("Restore replays each owned non-consumable as a new restored transaction whose original is the purchase, then finishes once")
    func restoreReplaysNonConsumables() async throws {
        let harness = try Harness(autoFinish: true)
        try await harness.buy(Demo.premium)
        let premium = try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        try await harness.buy(Demo.coins)
        try await harness.spy.waitForTransaction(Demo.coins, .purchased)
        try await harness.buy(Demo.seasonPass)
        try await harness.spy.waitForTransaction(Demo.seasonPass, .purchased)

        harness.queue.restoreCompletedTransactions()
        try await harness.spy.waitForRestoreFinished()
        let restored = harness.spy.updates.filter { $0.state == .restored }
        #expect(restored.map(\.product) == [Demo.premium])
        #expect(restored.first?.originalIdentifier == premium.identifier)
        #expect(restored.first?.identifier != premium.identifier)
        let finishedCount = harness.spy.log.filter { if case .restoreFinished = $0 { true } else { false } }.count
        #expect(finishedCount == 1)
        let finishIndex = try #require(harness.spy.log.firstIndex { if case .restoreFinished = $0 { true } else { false } })
        let restoreIndex = try #require(harness.spy.log.firstIndex {
            if case .updated(let views) = $0 { views.contains { $0.state == .restored } } else { false }
        })
        #expect(restoreIndex < finishIndex)
    }

    @Test("Restore with nothing to restore only calls the finished callback")
    func restoreWithNothing() async throws {
        let harness = try Harness(autoFinish: true)
        try await harness.buy(Demo.coins)
        try await harness.spy.waitForTransaction(Demo.coins, .purchased)
        let before = harness.spy.log.count
        harness.queue.restoreCompletedTransactions(withApplicationUsername: "player-1")
        try await harness.spy.waitForRestoreFinished()
        let after = harness.spy.log.dropFirst(before)
        #expect(!after.contains { if case .updated(let views) = $0 { views.contains { $0.state == .restored } } else { false } })
    }

    @Test("Restoring twice makes two restored transactions of the same purchase")
    func restoreTwice() async throws {
        let harness = try Harness(autoFinish: true)
        try await harness.buy(Demo.darkTheme)
        let purchase = try await harness.spy.waitForTransaction(Demo.darkTheme, .purchased)
        harness.queue.restoreCompletedTransactions()
        let first = try await harness.spy.waitForTransaction(Demo.darkTheme, .restored)
        harness.queue.restoreCompletedTransactions()
        let second = try await harness.spy.waitForTransaction(Demo.darkTheme, .restored, after: 1)
        #expect(first.identifier != second.identifier)
        #expect(first.originalIdentifier == purchase.identifier && second.originalIdentifier == purchase.identifier)
    }

    @Test("An unfinished transaction comes back when the app adds its observer on the next launch, until it is finished")
    func unfinishedComesBackOnRelaunch() async throws {
        let harness = try Harness()
        try await harness.buy(Demo.premium)
        let purchased = try await harness.spy.waitForTransaction(Demo.premium, .purchased)

        // The app quits without finishing; the next launch is a new queue on the same device.
        harness.queue.remove(harness.spy)
        let relaunch = SKPaymentQueue(environment: harness.session.environment)
        let observer = ObserverSpy(queue: relaunch)
        relaunch.add(observer)
        let delivered = try await observer.waitForTransaction(Demo.premium, .purchased)
        #expect(delivered.identifier == purchased.identifier)
        #expect(relaunch.transactions.count == 1)
        relaunch.finishTransaction(try #require(relaunch.transactions.first))
        try await observer.wait(for: "removed") { log in
            log.contains { if case .removed = $0 { true } else { false } } ? true : nil
        }

        let third = SKPaymentQueue(environment: harness.session.environment)
        let quiet = ObserverSpy(queue: third)
        third.add(quiet)
        await third.waitUntilIdle()
        #expect(!quiet.updates.contains { $0.identifier == purchased.identifier })
    }

    @Test("A purchase made outside the app reaches the observer as purchased")
    func purchaseOutsideTheApp() async throws {
        let harness = try Harness()
        try harness.session.buyProduct(productIdentifier: Demo.darkTheme)
        let delivered = try await harness.spy.waitForTransaction(Demo.darkTheme, .purchased)
        #expect(delivered.identifier == String(try #require(harness.session.allTransactions().first).identifier))
    }

    @Test("An observer added after transactions arrived is given the transactions in the queue")
    func lateObserver() async throws {
        let harness = try Harness()
        try await harness.buy(Demo.coins)
        try await harness.spy.waitForTransaction(Demo.coins, .purchased)
        let late = ObserverSpy(queue: harness.queue)
        harness.queue.add(late)
        try await late.waitForTransaction(Demo.coins, .purchased)
        #expect(harness.queue.transactionObservers.count == 2)
    }
}
