import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import StoreKitConfiguration
import Testing

/// Storage that counts the round trips a store makes to the storage under it.
final class CountingStorage: Storage {
    let base = InMemoryStorage()
    private let counts = Locked((reads: 0, transactions: 0))

    var reads: Int { counts.current.reads }
    var transactions: Int { counts.current.transactions }
    var roundTrips: Int { reads + transactions }

    func reset() { counts.withLock { $0 = (0, 0) } }

    func read<Result: Sendable>(tenant: String, _ body: @Sendable (any StorageReader) throws -> Result) async throws -> Result {
        counts.withLock { $0.reads += 1 }
        return try await base.read(tenant: tenant, body)
    }

    func transaction<Result: Sendable>(tenant: String, _ body: @escaping @Sendable (any StorageTransaction) throws -> Result) async throws -> Result {
        counts.withLock { $0.transactions += 1 }
        return try await base.transaction(tenant: tenant, body)
    }

    func apiKey(id: String) async throws -> StoredAPIKey? {
        counts.withLock { $0.reads += 1 }
        return await base.apiKey(id: id)
    }

    func tenantsWithCatalogs() async throws -> [String] {
        counts.withLock { $0.reads += 1 }
        return await base.tenantsWithCatalogs()
    }

    func tenantsWithState() async throws -> [String] {
        counts.withLock { $0.reads += 1 }
        return await base.tenantsWithState()
    }
}

/// A connection that counts the app receipts it is asked for: each one is an RSA signature unless the
/// engine's cache already holds the same purchases.
final class CountingConnection: StoreConnection {
    let base: any StoreConnection
    private let receiptCount = Locked(0)

    init(_ base: any StoreConnection) { self.base = base }

    var receipts: Int { receiptCount.current }
    func reset() { receiptCount.withLock { $0 = 0 } }

    func settings() async throws(StoreError) -> StoreSettings { try await base.settings() }
    func products(for identifiers: Set<String>) async throws(StoreError) -> [CatalogProduct] { try await base.products(for: identifiers) }
    func account(_ id: String) async throws(StoreError) -> Account { try await base.account(id) }
    func purchase(_ request: PurchaseRequest) async throws(StoreError) -> TransactionRecord { try await base.purchase(request) }
    func finish(transactionID: UInt64, deviceID: UUID) async throws(StoreError) { try await base.finish(transactionID: transactionID, deviceID: deviceID) }
    func unfinishedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await base.unfinishedTransactions(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func transactions(_ query: TransactionQuery) async throws(StoreError) -> [TransactionRecord] { try await base.transactions(query) }
    func restoreCompletedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await base.restoreCompletedTransactions(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func purchaseIntents(accountID: String, bundleID: String) async throws(StoreError) -> [PurchaseIntentRecord] {
        try await base.purchaseIntents(accountID: accountID, bundleID: bundleID)
    }
    func removePurchaseIntent(_ id: UUID) async throws(StoreError) { try await base.removePurchaseIntent(id) }
    func redeemOfferCode(_ code: String, accountID: String, bundleID: String) async throws(StoreError) -> TransactionRecord {
        try await base.redeemOfferCode(code, accountID: accountID, bundleID: bundleID)
    }
    func subscriptions(accountID: String, bundleID: String) async throws(StoreError) -> [SubscriptionRecord] {
        try await base.subscriptions(accountID: accountID, bundleID: bundleID)
    }
    func appReceipt(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> Data {
        receiptCount.withLock { $0 += 1 }
        return try await base.appReceipt(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func hostedContent(productID: String) async throws(StoreError) -> HostedContent? { try await base.hostedContent(productID: productID) }
    func rootCertificates() async throws(StoreError) -> [Data] { try await base.rootCertificates() }
    func requestRefund(transactionID: UInt64, accountID: String, approve: Bool, reason: String?) async throws(StoreError) {
        try await base.requestRefund(transactionID: transactionID, accountID: accountID, approve: approve, reason: reason)
    }
    func signedTransactions(_ ids: [UInt64], deviceID: UUID) async throws(StoreError) -> [String] {
        try await base.signedTransactions(ids, deviceID: deviceID)
    }
    func signedRenewalInfo(subscriptionIDs: [UInt64], deviceID: UUID) async throws(StoreError) -> [String] {
        try await base.signedRenewalInfo(subscriptionIDs: subscriptionIDs, deviceID: deviceID)
    }
    func signedAppTransaction(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> String {
        try await base.signedAppTransaction(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func externalPurchaseToken(tokenType: ExternalPurchaseTokenType?, accountID: String, bundleID: String) async throws(StoreError) -> ExternalPurchaseTokenRecord? {
        try await base.externalPurchaseToken(tokenType: tokenType, accountID: accountID, bundleID: bundleID)
    }
    func changes() async -> AsyncStream<StoreChange> { await base.changes() }
}

/// What one purchase costs the app's queue: storage round trips and receipts built.
@Suite("The cost of a purchase")
struct CostTests {
    @Test("A purchase the app finishes costs three storage round trips and no receipt signature while nobody reads the receipt")
    func purchaseCost() async throws {
        let storage = CountingStorage()
        let configuration = try StoreKitConfigurationFile.load(contentsOf: demoConfiguration)
        let engine = StoreEngine(
            catalog: Catalog(configuration: configuration), settings: StoreSettings(configuration: configuration),
            storage: storage, clock: VirtualClock(start: testStart), signer: .ephemeral
        )
        let connection = CountingConnection(sessionTransport.connection(to: InProcessConnection(engine: engine)))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-cost-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = SKPaymentQueue(environment: StoreEnvironment(connection: connection, bundleID: "com.example.demo", deviceID: UUID(), appDirectory: directory))
        let observer = RecordingTransactionObserver(finishesTransactions: true)
        queue.add(observer)
        let product = try #require(try await ProductsFetcher.fetch([Demo.coins], from: queue).products.first)
        await queue.waitUntilIdle()

        // What waiting itself costs: `waitUntilIdle()` makes the queue look at the whole store once.
        storage.reset()
        await queue.waitUntilIdle()
        let waitCost = storage.roundTrips

        // Purchases one after the other, the app waiting for each, and then several at once.
        let purchases = 5
        storage.reset()
        connection.reset()
        for _ in 0..<purchases {
            queue.add(SKPayment(product: product))
            await queue.waitUntilIdle()
        }
        let oneByOne = Double(storage.roundTrips - purchases * waitCost) / Double(purchases)
        let oneByOneReceipts = Double(connection.receipts) / Double(purchases)
        storage.reset()
        connection.reset()
        for _ in 0..<purchases { queue.add(SKPayment(product: product)) }
        await queue.waitUntilIdle()
        let burst = Double(storage.roundTrips - waitCost) / Double(purchases)
        let burstReceipts = Double(connection.receipts) / Double(purchases)
        print("a full synchronization: \(waitCost) storage round trips")
        print("cost per purchase: one by one \(oneByOne) storage round trips and \(oneByOneReceipts) receipts; in a burst \(burst) and \(burstReceipts)")
        // One read of the account (the storefront may change during a purchase), the purchase, the finish; the
        // store's change signal for the queue's own purchase costs nothing, and nobody read the receipt.
        #expect(oneByOne <= 3)
        #expect(burst <= 3)
        #expect(connection.receipts == 0)
        #expect(observer.updatedTransactions.filter { $0.state == .purchased }.count == 2 * purchases)
    }
}
