import Foundation

/// Storage that lives in memory: for tests and throwaway stores.
public actor InMemoryStorage: Storage {
    private struct Tenant {
        var nextTransactionID = firstTransactionID
        var accounts: [String: Account] = [:]
        var transactions: [UInt64: TransactionRecord] = [:]
        var finished: [UUID: Set<UInt64>] = [:]
        var purchaseIntents: [UUID: PurchaseIntentRecord] = [:]
    }

    private var tenants: [String: Tenant] = [:]

    /// Creates an empty storage.
    public init() {}

    public func allocateTransactionID(tenant: String) -> UInt64 {
        defer { tenants[tenant, default: Tenant()].nextTransactionID += 1 }
        return tenants[tenant, default: Tenant()].nextTransactionID
    }

    public func account(tenant: String, id: String) -> Account? {
        tenants[tenant]?.accounts[id]
    }

    public func accounts(tenant: String) -> [Account] {
        (tenants[tenant]?.accounts.values).map { $0.sorted { $0.id < $1.id } } ?? []
    }

    public func transaction(tenant: String, id: UInt64) -> TransactionRecord? {
        tenants[tenant]?.transactions[id]
    }

    public func transactions(tenant: String, matching query: TransactionQuery) -> [TransactionRecord] {
        (tenants[tenant]?.transactions.values.filter(query.matches) ?? []).sorted { $0.id < $1.id }
    }

    public func finishedTransactionIDs(tenant: String, deviceID: UUID) -> Set<UInt64> {
        tenants[tenant]?.finished[deviceID] ?? []
    }

    public func purchaseIntents(tenant: String, accountID: String, bundleID: String) -> [PurchaseIntentRecord] {
        (tenants[tenant]?.purchaseIntents.values.filter { $0.accountID == accountID && $0.bundleID == bundleID } ?? [])
            .sorted { ($0.date, $0.id.uuidString) < ($1.date, $1.id.uuidString) }
    }

    public func commit(tenant id: String, _ changes: [StorageChange]) {
        var tenant = tenants[id, default: Tenant()]
        for change in changes {
            switch change {
            case .saveAccount(let account):
                tenant.accounts[account.id] = account
            case .saveTransaction(let record):
                tenant.transactions[record.id] = record
            case .deleteTransactions(let ids):
                for transactionID in ids { tenant.transactions[transactionID] = nil }
                for device in tenant.finished.keys { tenant.finished[device]?.subtract(ids) }
            case .deleteAllTransactions:
                tenant.transactions = [:]
                tenant.finished = [:]
            case .markFinished(let transactionID, let deviceID):
                tenant.finished[deviceID, default: []].insert(transactionID)
            case .savePurchaseIntent(let intent):
                tenant.purchaseIntents[intent.id] = intent
            case .deletePurchaseIntent(let intentID):
                tenant.purchaseIntents[intentID] = nil
            }
        }
        tenants[id] = tenant
    }
}
