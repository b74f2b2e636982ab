import AppStoreEngine
import Foundation
import Testing

@Suite("Purchase intents (promoted in-app purchases)")
struct PurchaseIntentTests {
    @Test("An intent waits in the store for its account and app, oldest first, until a device removes it")
    func intentsWaitUntilRemoved() async throws {
        let (store, clock) = try makeStore()
        let first = try await store.addPurchaseIntent(productID: "premium", bundleID: app)
        try await clock.advance(by: 60)
        let second = try await store.addPurchaseIntent(productID: "coins", bundleID: app)
        _ = try await store.addPurchaseIntent(productID: "coins", accountID: "other", bundleID: app)
        _ = try await store.addPurchaseIntent(productID: "coins", bundleID: "com.other.app")

        let waiting = try await store.purchaseIntents(accountID: StoreDefaults.accountID, bundleID: app)
        #expect(waiting.map(\.id) == [first.id, second.id])
        #expect(waiting.map(\.productID) == ["premium", "coins"])
        #expect(first.date == testStart)
        #expect(second.date == testStart.addingTimeInterval(60))

        try await store.removePurchaseIntent(first.id)
        try await store.removePurchaseIntent(first.id)
        #expect(try await store.purchaseIntents(accountID: StoreDefaults.accountID, bundleID: app).map(\.id) == [second.id])
        #expect(try await store.purchaseIntents(accountID: "other", bundleID: app).count == 1)
    }

    @Test("A product the store does not sell cannot be promoted")
    func unknownProduct() async throws {
        let (store, _) = try makeStore()
        await #expect(throws: StoreError.unknownProduct) {
            try await store.addPurchaseIntent(productID: "nothing", bundleID: app)
        }
        #expect(try await store.purchaseIntents(accountID: StoreDefaults.accountID, bundleID: app).isEmpty)
    }

    @Test("Apple's itms-services purchase-intent URL parses and prints back")
    func purchaseIntentURL() throws {
        let url = try #require(URL(string: "itms-services://?action=purchaseIntent&bundleId=com.example.app&productIdentifier=product_name"))
        let intent = try #require(PurchaseIntentURL(url))
        #expect(intent == PurchaseIntentURL(bundleID: "com.example.app", productID: "product_name"))
        #expect(intent.url.absoluteString == "itms-services://?action=purchaseIntent&bundleId=com.example.app&productIdentifier=product_name")
        #expect(PurchaseIntentURL(try #require(URL(string: "itms-services://?action=purchaseIntent&bundleId=com.example.app"))) == nil)
        #expect(PurchaseIntentURL(try #require(URL(string: "itms-services://?action=download&bundleId=a&productIdentifier=b"))) == nil)
        #expect(PurchaseIntentURL(try #require(URL(string: "https://example.com/?action=purchaseIntent&bundleId=a&productIdentifier=b"))) == nil)
    }
}
