import AppStoreEngine
import AppStoreFormats
import StoreKitConfiguration
import Foundation
import TestProcesses
import Testing

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

/// Verifies `token`, signed data of `kind` (`transaction`, `renewal`, `notification`, …), with Apple's
/// app-store-server-library (Python) against the store's roots, and returns the script's answer: its `status` and, when
/// it is `OK`, the `payload` as Apple's models parse it.
func appleVerification(
    _ kind: String, _ token: String, store: StoreEngine, environment: String = "SANDBOX", appAppleID: Int64? = nil
) async throws -> [String: Any] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apple-verify-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let tokenFile = directory.appendingPathComponent("token.jws")
    try Data(token.utf8).write(to: tokenFile)
    var arguments = [
        ChildProcess.packageRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/verify_signed_data.py").path,
        kind, tokenFile.path, "--bundle-id", app, "--environment", environment,
    ]
    if let appAppleID { arguments += ["--app-apple-id", String(appAppleID)] }
    arguments += try rootArguments(of: store, in: directory)
    let result = try await ChildProcess.tool("python3", arguments).finished()
    #expect(result.status == 0, "\(result.errorOutput)")
    let line = try #require(result.output.split(separator: "\n").last.map(String.init))
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
}

/// Verifies `token` as ``appleVerification(_:_:store:environment:appAppleID:)`` does, expecting Apple's library to
/// accept it; returns the payload as Apple's models parse it.
func appleVerify(
    _ kind: String, _ token: String, store: StoreEngine, environment: String = "SANDBOX", appAppleID: Int64? = nil
) async throws -> [String: Any] {
    let output = try await appleVerification(kind, token, store: store, environment: environment, appAppleID: appAppleID)
    #expect(output["status"] as? String == "OK", "\(output). Install Apple's library: pip install app-store-server-library==3.1.2")
    return try #require(output["payload"] as? [String: Any])
}

/// Verifies a batch of signed items with Apple's app-store-server-library (Python `verify_batch.py`, one process)
/// against the store's roots, in `environment` (`SANDBOX` or `PRODUCTION`, which needs the app's `appAppleID`); one
/// result per item: its `status` and, when it is `OK`, the `payload` as Apple's models parse it.
///
/// - Parameter batch: items `{"kind": "transaction" | "renewal-info" | "app-transaction" | "notification" | "receipt", "data": …}`.
func appleVerifyBatch(
    _ batch: [[String: String]], store: StoreEngine, environment: String = "SANDBOX", appAppleID: Int64? = nil
) async throws -> [[String: Any]] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apple-verify-batch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let batchFile = directory.appendingPathComponent("batch.json")
    try JSONSerialization.data(withJSONObject: batch).write(to: batchFile)
    var arguments = [
        ChildProcess.packageRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/verify_batch.py").path,
        batchFile.path, "--bundle-id", app, "--environment", environment,
    ]
    if let appAppleID { arguments += ["--app-apple-id", String(appAppleID)] }
    arguments += try rootArguments(of: store, in: directory)
    let result = try await ChildProcess.tool("python3", arguments).finished()
    #expect(result.status == 0, "\(result.errorOutput). Install Apple's library: pip install app-store-server-library==3.1.2")
    let line = try #require(result.output.split(separator: "\n").last.map(String.init))
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [[String: Any]])
}
