import Foundation

/// Storage that lives in memory: for tests and throwaway stores.
///
/// Being an actor, it runs one transaction at a time; a transaction works on a copy of the tenant's state that
/// replaces the original only when the transaction's closure returns, so a throwing closure changes nothing.
public actor InMemoryStorage: Storage {
    /// One tenant's state.
    fileprivate struct Tenant: Sendable {
        var nextTransactionID = TransactionRecord.firstID
        var accounts: [String: Account] = [:]
        var transactions: [UInt64: TransactionRecord] = [:]
        var finished: [UUID: Set<UInt64>] = [:]
        var purchaseIntents: [UUID: PurchaseIntentRecord] = [:]
        var subscriptions: [UInt64: SubscriptionRecord] = [:]
        /// In the order written.
        var notifications: [NotificationRecord] = []
        var clock = StoreClockState()
        /// Mass renewal-date extension requests by product and request identifier.
        var massExtensions: [String: MassExtensionRecord] = [:]
        /// External purchase tokens by `externalPurchaseId`.
        var externalPurchaseTokens: [String: ExternalPurchaseTokenRecord] = [:]
        /// Accepted External Purchase Server API reports by request identifier.
        var externalPurchaseReports: [String: ExternalPurchaseReportRecord] = [:]
        /// The tenant's API keys by identifier; they outlive erasing and restoring the tenant.
        var apiKeys: [String: APIKeyRecord] = [:]
        /// The tenant's settings; they outlive erasing and restoring the tenant.
        var settings = StoredSettings()
        /// Where the tenant's notifications go; they outlive erasing and restoring the tenant.
        var notificationDestinations: NotificationDestinations?
        /// The tenant's catalog; it outlives erasing and restoring the tenant.
        var catalog = StoredCatalog()
        /// The Retention Messaging content of each app; it outlives erasing and restoring the tenant.
        var retentionMessaging: [String: RetentionMessagingContent] = [:]

        /// A tenant with nothing but what outlives erasing and restoring it: its configuration.
        var configurationOnly: Tenant {
            Tenant(
                apiKeys: apiKeys, settings: settings, notificationDestinations: notificationDestinations, catalog: catalog,
                retentionMessaging: retentionMessaging
            )
        }
    }

    private var tenants: [String: Tenant] = [:]
    /// Which tenant holds each API key: key identifiers are unique across the storage.
    private var apiKeyTenants: [String: String] = [:]

    /// Creates an empty storage.
    public init() {}

    /// Runs `body` on the tenant's current state.
    public func read<Result: Sendable>(tenant: String, _ body: @Sendable (any StorageReader) throws -> Result) throws -> Result {
        try body(MemoryTransaction(tenants[tenant] ?? Tenant(), apiKeyTenants: apiKeyTenants))
    }

    /// Runs `body` on a copy of the tenant's state and keeps the copy when `body` returns.
    public func transaction<Result: Sendable>(
        tenant: String, _ body: @escaping @Sendable (any StorageTransaction) throws -> Result
    ) throws -> Result {
        let transaction = MemoryTransaction(tenants[tenant] ?? Tenant(), apiKeyTenants: apiKeyTenants)
        let result = try body(transaction)
        guard !transaction.deleted else {
            tenants[tenant] = nil
            apiKeyTenants = apiKeyTenants.filter { $0.value != tenant }
            return result
        }
        tenants[tenant] = transaction.state
        for keyID in transaction.state.apiKeys.keys { apiKeyTenants[keyID] = tenant }
        return result
    }

    /// The API key with the identifier, from the tenant that holds it.
    public func apiKey(id: String) -> StoredAPIKey? {
        guard let tenant = apiKeyTenants[id], let key = tenants[tenant]?.apiKeys[id] else { return nil }
        return StoredAPIKey(tenant: tenant, key: key)
    }

    /// The tenants with a stored catalog, sorted.
    public func tenantsWithCatalogs() -> [String] {
        tenants.filter { $0.value.catalog.document != nil }.keys.sorted()
    }

    /// The tenants that ran an operation on this storage, sorted.
    public func tenantsWithState() -> [String] {
        tenants.keys.sorted()
    }
}

/// A transaction on a copy of one tenant's in-memory state. Used only inside the storage actor's methods.
private final class MemoryTransaction: StorageTransaction {
    var state: InMemoryStorage.Tenant
    /// Whether the transaction deleted the tenant.
    var deleted = false
    /// Which tenant held each API key when the transaction started.
    let apiKeyTenants: [String: String]

    init(_ state: InMemoryStorage.Tenant, apiKeyTenants: [String: String]) {
        self.state = state
        self.apiKeyTenants = apiKeyTenants
    }

    func account(id: String) -> Account? {
        state.accounts[id]
    }

    func accounts() -> [Account] {
        state.accounts.values.sorted { $0.id < $1.id }
    }

    func transaction(id: UInt64) -> TransactionRecord? {
        state.transactions[id]
    }

    func transactions(matching query: TransactionQuery) -> [TransactionRecord] {
        state.transactions.values.filter(query.matches).sorted { $0.id < $1.id }
    }

    func finishedTransactionIDs(deviceID: UUID) -> Set<UInt64> {
        state.finished[deviceID] ?? []
    }

    func purchaseIntents(accountID: String, bundleID: String) -> [PurchaseIntentRecord] {
        state.purchaseIntents.values.filter { $0.accountID == accountID && $0.bundleID == bundleID }
            .sorted { ($0.date, $0.id.uuidString) < ($1.date, $1.id.uuidString) }
    }

    func subscription(id: UInt64) -> SubscriptionRecord? {
        state.subscriptions[id]
    }

    func subscriptions(accountID: String, bundleID: String?) -> [SubscriptionRecord] {
        state.subscriptions.values.filter { $0.accountID == accountID && (bundleID == nil || $0.bundleID == bundleID) }
            .sorted { $0.id < $1.id }
    }

    func subscriptionsDue(by date: Date, limit: Int) -> [SubscriptionRecord] {
        let due = state.subscriptions.values.compactMap { record in record.nextEventDate.map { (date: $0, record: record) } }
            .filter { $0.date <= date }
            .sorted { ($0.date, $0.record.id) < ($1.date, $1.record.id) }
        return due.prefix(limit).map(\.record)
    }

    func nextSubscriptionEventDate() -> Date? {
        state.subscriptions.values.compactMap(\.nextEventDate).min()
    }

    func notifications(matching query: NotificationQuery) -> [NotificationRecord] {
        // Sorting by date alone is stable, so records of one date keep the order they were written in.
        let matching = state.notifications.filter(query.matches).enumerated()
            .sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map(\.element)
        return query.limit.map { Array(matching.prefix($0)) } ?? matching
    }

    func notification(id: UUID) -> NotificationRecord? {
        state.notifications.first { $0.id == id }
    }

    func notificationsDue(by date: Date, limit: Int) -> [NotificationRecord] {
        let due = state.notifications.enumerated().compactMap { entry in
            entry.element.delivery.nextAttemptDate.map { (date: $0, offset: entry.offset, record: entry.element) }
        }
        return due.filter { $0.date <= date }.sorted { ($0.date, $0.offset) < ($1.date, $1.offset) }.prefix(limit).map(\.record)
    }

    func pendingNotifications(originalTransactionID: UInt64) -> [NotificationRecord] {
        state.notifications.filter { $0.originalTransactionID == originalTransactionID && $0.delivery.nextAttemptDate != nil }
    }

    func clockState() -> StoreClockState {
        state.clock
    }

    func snapshot() -> TenantSnapshot {
        TenantSnapshot(
            accounts: accounts(), transactions: state.transactions.values.sorted { $0.id < $1.id },
            finishedTransactions: state.finished.flatMap { device, ids in ids.map { TenantSnapshot.FinishedMark(deviceID: device, transactionID: $0) } }
                .sorted { ($0.deviceID.uuidString, $0.transactionID) < ($1.deviceID.uuidString, $1.transactionID) },
            purchaseIntents: state.purchaseIntents.values.sorted { ($0.date, $0.id.uuidString) < ($1.date, $1.id.uuidString) },
            subscriptions: state.subscriptions.values.sorted { $0.id < $1.id },
            notifications: notifications(matching: NotificationQuery()), clock: state.clock,
            nextTransactionID: state.nextTransactionID
        )
    }

    func apiKeys() -> [APIKeyRecord] {
        state.apiKeys.values.sorted { ($0.created, $0.keyID) < ($1.created, $1.keyID) }
    }

    func settingsVersion() -> Int { state.settings.version }

    func storedSettings() -> StoredSettings { state.settings }

    func notificationDestinations() -> NotificationDestinations? { state.notificationDestinations }

    func catalogVersion() -> Int { state.catalog.version }

    func storedCatalog() -> StoredCatalog { state.catalog }

    func retentionMessaging(bundleID: String) -> RetentionMessagingContent? { state.retentionMessaging[bundleID] }

    func massExtension(productID: String, requestIdentifier: String) -> MassExtensionRecord? {
        state.massExtensions["\(productID)\u{1F}\(requestIdentifier)"]
    }

    func externalPurchaseToken(id: String) -> ExternalPurchaseTokenRecord? { state.externalPurchaseTokens[id] }

    func externalPurchaseTokens(accountID: String, bundleID: String) -> [ExternalPurchaseTokenRecord] {
        state.externalPurchaseTokens.values.filter { $0.accountID == accountID && $0.bundleID == bundleID }
            .sorted { ($0.creationDate, $0.id) < ($1.creationDate, $1.id) }
    }

    func externalPurchaseTokensDue(by date: Date, limit: Int) -> [ExternalPurchaseTokenRecord] {
        let due = state.externalPurchaseTokens.values.compactMap { record in record.nextEventDate.map { (date: $0, record: record) } }
        return due.filter { $0.date <= date }.sorted { ($0.date, $0.record.id) < ($1.date, $1.record.id) }.prefix(limit).map(\.record)
    }

    func nextExternalPurchaseTokenEventDate() -> Date? {
        state.externalPurchaseTokens.values.compactMap(\.nextEventDate).min()
    }

    func externalPurchaseReport(requestIdentifier: String) -> ExternalPurchaseReportRecord? {
        state.externalPurchaseReports[requestIdentifier]
    }

    func allocateTransactionID() -> UInt64 {
        defer { state.nextTransactionID += 1 }
        return state.nextTransactionID
    }

    func write(_ change: StorageChange) throws {
        switch change {
        case .saveAccount(let account):
            state.accounts[account.id] = account
        case .saveTransaction(let record):
            state.transactions[record.id] = record
        case .deleteTransactions(let ids):
            for id in ids { state.transactions[id] = nil }
            for device in state.finished.keys { state.finished[device]?.subtract(ids) }
            let deleted = Set(ids)
            state.notifications.removeAll { deleted.contains($0.transactionID) }
        case .deleteAllTransactions:
            state.transactions = [:]
            state.finished = [:]
            state.subscriptions = [:]
            state.notifications = []
        case .markFinished(let transactionID, let deviceID):
            state.finished[deviceID, default: []].insert(transactionID)
        case .savePurchaseIntent(let intent):
            state.purchaseIntents[intent.id] = intent
        case .deletePurchaseIntent(let id):
            state.purchaseIntents[id] = nil
        case .saveSubscription(let subscription):
            state.subscriptions[subscription.id] = subscription
        case .deleteSubscriptions(let ids):
            for id in ids { state.subscriptions[id] = nil }
        case .saveNotification(let notification):
            state.notifications.append(notification)
        case .updateNotification(let notification):
            if let index = state.notifications.firstIndex(where: { $0.id == notification.id }) {
                state.notifications[index] = notification
            }
        case .saveClockState(let clock):
            state.clock = clock
        case .eraseTenant:
            state = state.configurationOnly
        case .deleteTenant:
            state = InMemoryStorage.Tenant()
            deleted = true
        case .restore(let snapshot):
            var restored = state.configurationOnly
            restored.nextTransactionID = snapshot.nextTransactionID
            restored.accounts = Dictionary(snapshot.accounts.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            restored.transactions = Dictionary(snapshot.transactions.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            for mark in snapshot.finishedTransactions { restored.finished[mark.deviceID, default: []].insert(mark.transactionID) }
            restored.purchaseIntents = Dictionary(snapshot.purchaseIntents.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            restored.subscriptions = Dictionary(snapshot.subscriptions.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            restored.notifications = snapshot.notifications
            restored.clock = snapshot.clock
            state = restored
        case .addAPIKey(let key):
            guard state.apiKeys[key.keyID] == nil, apiKeyTenants[key.keyID] == nil else { throw StoreError.duplicateAPIKey(key.keyID) }
            state.apiKeys[key.keyID] = key
        case .revokeAPIKey(let keyID):
            state.apiKeys[keyID]?.revoked = true
        case .saveSettings(let settings):
            state.settings = StoredSettings(version: state.settings.version + 1, settings: settings)
        case .saveNotificationDestinations(let destinations):
            state.notificationDestinations = destinations
        case .saveCatalog(let document):
            state.catalog = StoredCatalog(version: state.catalog.version + 1, document: document)
        case .saveRetentionMessaging(let bundleID, let content):
            state.retentionMessaging[bundleID] = content
        case .saveMassExtension(let record):
            state.massExtensions["\(record.productID)\u{1F}\(record.requestIdentifier)"] = record
        case .saveExternalPurchaseToken(let record):
            state.externalPurchaseTokens[record.id] = record
        case .saveExternalPurchaseReport(let record):
            state.externalPurchaseReports[record.requestIdentifier] = record
        }
    }
}
