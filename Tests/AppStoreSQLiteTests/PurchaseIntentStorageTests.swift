import AppStoreEngine
import AppStoreSQLite
import Foundation
import Testing
import AppStoreFormats

@Suite("SQLite storage of purchase intents")
struct PurchaseIntentStorageTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-intents-\(UUID().uuidString)")
    let catalog = Catalog(products: [CatalogProduct(id: "premium", type: .nonConsumable, price: 5)])

    func engine(_ storage: any Storage, tenant: String = "default") throws -> StoreEngine {
        StoreEngine(tenantID: tenant, catalog: catalog, storage: storage, clock: VirtualClock(start: Date(timeIntervalSince1970: 1_768_478_400)), signer: .ephemeral)
    }

    @Test("An intent written by one process's store is read and removed by another's, per tenant")
    func intentsAreShared() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.sqlite")
        let writer = try engine(try SQLiteStorage(url: url))
        let reader = try engine(try SQLiteStorage(url: url))
        let intent = try await writer.addPurchaseIntent(productID: "premium", bundleID: "app")
        #expect(try await reader.purchaseIntents(accountID: StoreDefaults.accountID, bundleID: "app") == [intent])
        #expect(try await engine(try SQLiteStorage(url: url), tenant: "other").purchaseIntents(accountID: StoreDefaults.accountID, bundleID: "app").isEmpty)
        try await reader.removePurchaseIntent(intent.id)
        #expect(try await writer.purchaseIntents(accountID: StoreDefaults.accountID, bundleID: "app").isEmpty)
    }
}
