import AppStoreEngine
import AppStoreFormats
import Foundation
import Testing

@Suite("Devices, restores, refunds and test controls")
struct DeviceAndRestoreTests {
    let phone = UUID(uuidString: "00000000-0000-0000-0000-0000000000A1")!
    let tablet = UUID(uuidString: "00000000-0000-0000-0000-0000000000B2")!

    @Test("A transaction stays unfinished on a device until that device finishes it")
    func finishIsPerDevice() async throws {
        let (store, _) = try makeStore()
        let onPhone = try await store.buy("coins", device: phone)
        let outside = try await store.buy("premium")
        #expect(try await store.unfinishedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: phone).map(\.id) == [onPhone.id, outside.id])
        #expect(try await store.unfinishedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: tablet).map(\.id) == [outside.id])
        try await store.finish(transactionID: onPhone.id, deviceID: phone)
        try await store.finish(transactionID: outside.id, deviceID: phone)
        #expect(try await store.unfinishedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: phone).isEmpty)
        #expect(try await store.unfinishedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: tablet).map(\.id) == [outside.id])
    }

    @Test("A transaction waiting for Ask to Buy cannot be finished")
    func pendingCannotFinish() async throws {
        let (store, _) = try makeStore(settings: StoreSettings(askToBuyEnabled: true))
        let pending = try await store.buy("coins", device: phone)
        await #expect(throws: StoreError.invalidTransactionState) { try await store.finish(transactionID: pending.id, deviceID: phone) }
    }

    @Test("Restore replays each owned non-consumable once, as new transactions pointing at the original")
    func restoreReplaysNonConsumables() async throws {
        let (store, clock) = try makeStore()
        let premium = try await store.buy("premium")
        _ = try await store.buy("premium")
        _ = try await store.buy("coins")
        _ = try await store.buy("season.pass")
        try await clock.advance(by: 86_400)
        #expect(try await store.restorableTransactions(accountID: StoreDefaults.accountID, bundleID: app).map(\.id) == [premium.id])
        let restored = try await store.restoreCompletedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: tablet)
        #expect(restored.count == 1)
        #expect(restored[0].origin == .restore)
        #expect(restored[0].originalID == premium.id)
        #expect(restored[0].id != premium.id)
        #expect(restored[0].purchaseDate == testStart.addingTimeInterval(86_400))
        #expect(restored[0].originalPurchaseDate == premium.purchaseDate)
        #expect(restored[0].amountCharged == 0)
        let again = try await store.restoreCompletedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: tablet)
        #expect(again.count == 1 && again[0].id != restored[0].id)
    }

    @Test("Restore with nothing to restore returns nothing")
    func emptyRestore() async throws {
        let (store, _) = try makeStore()
        _ = try await store.buy("coins")
        #expect(try await store.restoreCompletedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: phone).isEmpty)
    }

    @Test("Refunding a non-consumable revokes it and everything derived from it, at the clock's date")
    func refundRevokes() async throws {
        let (store, clock) = try makeStore()
        let premium = try await store.buy("premium")
        let restored = try await store.restoreCompletedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: phone)
        try await clock.advance(by: 120)
        let events = await store.events()
        let revoked = try await store.refund(transactionID: premium.id, reason: .refundedDueToIssue)
        #expect(Set(revoked.map(\.id)) == [premium.id, restored[0].id])
        #expect(revoked.allSatisfy { $0.revocationDate == testStart.addingTimeInterval(120) && $0.revocationReason == .refundedDueToIssue })
        #expect(try await store.ownedProducts(accountID: StoreDefaults.accountID, bundleID: app).isEmpty)
        #expect(try await store.restorableTransactions(accountID: StoreDefaults.accountID, bundleID: app).isEmpty)
        // The REFUND notification the refund wrote is announced too, for whatever shows the outbox.
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .notificationsChanged)
        #expect(await iterator.next() == .transactionsRevoked(revoked))
        await #expect(throws: StoreError.invalidTransactionState) { try await store.refund(transactionID: premium.id) }
    }

    @Test("Deleting a purchase deletes the restores derived from it; clearing deletes everything")
    func deleteAndClear() async throws {
        let (store, _) = try makeStore()
        let premium = try await store.buy("premium")
        _ = try await store.restoreCompletedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: phone)
        let coins = try await store.buy("coins")
        let deleted = try await store.deleteTransaction(premium.id)
        #expect(deleted.count == 2)
        #expect(try await store.transactions().map(\.id) == [coins.id])
        await #expect(throws: StoreError.unknownTransaction) { try await store.transaction(premium.id) }
        try await store.clearTransactions()
        #expect(try await store.transactions().isEmpty)
    }

    @Test("Tenants sharing one storage never see each other's purchases")
    func tenantsAreIsolated() async throws {
        let storage = InMemoryStorage()
        let (first, _) = try makeStore(storage: storage, tenant: "first")
        let (second, _) = try makeStore(storage: storage, tenant: "second")
        _ = try await first.buy("premium")
        #expect(try await second.transactions().isEmpty)
        #expect(try await first.transactions().count == 1)
    }

    @Test("A storefront change is announced")
    func storefrontChange() async throws {
        let (store, _) = try makeStore()
        let events = await store.events()
        try await store.saveAccount(Account(id: StoreDefaults.accountID, storefront: "FRA"))
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .storefrontChanged(accountID: StoreDefaults.accountID, storefront: "FRA"))
        await #expect(throws: StoreError.unknownStorefront) { try await store.saveAccount(Account(id: "x", storefront: "XXX")) }
    }

    @Test("A transaction finished for every device (the server API's finish) leaves every device's queue and receipt")
    func finishEverywhere() async throws {
        let (store, _) = try makeStore()
        let phone = UUID(), tablet = UUID()
        let coins = try await store.buy("coins")
        try await store.finishEverywhere(transactionID: coins.id)
        for device in [phone, tablet] {
            #expect(try await store.unfinishedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device).isEmpty)
            let receipt = try AppReceipt(receiptData: try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: device))
            #expect(receipt.inAppPurchases.isEmpty)
        }
        #expect(TransactionRecord.transactionID(orderID: coins.orderID) == coins.id)
        #expect(TransactionRecord.transactionID(orderID: "X123") == nil)
    }
}
