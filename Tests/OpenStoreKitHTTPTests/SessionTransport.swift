import AppStoreEngine
import AppStoreHosting
import AppStoreServer
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import ServiceLifecycle

/// How this suite's sessions reach their stores: over HTTP. Every session's store becomes a tenant of one loopback
/// server, the same `StoreServer` that `storekit serve` runs, and the session's queues talk to it through
/// `HTTPStoreConnection`. So each test of the `OpenStoreKitTests` files (linked here) crosses the device protocol
/// for every device call, and its store changes reach the queue through the long poll.
let sessionTransport = SKTestSession.Transport { inProcess in
    LoopbackConnection(serving: inProcess)
}

/// A connection over HTTP to a session's store, which the suite's loopback server serves as a tenant of its own.
final class LoopbackConnection: StoreConnection {
    private let tenant: Task<HTTPStoreConnection, any Error>

    init(serving store: InProcessConnection) {
        tenant = Task {
            let url = try await LoopbackServer.shared.serve(store.engine)
            return HTTPStoreConnection(baseURL: url, hostedContentDirectory: store.hostedContentDirectory)
        }
    }

    private func http() async throws(StoreError) -> HTTPStoreConnection {
        do {
            return try await tenant.value
        } catch {
            throw StoreError.storeUnreachable("The loopback server did not start: \(error)")
        }
    }

    func settings() async throws(StoreError) -> StoreSettings { try await http().settings() }
    func products(for identifiers: Set<String>) async throws(StoreError) -> [CatalogProduct] { try await http().products(for: identifiers) }
    func account(_ id: String) async throws(StoreError) -> Account { try await http().account(id) }
    func purchase(_ request: PurchaseRequest) async throws(StoreError) -> TransactionRecord { try await http().purchase(request) }
    func finish(transactionID: UInt64, deviceID: UUID) async throws(StoreError) { try await http().finish(transactionID: transactionID, deviceID: deviceID) }
    func unfinishedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await http().unfinishedTransactions(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func transactions(_ query: TransactionQuery) async throws(StoreError) -> [TransactionRecord] { try await http().transactions(query) }
    func restoreCompletedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await http().restoreCompletedTransactions(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func purchaseIntents(accountID: String, bundleID: String) async throws(StoreError) -> [PurchaseIntentRecord] {
        try await http().purchaseIntents(accountID: accountID, bundleID: bundleID)
    }
    func removePurchaseIntent(_ id: UUID) async throws(StoreError) { try await http().removePurchaseIntent(id) }
    func redeemOfferCode(_ code: String, accountID: String, bundleID: String) async throws(StoreError) -> TransactionRecord {
        try await http().redeemOfferCode(code, accountID: accountID, bundleID: bundleID)
    }
    func subscriptions(accountID: String, bundleID: String) async throws(StoreError) -> [SubscriptionRecord] {
        try await http().subscriptions(accountID: accountID, bundleID: bundleID)
    }
    func appReceipt(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> Data {
        try await http().appReceipt(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func hostedContent(productID: String) async throws(StoreError) -> HostedContent? { try await http().hostedContent(productID: productID) }
    func rootCertificates() async throws(StoreError) -> [Data] { try await http().rootCertificates() }
    func requestRefund(transactionID: UInt64, accountID: String, approve: Bool, reason: String?) async throws(StoreError) {
        try await http().requestRefund(transactionID: transactionID, accountID: accountID, approve: approve, reason: reason)
    }
    func signedTransactions(_ ids: [UInt64], deviceID: UUID) async throws(StoreError) -> [String] {
        try await http().signedTransactions(ids, deviceID: deviceID)
    }
    func signedRenewalInfo(subscriptionIDs: [UInt64], deviceID: UUID) async throws(StoreError) -> [String] {
        try await http().signedRenewalInfo(subscriptionIDs: subscriptionIDs, deviceID: deviceID)
    }
    func signedAppTransaction(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> String {
        try await http().signedAppTransaction(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }
    func externalPurchaseToken(tokenType: ExternalPurchaseTokenType?, accountID: String, bundleID: String) async throws(StoreError) -> ExternalPurchaseTokenRecord? {
        try await http().externalPurchaseToken(tokenType: tokenType, accountID: accountID, bundleID: bundleID)
    }
    func changes() async -> AsyncStream<StoreChange> {
        guard let http = try? await http() else { return AsyncStream { $0.finish() } }
        return await http.changes()
    }
}

/// The suite's one `StoreServer` on 127.0.0.1, started on first use; each session's store is one of its tenants.
actor LoopbackServer {
    static let shared = LoopbackServer()

    private let tenants = TenantDirectory { name, _ throws(StoreError) in
        throw StoreError.storageFailure("The loopback server has no tenant \(name); sessions add theirs.")
    }
    private var address: Task<URL, any Error>?

    /// Serves `engine` as a new tenant and returns the tenant's base URL.
    func serve(_ engine: StoreEngine) async throws -> URL {
        let server = try await start()
        let name = "session-\(UUID().uuidString.lowercased())"
        await tenants.add(TenantDirectory.Tenant(engine: engine), named: name)
        return HTTPStoreConnection.storeURL(server: server, tenant: name)
    }

    private func start() async throws -> URL {
        if let address { return try await address.value }
        let tenants = tenants
        let task = Task<URL, any Error> {
            let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
            var server = StoreServer(engine: try StoreFactory.open(StoreSpecification(location: .memory)), port: 0)
            server.tenants = tenants
            let application = server.makeApplication { port in portContinuation.yield(port) }
            // The server runs off the cooperative pool. StoreKit's synchronous API (`appStoreReceiptURL`, the
            // session's controls) blocks its calling thread, often a pool thread of a test, until the store answers;
            // with the store in the same process, its handlers must not need the threads such calls block.
            Task(executorPreference: ServerExecutor.shared) { try await application.run() }
            for await port in ports {
                if let url = URL(string: "http://127.0.0.1:\(port)/") { return url }
            }
            throw CancellationError()
        }
        address = task
        return try await task.value
    }
}

/// Runs the loopback server's work on threads of its own (a concurrent dispatch queue), never on the cooperative pool.
final class ServerExecutor: TaskExecutor {
    static let shared = ServerExecutor()
    private let queue = DispatchQueue(label: "OpenStoreKitHTTPTests.server", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
