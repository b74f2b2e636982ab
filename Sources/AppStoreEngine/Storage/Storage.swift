public import Foundation

/// Which transactions to read from storage. Unset fields match everything.
public struct TransactionQuery: Sendable, Hashable, Codable {
    /// Only transactions of this account.
    public var accountID: String?
    /// Only transactions of this app.
    public var bundleID: String?
    /// Only transactions of this product.
    public var productID: String?
    /// Only transactions that derive from this original transaction.
    public var originalID: UInt64?
    /// Only transactions made by a request with this idempotency key (see ``TransactionRecord/idempotencyKey``).
    public var idempotencyKey: String?

    /// Creates a query.
    public init(
        accountID: String? = nil, bundleID: String? = nil, productID: String? = nil, originalID: UInt64? = nil, idempotencyKey: String? = nil
    ) {
        self.accountID = accountID
        self.bundleID = bundleID
        self.productID = productID
        self.originalID = originalID
        self.idempotencyKey = idempotencyKey
    }

    /// Whether a record satisfies the query.
    public func matches(_ record: TransactionRecord) -> Bool {
        (accountID == nil || record.accountID == accountID)
            && (bundleID == nil || record.bundleID == bundleID)
            && (productID == nil || record.productID == productID)
            && (originalID == nil || record.originalID == originalID)
            && (idempotencyKey == nil || record.idempotencyKey == idempotencyKey)
    }
}

/// One change to a tenant's stored state, written inside a ``StorageTransaction``.
public enum StorageChange: Sendable, Hashable {
    /// Inserts or replaces an account.
    case saveAccount(Account)
    /// Inserts or replaces a transaction.
    case saveTransaction(TransactionRecord)
    /// Deletes transactions, their finished marks and the notifications that carry them, by identifier.
    case deleteTransactions([UInt64])
    /// Deletes every transaction of the tenant, their finished marks, the subscriptions they made and the
    /// notification outbox.
    case deleteAllTransactions
    /// Records that a device finished a transaction.
    case markFinished(transactionID: UInt64, deviceID: UUID)
    /// Inserts or replaces a purchase intent (a promoted purchase waiting for the app).
    case savePurchaseIntent(PurchaseIntentRecord)
    /// Deletes a purchase intent.
    case deletePurchaseIntent(UUID)
    /// Inserts or replaces an auto-renewable subscription.
    case saveSubscription(SubscriptionRecord)
    /// Deletes subscriptions by their original transaction identifier.
    case deleteSubscriptions([UInt64])
    /// Appends a notification to the tenant's outbox.
    case saveNotification(NotificationRecord)
    /// Replaces a notification of the outbox (its delivery state), keeping its place in the order; nothing when it is
    /// no longer there.
    case updateNotification(NotificationRecord)
    /// Replaces the tenant's clock state: how far its clock runs ahead of wall time, and its time rate.
    case saveClockState(StoreClockState)
    /// Deletes everything the tenant holds — accounts, transactions and their finished marks, purchase intents,
    /// subscriptions, the notification outbox, the clock state — and starts its transaction identifiers over, as if
    /// it had never been used.
    case eraseTenant
    /// Deletes the tenant: everything ``eraseTenant`` deletes, and its configuration too — stored settings, catalog,
    /// notification destinations, App Store Server API keys, Retention Messaging content —, so nothing of it is left
    /// and its name is free again.
    case deleteTenant
    /// Replaces everything the tenant holds with a snapshot's state (an import): as ``eraseTenant``, then every
    /// record of the snapshot, its clock and its next transaction identifier.
    case restore(TenantSnapshot)
    /// Adds an App Store Server API key to the tenant (``APIKeyRecord/serverWideTenant`` for a server-wide key).
    /// The write fails with ``StoreError/apiKeyExists``, and the transaction with it, when a key with the same
    /// identifier is stored under any tenant of the storage.
    case addAPIKey(APIKeyRecord)
    /// Marks the tenant's key with the identifier revoked; nothing when the tenant holds no such key.
    case revokeAPIKey(keyID: String)
    /// Stores the settings the tenant runs with from now on, in every engine on the storage, or `nil` to go back to
    /// its configuration's; the tenant's ``StoredSettings/version`` grows by one.
    case saveSettings(StoreSettings?)
    /// Stores where the tenant's App Store Server Notifications go, for the senders of every server on the storage,
    /// or `nil` to forget them (each server's own default destinations apply again).
    case saveNotificationDestinations(NotificationDestinations?)
    /// Stores the `.storekit` document (its JSON) the tenant sells from now on, in every engine on the storage; the
    /// tenant's ``StoredCatalog/version`` grows by one.
    case saveCatalog(Data)
    /// Stores what the Retention Messaging API keeps for one app of the tenant, for every server on the storage, or
    /// `nil` to forget it.
    case saveRetentionMessaging(bundleID: String, RetentionMessagingContent?)
    /// Inserts or replaces a mass renewal-date extension request, by its product and request identifier.
    case saveMassExtension(MassExtensionRecord)
    /// Inserts or replaces an external purchase token, by its `externalPurchaseId`.
    case saveExternalPurchaseToken(ExternalPurchaseTokenRecord)
    /// Inserts an accepted External Purchase Server API report, by its request identifier.
    case saveExternalPurchaseReport(ExternalPurchaseReportRecord)
}

/// Reads of one tenant's stored state, all from one consistent snapshot.
///
/// A reader is only valid inside the closure it was handed to; do not keep it.
public protocol StorageReader {
    /// The account with the identifier, if it was ever saved.
    func account(id: String) throws -> Account?
    /// Every saved account, ordered by identifier.
    func accounts() throws -> [Account]
    /// The saved accounts among `ids`, by identifier: one read for the accounts a batch of renewals bills. An
    /// identifier never saved has no entry.
    func accounts(ids: [String]) throws -> [String: Account]
    /// The transaction with the identifier, if any.
    func transaction(id: UInt64) throws -> TransactionRecord?
    /// The transactions that match a query, ordered by identifier.
    func transactions(matching query: TransactionQuery) throws -> [TransactionRecord]
    /// The identifiers of the transactions a device has finished.
    func finishedTransactionIDs(deviceID: UUID) throws -> Set<UInt64>
    /// The purchase intents of an account for an app, oldest first.
    func purchaseIntents(accountID: String, bundleID: String) throws -> [PurchaseIntentRecord]
    /// The subscription with the original transaction identifier, if any.
    func subscription(id: UInt64) throws -> SubscriptionRecord?
    /// The subscriptions of an account, every app's when `bundleID` is nil, ordered by identifier.
    func subscriptions(accountID: String, bundleID: String?) throws -> [SubscriptionRecord]
    /// The subscriptions whose next event is due at or before `date`, earliest first, at most `limit` of them.
    func subscriptionsDue(by date: Date, limit: Int) throws -> [SubscriptionRecord]
    /// The earliest date at which some subscription of the tenant is due, if any.
    func nextSubscriptionEventDate() throws -> Date?
    /// The notifications in the outbox that match a query, by date and, within a date, in the order written.
    func notifications(matching query: NotificationQuery) throws -> [NotificationRecord]
    /// The pending notifications whose next attempt is due at or before `date`, by that date and then in the order
    /// written, at most `limit` of them.
    func notificationsDue(by date: Date, limit: Int) throws -> [NotificationRecord]
    /// The notification with the identifier (its `notificationUUID`), if it is in the outbox.
    func notification(id: UUID) throws -> NotificationRecord?
    /// The pending notifications (those with a next attempt) of an original transaction, in the order written:
    /// a notification is sent only once every earlier one of its original transaction was.
    func pendingNotifications(originalTransactionID: UInt64) throws -> [NotificationRecord]
    /// The tenant's clock state; wall time with no time rate override when none was ever saved.
    func clockState() throws -> StoreClockState
    /// Everything the tenant holds, for an export.
    func snapshot() throws -> TenantSnapshot
    /// The App Store Server API keys stored under the tenant, revoked ones too, by creation date and then identifier.
    func apiKeys() throws -> [APIKeyRecord]
    /// The version of the tenant's stored settings (``StoredSettings/version``): one small read every operation makes
    /// to learn whether the settings it knows still hold.
    func settingsVersion() throws -> Int
    /// The tenant's stored settings and their version.
    func storedSettings() throws -> StoredSettings
    /// Where the tenant's App Store Server Notifications go, as stored; `nil` when none were stored.
    func notificationDestinations() throws -> NotificationDestinations?
    /// A number that differs after every write of the tenant's notification destinations, never reused, or `nil`
    /// when this storage does not stamp them (the default). An engine that keeps the destinations between passes of
    /// its sender reads it in each of its transactions, behind the tenant's lock, so another handle's change is in
    /// force from that transaction on, before the change's signal arrives; without a stamp it reads them each time.
    func notificationDestinationsStamp() throws -> Int64?
    /// The version of the tenant's stored catalog (``StoredCatalog/version``): one small read every operation makes to
    /// learn whether the catalog it sells is still the tenant's.
    func catalogVersion() throws -> Int
    /// The tenant's stored catalog and its version.
    func storedCatalog() throws -> StoredCatalog
    /// What the Retention Messaging API keeps for an app of the tenant; `nil` when nothing was stored.
    func retentionMessaging(bundleID: String) throws -> RetentionMessagingContent?
    /// The mass renewal-date extension request of a product with the identifier, if one was made.
    func massExtension(productID: String, requestIdentifier: String) throws -> MassExtensionRecord?
    /// The external purchase token with the `externalPurchaseId`, if the store issued it.
    func externalPurchaseToken(id: String) throws -> ExternalPurchaseTokenRecord?
    /// The external purchase tokens of an account in an app, oldest first.
    func externalPurchaseTokens(accountID: String, bundleID: String) throws -> [ExternalPurchaseTokenRecord]
    /// The external purchase tokens whose next notification is due at or before `date`, earliest first, at most
    /// `limit` of them.
    func externalPurchaseTokensDue(by date: Date, limit: Int) throws -> [ExternalPurchaseTokenRecord]
    /// The earliest date at which some external purchase token of the tenant owes a notification, if any.
    func nextExternalPurchaseTokenEventDate() throws -> Date?
    /// The accepted External Purchase Server API report with the request identifier, if any.
    func externalPurchaseReport(requestIdentifier: String) throws -> ExternalPurchaseReportRecord?
}

/// A read-write transaction on one tenant: its reads see its own writes, and its writes are committed together
/// when its closure returns, or not at all when the closure throws.
public protocol StorageTransaction: StorageReader {
    /// Hands out the tenant's next transaction identifier; never the same one twice, across processes too.
    /// An identifier allocated by a transaction that rolls back may be handed out again.
    func allocateTransactionID() throws -> UInt64
    /// Writes a change; later reads of this transaction see it.
    func write(_ change: StorageChange) throws
}

/// Durable state for stores: accounts, transactions, which device finished what, purchase intents, subscriptions
/// and the notifications owed to app servers.
///
/// Everything is partitioned by tenant, so stores sharing one storage never see each other's data.
/// Every store operation is one ``transaction(tenant:_:)``: it checks what it needs, allocates identifiers and
/// writes, and no other transaction on the same tenant — in this process or another one sharing the storage —
/// runs in between. Implementations serialize a tenant's transactions (SQLite: `BEGIN IMMEDIATE`; a server
/// database: a lock on the tenant's row) and apply each one atomically, so a crash leaves all of it or none.
///
/// The closures are synchronous on purpose: a transaction holds a write lock, and nothing inside it should
/// wait for anything but the storage itself.
public protocol Storage: Sendable {
    /// Runs `body` on a consistent snapshot of a tenant, without blocking writers.
    func read<Result: Sendable>(tenant: String, _ body: @Sendable (any StorageReader) throws -> Result) async throws -> Result

    /// Runs `body` as one atomic, serialized transaction on a tenant and commits it when `body` returns.
    ///
    /// When `body` throws, nothing it wrote is kept and the error is rethrown. `body` may run on another thread, after
    /// other transactions queued before it; an implementation may commit several callers' transactions together, as
    /// long as each caller sees exactly its own outcome and returns only once its writes are committed. In such a
    /// group, `body` may run again, more than once, when another caller's failure rolled back the transaction it ran
    /// in (on PostgreSQL, a failed write or an error after writes were sent can only be taken back so, and a failed
    /// insert of several callers' rows is found out by running each alone): everything an earlier run wrote is undone
    /// first, so `body` must do nothing but read, write and return.
    func transaction<Result: Sendable>(
        tenant: String, _ body: @escaping @Sendable (any StorageTransaction) throws -> Result
    ) async throws -> Result

    /// Runs `body` as ``transaction(tenant:_:)`` does, told what it will read: a storage that commits transactions in
    /// groups may read that for the whole group at once (PostgreSQL reads it with the locks). The default ignores
    /// the hint.
    func transaction<Result: Sendable>(
        tenant: String, expecting reads: ExpectedReads, _ body: @escaping @Sendable (any StorageTransaction) throws -> Result
    ) async throws -> Result

    /// The App Store Server API key with the identifier, whichever tenant holds it, and that tenant; `nil` when no
    /// tenant does. One indexed read of the latest committed state: a server checks every Server API request's token
    /// with it, so keys added or revoked through any handle on the storage count at once.
    func apiKey(id: String) async throws -> StoredAPIKey?

    /// The tenants that have a catalog stored (``StorageChange/saveCatalog(_:)``), sorted by name: those a server lists
    /// although it has not opened them since it started.
    func tenantsWithCatalogs() async throws -> [String]

    /// Every tenant that has anything stored — a purchase, an account, a moved clock, settings, notification URLs, an
    /// API key, a catalog or Retention Messaging content —, sorted by name: what a server lists besides the tenants it
    /// opened, and `storekit tenants list` shows of a data directory or a database.
    func tenantsWithState() async throws -> [String]

    /// Ends this handle's use of the storage: what it holds open for the store — connections, threads — is let go
    /// now rather than when it is released, and operations through it fail afterwards. A server closes its stores'
    /// storage as the last step of its shutdown. Closing twice does nothing more.
    func close() async

    /// Gives back what deleted data still takes: the memory the storage keeps only to be faster — page caches, idle
    /// connections — and, where the storage can, the disk its freed pages take; returns once it did. The storage stays
    /// open and refills its caches as it is used. A server asks for it after a burst of tenant deletions, before it
    /// returns freed memory to the system.
    func reclaimFreedSpace() async
}

/// What a storage transaction will read, named when it is asked for (``Storage/transaction(tenant:expecting:_:)``).
/// A hint only: the transaction reads what it reads either way.
public struct ExpectedReads: Sendable, Hashable {
    /// The identifiers of the accounts it reads (``StorageReader/account(id:)``).
    public var accountIDs: [String]

    /// Names the accounts a transaction will read.
    public init(accountIDs: [String] = []) {
        self.accountIDs = accountIDs
    }

    /// Nothing named.
    public static let nothing = ExpectedReads()
}

extension Storage {
    /// Ignores the hint: a storage that gains nothing from reading ahead runs the transaction as it is.
    public func transaction<Result: Sendable>(
        tenant: String, expecting reads: ExpectedReads, _ body: @escaping @Sendable (any StorageTransaction) throws -> Result
    ) async throws -> Result {
        try await transaction(tenant: tenant, body)
    }

    /// Does nothing: a storage that holds nothing beyond memory, or lets go of what it holds as it is released (SQLite's
    /// connections close with their last handle), has nothing to close early.
    public func close() async {}

    /// Does nothing: a storage without caches of its own, whose database reclaims its own space, has nothing to do.
    public func reclaimFreedSpace() async {}
}

/// A storage that tells when other handles on the same data — other processes, other servers — committed changes
/// to a tenant, so that what a store announces to its devices, senders and pages follows them at once.
///
/// Storages without it (SQLite) leave the store to look again from time to time.
public protocol ChangeSignalingStorage: Storage {
    /// A signal after each transaction that another handle committed to `tenant` with changes in it, one when the
    /// stream starts being heard (commits before that are not signalled), and one after the signals were interrupted
    /// (some may have been missed). Signals of one moment may be merged into one.
    func changesByOthers(tenant: String) -> AsyncStream<Void>
}

extension StorageReader {
    /// No stamp: engines read the destinations each time they need them.
    public func notificationDestinationsStamp() throws -> Int64? { nil }

    /// Reads the accounts one by one; a storage that can read them in one query does.
    public func accounts(ids: [String]) throws -> [String: Account] {
        var found: [String: Account] = [:]
        for id in Set(ids) {
            if let account = try account(id: id) { found[id] = account }
        }
        return found
    }
}

extension StorageTransaction {
    /// Writes several changes in order.
    public func write(_ changes: [StorageChange]) throws {
        for change in changes { try write(change) }
    }
}

extension TransactionRecord {
    /// The first transaction identifier a tenant hands out; sandbox identifiers start with "2000000".
    public static let firstID: UInt64 = 2_000_000_000_000_001
}
