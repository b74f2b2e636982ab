import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

@Suite("Ask to Buy, interrupted purchases and failures")
struct TestSwitchTests {
    @Test("With Ask to Buy a purchase is deferred; approving it makes the same transaction purchased")
    func askToBuyApprove() async throws {
        let harness = try Harness()
        harness.session.askToBuyEnabled = true
        try await harness.buy(Demo.premium)
        let deferred = try await harness.spy.waitForTransaction(Demo.premium, .deferred)
        #expect(deferred.identifier == nil)
        let pending = try #require(harness.session.allTransactions().first)
        #expect(pending.pendingAskToBuyConfirmation)
        #expect(pending.state == .deferred)

        // A deferred transaction cannot be finished yet.
        harness.queue.finishTransaction(try harness.transaction(deferred))
        #expect(harness.queue.transactions.count == 1)

        try harness.session.approveAskToBuyTransaction(identifier: pending.identifier)
        let purchased = try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        #expect(purchased.object == deferred.object)
        #expect(purchased.identifier == String(pending.identifier))
    }

    @Test("Declining an Ask to Buy request fails the deferred transaction")
    func askToBuyDecline() async throws {
        let harness = try Harness(autoFinish: true)
        harness.session.askToBuyEnabled = true
        try await harness.buy(Demo.darkTheme)
        let deferred = try await harness.spy.waitForTransaction(Demo.darkTheme, .deferred)
        let pending = try #require(harness.session.allTransactions().first)
        try harness.session.declineAskToBuyTransaction(identifier: pending.identifier)
        let failed = try await harness.spy.waitForTransaction(Demo.darkTheme, .failed)
        #expect(failed.object == deferred.object)
        #expect(failed.errorCode == .paymentCancelled)
        #expect(throws: SKTestError(.invalidAction)) { try harness.session.approveAskToBuyTransaction(identifier: pending.identifier) }
    }

    @Test("An interrupted purchase fails; once resolved it arrives as a new purchased transaction of the same product and quantity")
    func interruptedPurchase() async throws {
        let harness = try Harness(autoFinish: true)
        harness.session.interruptedPurchasesEnabled = true
        try await harness.buy(Demo.coins, quantity: 2)
        let failed = try await harness.spy.waitForTransaction(Demo.coins, .failed)
        try await harness.spy.waitForRemoval(of: failed)
        let interrupted = try #require(harness.session.allTransactions().first)
        #expect(interrupted.hasPurchaseIssue)

        try harness.session.resolveIssueForTransaction(identifier: interrupted.identifier)
        let purchased = try await harness.spy.waitForTransaction(Demo.coins, .purchased)
        #expect(purchased.object != failed.object)
        #expect(purchased.quantity == 2)
        #expect(purchased.identifier == String(interrupted.identifier))
    }

    @Test("An interrupted purchase the app finished does not come back on the next launch before it is resolved")
    func finishedInterruptionStaysFinished() async throws {
        let harness = try Harness(autoFinish: true)
        harness.session.interruptedPurchasesEnabled = true
        try await harness.buy(Demo.premium)
        let failed = try await harness.spy.waitForTransaction(Demo.premium, .failed)
        try await harness.spy.waitForRemoval(of: failed)
        // The app quits; the next launch is a new queue on the same device.
        harness.queue.remove(harness.spy)
        let relaunch = SKPaymentQueue(environment: harness.session.environment)
        let observer = ObserverSpy(autoFinish: true, queue: relaunch)
        relaunch.add(observer)
        // The launch synchronization must not bring the failure back.
        await relaunch.waitUntilIdle()
        #expect(observer.updates.isEmpty)
        let interrupted = try #require(harness.session.allTransactions().first)
        try harness.session.resolveIssueForTransaction(identifier: interrupted.identifier)
        try await observer.waitForTransaction(Demo.premium, .purchased)
        #expect(!observer.updates.contains { $0.state == .failed })
    }

    @Test(
        "With failing transactions on, a purchase fails with the configured error",
        arguments: [SKError.Code.unknown, .invalidOfferIdentifier, .invalidSignature, .missingOfferParams, .invalidOfferPrice]
    )
    func failTransactions(code: SKError.Code) async throws {
        let harness = try Harness(autoFinish: true)
        harness.session.failTransactionsEnabled = true
        harness.session.failureError = code
        #expect(harness.session.failureError == code)
        try await harness.buy(Demo.coins)
        let failed = try await harness.spy.waitForTransaction(Demo.coins, .failed)
        #expect(failed.errorCode == code)
        #expect(failed.identifier == nil)
        let record = try #require(try await harness.session.engine.transactions().first)
        #expect(record.state == .failed(errorCode: code.rawValue))
    }

    @Test("Resetting the session goes back to the configuration's settings and keeps the transactions")
    func resetToDefaultState() async throws {
        let harness = try Harness(autoFinish: true)
        try await harness.buy(Demo.coins)
        try await harness.spy.waitForTransaction(Demo.coins, .purchased)
        harness.session.askToBuyEnabled = true
        harness.session.interruptedPurchasesEnabled = true
        harness.session.failTransactionsEnabled = true
        harness.session.failureError = .invalidSignature
        harness.session.storefront = "FRA"
        harness.session.locale = Locale(identifier: "fr_FR")
        harness.session.resetToDefaultState()
        #expect(!harness.session.askToBuyEnabled)
        #expect(!harness.session.interruptedPurchasesEnabled)
        #expect(!harness.session.failTransactionsEnabled)
        #expect(harness.session.failureError == .unknown)
        #expect(harness.session.storefront == "USA")
        #expect(harness.session.locale.identifier == "en_US")
        #expect(harness.session.allTransactions().count == 1)
    }
}
