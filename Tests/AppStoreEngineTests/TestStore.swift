import AppStoreEngine
import AppStoreFormats
import StoreKitConfiguration
import Foundation

/// A fixed start date for every test clock: 2026-01-15T12:00:00Z.
let testStart = Date(timeIntervalSince1970: 1_768_478_400)

/// A small catalog with one product of each kind.
let testCatalog = Catalog(products: [
    CatalogProduct(id: "coins", type: .consumable, price: Decimal(string: "0.99")!),
    CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!, isFamilyShareable: true),
    CatalogProduct(id: "season.pass", type: .nonRenewable, price: Decimal(string: "9.99")!),
    CatalogProduct(
        id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
        subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
    ),
])

let app = "com.example.demo"

/// A fresh store: its own in-memory storage, a virtual clock at ``testStart``.
func makeStore(settings: StoreSettings = StoreSettings(), storage: any Storage = InMemoryStorage(), tenant: String = UUID().uuidString) throws -> (StoreEngine, VirtualClock) {
    let clock = VirtualClock(start: testStart)
    return (StoreEngine(tenantID: tenant, catalog: testCatalog, settings: settings, storage: storage, clock: clock, signer: .ephemeral), clock)
}

extension StoreEngine {
    /// Buys `productID` for the default account in the test app.
    func buy(_ productID: String, quantity: Int = 1, device: UUID? = nil, account: String = StoreDefaults.accountID) async throws -> TransactionRecord {
        try await purchase(PurchaseRequest(productID: productID, accountID: account, bundleID: app, quantity: quantity, deviceID: device))
    }
}

/// Writes the store's root certificates as DER files in `directory` and returns the `--root FILE` arguments the
/// Python scripts that wrap Apple's library take.
func rootArguments(of store: StoreEngine, in directory: URL) throws -> [String] {
    try store.signer.certificateAuthority.rootCertificatesDER.enumerated().flatMap { index, root in
        let file = directory.appendingPathComponent("root\(index).der")
        try root.write(to: file)
        return ["--root", file.path]
    }
}
