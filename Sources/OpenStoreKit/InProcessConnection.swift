public import AppStoreEngine
import AppStoreFormats
public import Foundation

/// A ``StoreConnection`` to a `StoreEngine` running in the app's own process.
///
/// This is what `OPENSTOREKIT_CONFIG` and `SKTestSession` set up. When the engine's storage is shared with
/// other processes (a SQLite data directory that `storekit` commands also use), give a `pollInterval`: the
/// connection then signals a change at that interval too, so purchases, refunds and promoted purchases made
/// by other processes reach the app.
public final class InProcessConnection: StoreConnection {
    /// The engine this connection talks to.
    public let engine: StoreEngine
    /// The folder of hosted content packages, one folder per product identifier.
    public let hostedContentDirectory: URL?
    private let pollInterval: Duration?

    /// Connects to `engine`.
    ///
    /// - Parameters:
    ///   - engine: The store, running in this process.
    ///   - hostedContentDirectory: A folder holding `<product ID>/` content packages for `SKDownload`.
    ///   - pollInterval: How often to look for changes made by other processes sharing the engine's storage;
    ///     `nil` when nothing else writes to it.
    public init(engine: StoreEngine, hostedContentDirectory: URL? = nil, pollInterval: Duration? = nil) {
        self.engine = engine
        self.hostedContentDirectory = hostedContentDirectory
        self.pollInterval = pollInterval
    }

    /// The engine's settings.
    public func settings() async throws(StoreError) -> StoreSettings {
        await engine.settings
    }

    /// The catalog's products among `identifiers`, in catalog order.
    public func products(for identifiers: Set<String>) async throws(StoreError) -> [CatalogProduct] {
        await engine.catalog.products.filter { identifiers.contains($0.id) }
    }

    /// The account, created with the store's storefront on first use.
    public func account(_ id: String) async throws(StoreError) -> Account {
        try await engine.account(id)
    }

    /// Buys through the engine; the transaction is committed before this returns.
    public func purchase(_ request: PurchaseRequest) async throws(StoreError) -> TransactionRecord {
        try await engine.purchase(request)
    }

    /// Marks the transaction finished on the device.
    public func finish(transactionID: UInt64, deviceID: UUID) async throws(StoreError) {
        try await engine.finish(transactionID: transactionID, deviceID: deviceID)
    }

    /// The device's unfinished transactions for the account and app.
    public func unfinishedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await engine.unfinishedTransactions(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }

    /// The transactions that match the query.
    public func transactions(_ query: TransactionQuery) async throws(StoreError) -> [TransactionRecord] {
        try await engine.transactions(query)
    }

    /// Restores the account's non-consumables as new transactions on the device.
    public func restoreCompletedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await engine.restoreCompletedTransactions(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
    }

    /// The promoted purchases waiting for the app.
    public func purchaseIntents(accountID: String, bundleID: String) async throws(StoreError) -> [PurchaseIntentRecord] {
        try await engine.purchaseIntents(accountID: accountID, bundleID: bundleID)
    }

    /// Redeems an offer code outside any app.
    public func redeemOfferCode(_ code: String, accountID: String, bundleID: String) async throws(StoreError) -> TransactionRecord {
        try await engine.redeemOfferCode(code, accountID: accountID, bundleID: bundleID)
    }

    /// The account's auto-renewable subscriptions in the app.
    public func subscriptions(accountID: String, bundleID: String) async throws(StoreError) -> [SubscriptionRecord] {
        try await engine.subscriptions(accountID: accountID, bundleID: bundleID)
    }

    /// Removes a promoted purchase the device handed to its app.
    public func removePurchaseIntent(_ id: UUID) async throws(StoreError) {
        try await engine.removePurchaseIntent(id)
    }

    /// The receipt the engine signs for the device, for the app's version (`CFBundleVersion`, else `1`).
    public func appReceipt(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> Data {
        try await engine.appReceipt(accountID: accountID, bundleID: bundleID, deviceID: deviceID, appVersion: StoreEnvironment.appVersion)
    }

    /// The roots of the engine's certificate authority.
    public func rootCertificates() async throws(StoreError) -> [Data] {
        try engine.rootCertificates
    }

    /// Transactions the engine signs for the device.
    public func signedTransactions(_ ids: [UInt64], deviceID: UUID) async throws(StoreError) -> [String] {
        try await engine.signedTransactions(ids, deviceVerificationID: deviceID)
    }

    /// Renewal info the engine signs for the device.
    public func signedRenewalInfo(subscriptionIDs: [UInt64], deviceID: UUID) async throws(StoreError) -> [String] {
        try await engine.signedRenewalInfo(subscriptions: subscriptionIDs, deviceVerificationID: deviceID)
    }

    /// The app transaction the engine signs for the device.
    public func signedAppTransaction(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> String {
        try await engine.signedAppTransaction(accountID: accountID, bundleID: bundleID, deviceVerificationID: deviceID, appVersion: StoreEnvironment.appVersion)
    }

    /// Hands the refund request to the engine, which decides it or keeps it pending.
    public func requestRefund(transactionID: UInt64, accountID: String, approve: Bool, reason: String?) async throws(StoreError) {
        try await engine.requestRefund(
            transactionID: transactionID, accountID: accountID, approve: approve,
            reason: reason.flatMap(ConsumptionRequestReason.init(rawValue:)) ?? .other
        )
    }

    /// Asks the engine for the token, as the App Store issues it.
    public func externalPurchaseToken(
        tokenType: ExternalPurchaseTokenType?, accountID: String, bundleID: String
    ) async throws(StoreError) -> ExternalPurchaseTokenRecord? {
        guard let tokenType else { return try await engine.issueExternalPurchaseToken(accountID: accountID, bundleID: bundleID) }
        return try await engine.externalPurchaseCustomLinkToken(type: tokenType, accountID: accountID, bundleID: bundleID)
    }

    /// The package `<hostedContentDirectory>/<product ID>/`, if there is one.
    public func hostedContent(productID: String) async throws(StoreError) -> HostedContent? {
        hostedContentDirectory.flatMap { HostedContent.package(productID: productID, in: $0) }
    }

    /// Engine events, and a tick every `pollInterval` when one was given.
    public func changes() async -> AsyncStream<StoreChange> {
        let events = await engine.events()
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self, bufferingPolicy: .unbounded)
        let pollInterval = self.pollInterval
        let task = Task {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await event in events {
                        switch event {
                        case .transactionUpdated(let record): continuation.yield(.transactions([record]))
                        case .subscriptionsChanged(let subscriptions): continuation.yield(.subscriptions(subscriptions))
                        case .transactionsRevoked, .transactionsDeleted, .transactionsCleared, .storefrontChanged,
                             .purchaseIntentAdded, .priceIncreaseConsentRequested, .changedElsewhere:
                            continuation.yield(.other)
                        case .notificationsChanged, .clockMoved, .settingsChanged, .refundRequestChanged:
                            // Nothing a device holds: renewals the clock brought were announced on their own.
                            break
                        }
                    }
                }
                if let pollInterval {
                    group.addTask {
                        while (try? await Task.sleep(for: pollInterval)) != nil {
                            continuation.yield(.other)
                        }
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
