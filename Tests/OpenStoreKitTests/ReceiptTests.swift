import AppStoreEngine
import AppStoreFormats
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

@Suite("The app receipt on the device")
struct ReceiptTests {
    /// Verifies the device's receipt against the session's root and the device, and returns its contents.
    func verifiedReceipt(_ harness: Harness, sourceLocation: SourceLocation = #_sourceLocation) async throws -> AppReceipt {
        let url = try #require(harness.queue.appStoreReceiptURL, sourceLocation: sourceLocation)
        let root = try #require(try harness.session.engine.signer.certificateAuthority.receiptChain.derEncoded.last)
        let verifier = try ReceiptVerifier(rootCertificates: [root], bundleID: harness.session.environment.bundleID)
        return try await verifier.verify(try Data(contentsOf: url), deviceIdentifier: harness.session.environment.deviceID).get()
    }

    @Test("The receipt URL is there from launch, as on iOS; no file before the first purchase, even after a refresh or a restore")
    func noReceiptBeforePurchase() async throws {
        let harness = try Harness(autoFinish: true)
        let url = try #require(harness.queue.appStoreReceiptURL)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        try await RefreshRunner.refresh(harness.queue)
        #expect(harness.queue.appStoreReceiptURL == url)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        harness.queue.restoreCompletedTransactions()
        try await harness.spy.waitForRestoreFinished()
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("Code that reads the receipt URL once at launch finds the receipt there after each purchase, before its observer hears of it")
    func urlReadOnceAtLaunch() async throws {
        let harness = try Harness(autoFinish: true)
        let url = try #require(harness.queue.appStoreReceiptURL)
        let receiptWhenDelivered = Locked<[String]>([])
        harness.spy.onUpdate { transaction in
            guard transaction.transactionState == .purchased, let data = try? Data(contentsOf: url),
                  let receipt = try? AppReceipt(receiptData: data) else { return }
            receiptWhenDelivered.withLock { $0 = receipt.inAppPurchases.map(\.productID) }
        }
        try await harness.buy(Demo.premium)
        try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        #expect(receiptWhenDelivered.current == [Demo.premium])
        try await harness.buy(Demo.darkTheme)
        try await harness.spy.waitForTransaction(Demo.darkTheme, .purchased)
        #expect(Set(receiptWhenDelivered.current) == [Demo.premium, Demo.darkTheme])
    }

    @Test("The receipt appears with the first purchase, signed for the device, before the observer hears of the purchase")
    func receiptAfterFirstPurchase() async throws {
        let harness = try Harness()
        let receiptWhenDelivered = Locked<Bool?>(nil)
        let queue = harness.queue
        harness.spy.onUpdate { transaction in
            guard transaction.transactionState == .purchased, let url = queue.appStoreReceiptURL else { return }
            receiptWhenDelivered.withLock { $0 = FileManager.default.fileExists(atPath: url.path) }
        }
        try await harness.buy(Demo.coins)
        try await harness.spy.waitForTransaction(Demo.coins, .purchased)
        #expect(receiptWhenDelivered.current == true)
        let receipt = try await verifiedReceipt(harness)
        #expect(receipt.bundleID == harness.session.environment.bundleID)
        #expect(receipt.inAppPurchases.map(\.productID) == [Demo.coins])
    }

    @Test("A consumable is in the receipt the app reads before finishing it, and gone from the one it reads after")
    func consumableLeavesReceiptAfterFinish() async throws {
        let harness = try Harness(autoFinish: true)
        let queue = harness.queue
        let receiptBeforeFinish = Locked<Data?>(nil)
        harness.spy.onUpdate { transaction in
            guard transaction.transactionState == .purchased, let url = queue.appStoreReceiptURL else { return }
            receiptBeforeFinish.withLock { $0 = try? Data(contentsOf: url) }
        }
        try await harness.buy(Demo.coins)
        let coins = try await harness.spy.waitForTransaction(Demo.coins, .purchased)
        try await harness.spy.waitForRemoval(of: coins)
        let early = try AppReceipt(receiptData: try #require(receiptBeforeFinish.current))
        #expect(early.inAppPurchases.map(\.productID) == [Demo.coins])
        try await harness.buy(Demo.premium)
        try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        #expect(try await verifiedReceipt(harness).inAppPurchases.map(\.productID) == [Demo.premium])
    }

    @Test("A refund updates the receipt before observers hear of the revocation")
    func refundUpdatesReceiptFirst() async throws {
        let harness = try Harness(autoFinish: true)
        try await harness.buy(Demo.premium)
        let purchased = try await harness.spy.waitForTransaction(Demo.premium, .purchased)
        let url = try #require(harness.queue.appStoreReceiptURL)
        let receiptAtRevocation = Locked<Data?>(nil)
        let revoked = Signal()
        let watcher = RevocationWatcher { receiptAtRevocation.withLock { $0 = try? Data(contentsOf: url) }; revoked.fire() }
        harness.queue.add(watcher)
        let identifier = try #require(purchased.identifier.flatMap { Int($0) })
        try harness.session.refundTransaction(identifier: identifier)
        try await revoked.wait(on: harness.queue)
        let data = try #require(receiptAtRevocation.current)
        let receipt = try AppReceipt(receiptData: data)
        #expect(receipt.inAppPurchases.first { $0.productID == Demo.premium }?.cancellationDate != nil)
    }

    @Test("A receipt refresh after a purchase writes the receipt")
    func refreshWritesReceipt() async throws {
        let harness = try Harness(autoFinish: true)
        try harness.session.buyProduct(productIdentifier: Demo.darkTheme)
        try await harness.spy.waitForTransaction(Demo.darkTheme, .purchased)
        let url = try #require(harness.queue.appStoreReceiptURL)
        try FileManager.default.removeItem(at: url)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        try await RefreshRunner.refresh(harness.queue)
        #expect(try await verifiedReceipt(harness).inAppPurchases.map(\.productID) == [Demo.darkTheme])
    }
}

/// Runs an `SKReceiptRefreshRequest` to its end.
final class RefreshRunner: NSObject, SKRequestDelegate, @unchecked Sendable {
    private let done = Signal()
    private let failure = Locked<(any Error)?>(nil)

    static func refresh(_ queue: SKPaymentQueue) async throws {
        let runner = RefreshRunner()
        let request = SKReceiptRefreshRequest(receiptProperties: nil, paymentQueue: queue)
        request.delegate = runner
        request.start()
        try await runner.done.wait(on: queue)
        withExtendedLifetime((runner, request)) {}
        if let error = runner.failure.current { throw error }
    }

    func requestDidFinish(_ request: SKRequest) {
        done.fire()
    }

    func request(_ request: SKRequest, didFailWithError error: any Error) {
        failure.withLock { $0 = error }
        done.fire()
    }
}

/// Calls back when the queue announces a revocation.
final class RevocationWatcher: NSObject, SKPaymentTransactionObserver, @unchecked Sendable {
    private let onRevoke: @Sendable () -> Void

    init(_ onRevoke: @escaping @Sendable () -> Void) {
        self.onRevoke = onRevoke
    }

    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {}

    func paymentQueue(_ queue: SKPaymentQueue, didRevokeEntitlementsForProductIdentifiers productIdentifiers: [String]) {
        onRevoke()
    }
}
