import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import Testing

/// A tenant's catalog as a versioned row of every storage: given through an engine, sold by every engine on the storage
/// from its next operation, outliving the engines, an erase and a restore.
@Suite("Catalog storage")
struct CatalogStorageTests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)

    /// A `.storekit` file selling one non-consumable, `productID`.
    static func configuration(selling productID: String) throws -> StoreKitConfigurationFile {
        try StoreKitConfigurationFile(data: Data(#"""
            {"identifier": "X", "products": [{"displayPrice": "1.99", "familyShareable": false, "internalID": "1", "localizations": [{"description": "d", "displayName": "n", "locale": "en_US"}], "productID": "\#(productID)", "referenceName": "Only", "type": "NonConsumable"}], "settings": {}, "subscriptionGroups": [], "version": {"major": 4, "minor": 0}}
            """#.utf8))
    }

    @Test("Each change stores the tenant's catalog with the next version; erasing and restoring the tenant leave it; the storage lists the tenants with one", arguments: StorageKind.allCases)
    func versionedRow(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let alpha = "alpha-\(UUID().uuidString)", beta = "beta-\(UUID().uuidString)"
        #expect(try await other.read(tenant: alpha) { try $0.storedCatalog() } == StoredCatalog())
        #expect(try await other.read(tenant: alpha) { try $0.catalogVersion() } == 0)
        #expect(try await !other.tenantsWithCatalogs().contains(alpha))

        let one = Data(#"{"products": [], "version": {"major": 4, "minor": 0}}"#.utf8)
        try await storage.transaction(tenant: alpha) { try $0.write(.saveCatalog(one)) }
        #expect(try await other.read(tenant: alpha) { try $0.storedCatalog() } == StoredCatalog(version: 1, document: one))
        #expect(try await other.read(tenant: beta) { try $0.storedCatalog() } == StoredCatalog(), "a tenant's catalog is its own")
        #expect(try await other.tenantsWithCatalogs().contains(alpha))
        #expect(try await !other.tenantsWithCatalogs().contains(beta))

        let two = Data(#"{"products": [], "settings": {}, "version": {"major": 4, "minor": 0}}"#.utf8)
        let version = try await storage.transaction(tenant: alpha) { transaction in
            try transaction.write(.saveCatalog(two))
            return try transaction.catalogVersion()
        }
        #expect(version == 2, "a transaction reads the version it wrote")
        try await storage.transaction(tenant: alpha) { try $0.write([.eraseTenant, .restore(TenantSnapshot())]) }
        #expect(try await other.read(tenant: alpha) { try $0.storedCatalog() } == StoredCatalog(version: 2, document: two))
    }

    @Test("The storage lists every tenant with anything stored — a purchase, settings, notification URLs, a moved clock, a catalog — and no tenant only read", arguments: StorageKind.allCases)
    func tenantsWithState(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let prefix = UUID().uuidString
        func engine(_ name: String) -> StoreEngine {
            StoreEngine(
                tenantID: "\(prefix)-\(name)", catalog: Catalog(products: [CatalogProduct(id: "premium", type: .nonConsumable, price: 4.99)]),
                storage: storage, clock: VirtualClock(start: Self.start), signer: .ephemeral
            )
        }
        _ = try await engine("bought").purchase(PurchaseRequest(productID: "premium", accountID: "ana", bundleID: "app"))
        try await engine("settings").updateSettings { $0.askToBuyEnabled = true }
        try await engine("urls").setNotificationDestinations(NotificationDestinations(defaultURL: URL(string: "http://127.0.0.1:9/apple")))
        try await engine("clock").setTimeRate(.oneSecondIsOneDay)
        try await engine("catalog").setCatalog(try Self.configuration(selling: "com.example.one"))
        _ = try await engine("only-read").transactions()

        let listed = try await other.tenantsWithState().filter { $0.hasPrefix(prefix) }
        #expect(listed == ["bought", "catalog", "clock", "settings", "urls"].map { "\(prefix)-\($0)" })
    }

    @Test("Deleting a tenant removes everything of it — purchases, settings, notification URLs, clock, catalog, API keys — from every handle, and leaves other tenants alone", arguments: StorageKind.allCases)
    func deleteTenant(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let prefix = UUID().uuidString
        let (doomed, kept) = ("\(prefix)-doomed", "\(prefix)-kept")
        func engine(_ tenant: String) -> StoreEngine {
            StoreEngine(
                tenantID: tenant, catalog: Catalog(products: [CatalogProduct(id: "premium", type: .nonConsumable, price: 4.99)]),
                storage: storage, clock: VirtualClock(start: Self.start), signer: .ephemeral
            )
        }
        let store = engine(doomed)
        _ = try await store.purchase(PurchaseRequest(productID: "premium", accountID: "ana", bundleID: "app"))
        try await store.updateSettings { $0.askToBuyEnabled = true }
        try await store.setNotificationDestinations(NotificationDestinations(defaultURL: URL(string: "http://127.0.0.1:9/apple")))
        try await store.setTimeRate(.oneSecondIsOneDay)
        try await store.setCatalog(try Self.configuration(selling: "com.example.one"))
        let keyID = String(prefix.prefix(8)) + "K1"
        let key = APIKeyRecord(keyID: keyID, issuerID: "issuer", publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nK\n-----END PUBLIC KEY-----", created: Self.start)
        try await storage.transaction(tenant: doomed) { try $0.write(.addAPIKey(key)) }
        _ = try await engine(kept).purchase(PurchaseRequest(productID: "premium", accountID: "bo", bundleID: "app"))

        try await store.delete()

        #expect(try await other.tenantsWithState().filter { $0.hasPrefix(prefix) } == [kept])
        #expect(try await other.tenantsWithCatalogs().filter { $0.hasPrefix(prefix) }.isEmpty)
        #expect(try await other.apiKey(id: keyID) == nil)
        let left = try await other.read(tenant: doomed) { reader in
            (try reader.snapshot(), try reader.storedCatalog(), try reader.storedSettings(), try reader.notificationDestinations())
        }
        #expect(left.0.transactions.isEmpty && left.0.accounts.isEmpty && left.0.clock == StoreClockState())
        #expect(left.1.version == 0 && left.2.version == 0 && left.3 == nil)
        #expect(try await engine(kept).transactions().count == 1, "another tenant keeps its purchase")
    }

    @Test("A catalog given through one engine is sold by another engine on the storage at its next purchase, and by an engine opened later; a reset keeps it", arguments: StorageKind.allCases)
    func changesReachEveryEngine(kind: StorageKind) async throws {
        let (first, second, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let tenant = UUID().uuidString
        let opened = Catalog(products: [CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!)])
        func engine(on storage: any Storage) -> StoreEngine {
            StoreEngine(tenantID: tenant, catalog: opened, storage: storage, clock: VirtualClock(start: Self.start), signer: .ephemeral)
        }
        let (a, b) = (engine(on: first), engine(on: second))
        _ = try await b.purchase(PurchaseRequest(productID: "premium", accountID: "ana", bundleID: "app"))

        try await a.setCatalog(try Self.configuration(selling: "com.example.one"))
        #expect(await a.catalog.products.map(\.id) == ["com.example.one"])
        let bought = try await b.purchase(PurchaseRequest(productID: "com.example.one", accountID: "bo", bundleID: "app"))
        #expect(bought.state == .purchased, "the purchase brought the stored catalog")
        await #expect(throws: StoreError.self) {
            _ = try await b.purchase(PurchaseRequest(productID: "premium", accountID: "bo", bundleID: "app"))
        }

        let later = engine(on: second)
        #expect(await later.catalog.products.map(\.id) == ["premium"], "opened with another catalog")
        #expect(try await later.currentCatalog().products.map(\.id) == ["com.example.one"])
        #expect(try await later.storedCatalog()?.version == 1)

        try await b.erase()
        #expect(try await a.currentCatalog().products.map(\.id) == ["com.example.one"], "a reset keeps the tenant's catalog")
    }

    @Test("An app's Retention Messaging content is a row of every storage: stored, read by another handle, kept by an erase and a restore, forgotten with nil; each app's is its own", arguments: StorageKind.allCases)
    func retentionMessagingRow(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let tenant = UUID().uuidString
        #expect(try await other.read(tenant: tenant) { try $0.retentionMessaging(bundleID: "app") } == nil)
        let image = UUID(), message = UUID()
        let content = RetentionMessagingContent(
            images: [.init(id: image, size: "FULL_SIZE", state: "APPROVED")],
            messages: [.init(id: message, imageIDs: [image], state: "PENDING")],
            defaults: [.init(productID: "monthly", locale: "en-US", messageID: message)],
            realtimeURL: URL(string: "https://example.com/retention")
        )
        try await storage.transaction(tenant: tenant) { try $0.write(.saveRetentionMessaging(bundleID: "app", content)) }
        #expect(try await other.read(tenant: tenant) { try $0.retentionMessaging(bundleID: "app") } == content)
        #expect(try await other.read(tenant: tenant) { try $0.retentionMessaging(bundleID: "other") } == nil, "an app's content is its own")
        try await storage.transaction(tenant: tenant) { try $0.write([.eraseTenant, .restore(TenantSnapshot())]) }
        #expect(try await other.read(tenant: tenant) { try $0.retentionMessaging(bundleID: "app") } == content)
        try await storage.transaction(tenant: tenant) { try $0.write(.saveRetentionMessaging(bundleID: "app", nil)) }
        #expect(try await other.read(tenant: tenant) { try $0.retentionMessaging(bundleID: "app") } == nil)
    }
}
