import AppStoreEngine
import AppStoreFormats
import Foundation
import Testing

/// A tenant's settings as a versioned row of every storage: changed through an engine, in force in every engine on the
/// storage from its next operation, outliving the engines, and back to the configuration's after a reset.
@Suite("Settings storage")
struct SettingsStorageTests {
    static let catalog = Catalog(products: [CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!)])
    let start = Date(timeIntervalSince1970: 1_768_478_400)

    @Test("Each change stores the tenant's settings with the next version; nil goes back to the configuration's; erasing and restoring the tenant leave them", arguments: StorageKind.allCases)
    func versionedRow(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        #expect(try await other.read(tenant: "alpha") { try $0.storedSettings() } == StoredSettings())
        #expect(try await other.read(tenant: "alpha") { try $0.settingsVersion() } == 0)

        let askToBuy = StoreSettings(storefront: "FRA", askToBuyEnabled: true, renewalLimit: 12)
        try await storage.transaction(tenant: "alpha") { try $0.write(.saveSettings(askToBuy)) }
        #expect(try await other.read(tenant: "alpha") { try $0.storedSettings() } == StoredSettings(version: 1, settings: askToBuy))
        #expect(try await other.read(tenant: "beta") { try $0.storedSettings() } == StoredSettings(), "a tenant's settings are its own")

        let version = try await storage.transaction(tenant: "alpha") { transaction in
            try transaction.write(.saveSettings(StoreSettings(failTransactionsEnabled: true, failureErrorCode: 2)))
            return try transaction.settingsVersion()
        }
        #expect(version == 2, "a transaction reads the version it wrote")
        try await storage.transaction(tenant: "alpha") { try $0.write([.eraseTenant, .restore(TenantSnapshot())]) }
        #expect(try await other.read(tenant: "alpha") { try $0.storedSettings() }.settings?.failureErrorCode == 2)

        try await storage.transaction(tenant: "alpha") { try $0.write(.saveSettings(nil)) }
        #expect(try await other.read(tenant: "alpha") { try $0.storedSettings() } == StoredSettings(version: 3, settings: nil))
        #expect(try await other.read(tenant: "alpha") { try $0.settingsVersion() } == 3)
    }

    @Test("Ask to Buy switched on through one engine is in force on another engine on the storage at its next purchase, and for an engine opened later; a reset goes back to the configuration's", arguments: StorageKind.allCases)
    func changesReachEveryEngine(kind: StorageKind) async throws {
        let (first, second, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let tenant = UUID().uuidString
        func engine(on storage: any Storage) -> StoreEngine {
            StoreEngine(
                tenantID: tenant, catalog: Self.catalog, settings: StoreSettings(storefront: "DEU"), storage: storage,
                clock: VirtualClock(start: start), signer: .ephemeral
            )
        }
        let (a, b) = (engine(on: first), engine(on: second))
        _ = try await b.purchase(PurchaseRequest(productID: "premium", accountID: "ana", bundleID: "app"))

        try await a.updateSettings { $0.askToBuyEnabled = true }
        #expect(await a.settings.askToBuyEnabled)
        let waiting = try await b.purchase(PurchaseRequest(productID: "premium", accountID: "bo", bundleID: "app"))
        #expect(waiting.state == .pendingApproval)
        #expect(await b.settings.askToBuyEnabled, "the purchase brought the stored settings")
        #expect(await b.settings.storefront == "DEU", "what was not changed stays the configuration's")

        let later = engine(on: second)
        #expect(try await later.currentSettings().askToBuyEnabled)

        try await b.erase()
        #expect(try await a.currentSettings() == StoreSettings(storefront: "DEU"), "a reset goes back to the configuration's settings")
        let bought = try await a.purchase(PurchaseRequest(productID: "premium", accountID: "cy", bundleID: "app"))
        #expect(bought.state == .purchased)
    }

    @Test("Settings stored by a version that knew fewer fields read back with the defaults of the missing ones")
    func olderRowsDecode() throws {
        let settings = try JSONDecoder().decode(StoreSettings.self, from: Data(#"{"storefront": "FRA", "askToBuyEnabled": true}"#.utf8))
        #expect(settings == StoreSettings(storefront: "FRA", askToBuyEnabled: true))
        let full = StoreSettings(storefront: "JPN", locale: "ja_JP", failTransactionsEnabled: true, failureErrorCode: 2, timeRate: .oneMinuteIsOneDay, renewalLimit: 3)
        #expect(try JSONDecoder().decode(StoreSettings.self, from: JSONEncoder().encode(full)) == full)
    }
}
