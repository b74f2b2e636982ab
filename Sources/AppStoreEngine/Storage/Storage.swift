import Foundation

/// Which transactions to read from storage. Unset fields match everything.
public struct TransactionQuery: Sendable, Hashable {
    /// Only transactions of this account.
    public var accountID: String?
    /// Only transactions of this app.
    public var bundleID: String?
    /// Only transactions of this product.
    public var productID: String?
    /// Only transactions that derive from this original transaction.
    public var originalID: UInt64?

    /// Creates a query.
    public init(accountID: String? = nil, bundleID: String? = nil, productID: String? = nil, originalID: UInt64? = nil) {
        self.accountID = accountID
        self.bundleID = bundleID
        self.productID = productID
        self.originalID = originalID
    }

    /// Whether a record satisfies the query.
    public func matches(_ record: TransactionRecord) -> Bool {
        (accountID == nil || record.accountID == accountID)
            && (bundleID == nil || record.bundleID == bundleID)
            && (productID == nil || record.productID == productID)
            && (originalID == nil || record.originalID == originalID)
    }
}

/// One change to a tenant's stored state. A list of changes is committed atomically.
public enum StorageChange: Sendable, Hashable {
    /// Inserts or replaces an account.
    case saveAccount(Account)
    /// Inserts or replaces a transaction.
    case saveTransaction(TransactionRecord)
    /// Deletes transactions, and their finished marks, by identifier.
    case deleteTransactions([UInt64])
    /// Deletes every transaction of the tenant, and their finished marks.
    case deleteAllTransactions
    /// Records that a device finished a transaction.
    case markFinished(transactionID: UInt64, deviceID: UUID)
    /// Inserts or replaces a purchase intent (a promoted purchase waiting for the app).
    case savePurchaseIntent(PurchaseIntentRecord)
    /// Deletes a purchase intent.
    case deletePurchaseIntent(UUID)
}

/// Durable state for stores: accounts, transactions and which device finished what.
///
/// Everything is partitioned by tenant, so stores sharing one storage never see each other's data.
/// Implementations must apply each ``commit(tenant:_:)`` atomically: a crash leaves either all of its
/// changes or none. Several processes may share one storage (a server and the `storekit` command).
public protocol Storage: Sendable {
    /// Hands out the next transaction identifier of a tenant; never the same one twice.
    func allocateTransactionID(tenant: String) async throws -> UInt64
    /// The account with the identifier, if it was ever saved.
    func account(tenant: String, id: String) async throws -> Account?
    /// Every saved account of a tenant, ordered by identifier.
    func accounts(tenant: String) async throws -> [Account]
    /// The transaction with the identifier, if any.
    func transaction(tenant: String, id: UInt64) async throws -> TransactionRecord?
    /// The transactions that match a query, ordered by identifier.
    func transactions(tenant: String, matching query: TransactionQuery) async throws -> [TransactionRecord]
    /// The identifiers of the transactions a device has finished.
    func finishedTransactionIDs(tenant: String, deviceID: UUID) async throws -> Set<UInt64>
    /// The purchase intents of an account for an app, oldest first.
    func purchaseIntents(tenant: String, accountID: String, bundleID: String) async throws -> [PurchaseIntentRecord]
    /// Applies changes atomically.
    func commit(tenant: String, _ changes: [StorageChange]) async throws
}

/// The first transaction identifier a tenant hands out; sandbox identifiers start with "2000000".
public let firstTransactionID: UInt64 = 2_000_000_000_000_001
