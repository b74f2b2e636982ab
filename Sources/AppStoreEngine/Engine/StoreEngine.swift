import AppStoreFormats
import Foundation

/// One App Store: a catalog, its accounts and their purchases, on a clock.
///
/// A `StoreEngine` owns one tenant of a ``Storage``. It does no I/O of its own: everything durable goes
/// through the storage, every date comes from the injected ``StoreClock``. Each operation reads what it
/// needs from storage and commits its changes in one atomic step before anyone sees the result, so a
/// crash never leaves half a purchase and several processes can share one store.
public actor StoreEngine {
    /// The tenant this engine serves.
    public nonisolated let tenantID: String
    /// What the store sells.
    public private(set) var catalog: Catalog
    /// How the store behaves.
    public var settings: StoreSettings
    /// The store's clock.
    public nonisolated let clock: any StoreClock

    /// Signs the transactions and receipts the store issues.
    public nonisolated let signer: StoreSigner

    private let storage: any Storage
    /// Signed receipts by device, valid while their purchases are unchanged (see `appReceipt`).
    var receiptCache: [ReceiptCacheKey: CachedReceipt] = [:]
    private var subscribers: [UUID: AsyncStream<StoreEvent>.Continuation] = [:]

    /// Creates an engine for a tenant of `storage`, signing with `signer`.
    public init(
        tenantID: String = "default", catalog: Catalog, settings: StoreSettings = StoreSettings(),
        storage: any Storage, clock: any StoreClock, signer: StoreSigner
    ) {
        self.signer = signer
        self.tenantID = tenantID
        self.catalog = catalog
        self.settings = settings
        self.storage = storage
        self.clock = clock
    }

    /// Replaces the catalog (for example after the configuration file changed). Transactions are kept.
    public func replaceCatalog(_ catalog: Catalog) {
        self.catalog = catalog
    }

    /// Changes the store's settings in place.
    public func updateSettings(_ change: @Sendable (inout StoreSettings) -> Void) {
        change(&settings)
    }

    // MARK: Events

    /// A stream of everything that changes in this store from now on.
    ///
    /// The stream buffers every event until it is read; cancel the task that reads it to stop listening.
    public func events() -> AsyncStream<StoreEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreEvent.self, bufferingPolicy: .unbounded)
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        return stream
    }

    private func removeSubscriber(_ id: UUID) {
        subscribers[id] = nil
    }

    func publish(_ event: StoreEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    // MARK: Accounts

    /// The account with the identifier, created with the store's default storefront on first use.
    public func account(_ id: String) async throws(StoreError) -> Account {
        if let account = try await read({ try await $0.account(tenant: tenantID, id: id) }) { return account }
        return Account(id: id, storefront: settings.storefront)
    }

    /// Every account that has been saved in this store.
    public func accounts() async throws(StoreError) -> [Account] {
        try await read { [tenantID] in try await $0.accounts(tenant: tenantID) }
    }

    /// Saves an account's storefront and restrictions. A storefront change is announced to clients.
    public func saveAccount(_ account: Account) async throws(StoreError) {
        guard Storefront.named(account.storefront) != nil else { throw Self.unknownStorefront(account.storefront) }
        let previous = try await self.account(account.id)
        try await commit([.saveAccount(account)])
        if previous.storefront != account.storefront {
            publish(.storefrontChanged(accountID: account.id, storefront: account.storefront))
        }
    }

    // MARK: Purchases

    /// Buys a product and records the transaction.
    ///
    /// The returned transaction is `.purchased` unless a test switch intervenes: Ask to Buy makes it
    /// `.pendingApproval`, interrupted purchases make it `.interrupted`, failure injection or a restricted
    /// account make it `.failed`. Buying a non-consumable the account already owns makes a new regular
    /// transaction that is not charged again.
    ///
    /// - Throws: ``StoreError`` `unknownProduct` or `invalidQuantity` for a request the store cannot
    ///   take at all; nothing is recorded then.
    public func purchase(_ request: PurchaseRequest) async throws(StoreError) -> TransactionRecord {
        guard let product = catalog.product(request.productID) else {
            throw StoreError(.unknownProduct, "No product \"\(request.productID)\" in this store. Add it to the .storekit configuration or use one of: \(catalog.products.map(\.id).joined(separator: ", ")).")
        }
        guard (1...PurchaseRequest.maximumQuantity).contains(request.quantity) else {
            throw StoreError(.invalidQuantity, "Quantity \(request.quantity) is out of range. Buy between 1 and \(PurchaseRequest.maximumQuantity) at a time.")
        }
        guard request.quantity == 1 || product.type == .consumable else {
            throw StoreError(.invalidQuantity, "Quantity \(request.quantity) is not allowed for \(product.id): only consumables can be bought more than one at a time. Buy 1.")
        }
        let account = try await self.account(request.accountID)
        guard let storefront = Storefront.named(account.storefront) else { throw Self.unknownStorefront(account.storefront) }
        let now = clock.now()
        let id = try await read { [tenantID] in try await $0.allocateTransactionID(tenant: tenantID) }

        var record = TransactionRecord(
            id: id, originalID: id, accountID: account.id, bundleID: request.bundleID, productID: product.id,
            productType: product.type, quantity: request.quantity, purchaseDate: now, originalPurchaseDate: now,
            storefront: storefront, unitPrice: product.price, amountCharged: product.price * Decimal(request.quantity),
            origin: .purchase, state: .purchased, deviceID: request.deviceID,
            applicationUsername: request.applicationUsername, appAccountToken: request.appAccountToken
        )
        if let subscription = product.subscription {
            record.subscriptionGroupID = subscription.groupID
            record.expiresDate = settings.timeRate.endOfPeriod(subscription.period, startingAt: now)
        }
        if !account.canMakePayments {
            record.state = .failed(errorCode: Self.paymentNotAllowedCode)
        } else if settings.failTransactionsEnabled {
            record.state = .failed(errorCode: settings.failureErrorCode)
        } else if product.type == .nonConsumable,
                  let owned = try await activeTransactions(accountID: account.id, bundleID: request.bundleID)
                    .first(where: { $0.productID == product.id }) {
            record.originalID = owned.originalID
            record.originalPurchaseDate = owned.originalPurchaseDate
            record.amountCharged = 0
            record.origin = .repurchase
        } else if settings.askToBuyEnabled || request.simulatesAskToBuy {
            record.state = .pendingApproval
        } else if settings.interruptedPurchasesEnabled {
            record.state = .interrupted
        }
        if !record.state.isCompleted && record.state != .pendingApproval && record.state != .interrupted {
            record.amountCharged = 0
        }
        let shares = try await familyShares(of: record)
        try await commit([.saveAccount(account), .saveTransaction(record)] + shares.map(StorageChange.saveTransaction))
        publish(.transactionUpdated(record))
        for share in shares { publish(.transactionUpdated(share)) }
        return record
    }

    /// Approves a pending Ask to Buy request: the purchase completes now.
    public func approveAskToBuy(transactionID: UInt64) async throws(StoreError) -> TransactionRecord {
        try await complete(transactionID, from: .pendingApproval, to: .purchased, action: "approve an Ask to Buy request")
    }

    /// Declines a pending Ask to Buy request: the purchase fails and nothing is charged.
    public func declineAskToBuy(transactionID: UInt64) async throws(StoreError) -> TransactionRecord {
        try await complete(transactionID, from: .pendingApproval, to: .declined, action: "decline an Ask to Buy request")
    }

    /// Resolves the billing issue of an interrupted purchase: the purchase completes now.
    public func resolveIssue(transactionID: UInt64) async throws(StoreError) -> TransactionRecord {
        try await complete(transactionID, from: .interrupted, to: .purchased, action: "resolve a purchase issue")
    }

    private func complete(
        _ id: UInt64, from expected: TransactionState, to newState: TransactionState, action: String
    ) async throws(StoreError) -> TransactionRecord {
        var record = try await transaction(id)
        guard record.state == expected else {
            throw StoreError(.invalidTransactionState, "Cannot \(action) for transaction \(id): it is \(record.state), not \(expected).")
        }
        record.state = newState
        if newState.isCompleted {
            record.purchaseDate = clock.now()
            record.originalPurchaseDate = record.purchaseDate
            if let period = catalog.product(record.productID)?.subscription?.period {
                record.expiresDate = settings.timeRate.endOfPeriod(period, startingAt: record.purchaseDate)
            }
        } else {
            record.amountCharged = 0
        }
        let shares = try await familyShares(of: record)
        try await commit([.saveTransaction(record)] + shares.map(StorageChange.saveTransaction))
        publish(.transactionUpdated(record))
        for share in shares { publish(.transactionUpdated(share)) }
        return record
    }

    // MARK: Devices

    /// Marks a transaction finished on a device, so the device is not given it again.
    ///
    /// - Throws: ``StoreError`` `invalidTransactionState` for a transaction still waiting for approval or
    ///   for a billing issue, which StoreKit does not let an app finish.
    public func finish(transactionID: UInt64, deviceID: UUID) async throws(StoreError) {
        let record = try await transaction(transactionID)
        guard record.state != .pendingApproval && record.state != .interrupted else {
            throw StoreError(.invalidTransactionState, "Transaction \(transactionID) is \(record.state) and cannot be finished yet. Finish it once it is purchased, failed or declined.")
        }
        try await commit([.markFinished(transactionID: transactionID, deviceID: deviceID)])
    }

    /// The transactions a device must still hand to its app: those made on that device or outside any app,
    /// for the app and account, that the device has not finished.
    public func unfinishedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        let finished = try await read { [tenantID] in try await $0.finishedTransactionIDs(tenant: tenantID, deviceID: deviceID) }
        return try await transactions(TransactionQuery(accountID: accountID, bundleID: bundleID))
            .filter { ($0.deviceID == nil || $0.deviceID == deviceID) && !finished.contains($0.id) }
    }

    // MARK: Queries

    /// The transaction with the identifier.
    ///
    /// - Throws: ``StoreError`` `unknownTransaction` when there is none.
    public func transaction(_ id: UInt64) async throws(StoreError) -> TransactionRecord {
        guard let record = try await read({ [tenantID] in try await $0.transaction(tenant: tenantID, id: id) }) else {
            throw StoreError(.unknownTransaction, "No transaction \(id) in this store. List them with `storekit transactions`.")
        }
        return record
    }

    /// The transactions that match a query, oldest first.
    public func transactions(_ query: TransactionQuery = TransactionQuery()) async throws(StoreError) -> [TransactionRecord] {
        try await read { [tenantID] in try await $0.transactions(tenant: tenantID, matching: query) }
    }

    /// What an account owns in an app: one completed, unrevoked transaction per non-consumable and per
    /// non-renewing subscription purchase, the original purchases, and the purchases family members share.
    public func ownedProducts(accountID: String, bundleID: String) async throws(StoreError) -> [TransactionRecord] {
        try await activeTransactions(accountID: accountID, bundleID: bundleID)
            .filter { ($0.productType == .nonConsumable || $0.productType == .nonRenewable) && ($0.origin == .purchase || $0.origin == .familyShare) }
    }

    /// What a restore would replay: the original purchase of each non-consumable the account still owns.
    /// Consumables and non-renewing subscriptions are never restored.
    public func restorableTransactions(accountID: String, bundleID: String) async throws(StoreError) -> [TransactionRecord] {
        var seen = Set<UInt64>()
        return try await activeTransactions(accountID: accountID, bundleID: bundleID)
            .filter { Self.restorableTypes.contains($0.productType) && seen.insert($0.originalID).inserted }
    }

    /// Restores completed transactions on a device: one new `.restore` transaction per restorable purchase,
    /// each pointing at its original. Restoring twice makes two sets.
    public func restoreCompletedTransactions(accountID: String, bundleID: String, deviceID: UUID?) async throws(StoreError) -> [TransactionRecord] {
        let originals = try await restorableTransactions(accountID: accountID, bundleID: bundleID)
        let now = clock.now()
        var restored: [TransactionRecord] = []
        for original in originals {
            let id = try await read { [tenantID] in try await $0.allocateTransactionID(tenant: tenantID) }
            var record = original
            record.id = id
            record.purchaseDate = now
            record.amountCharged = 0
            record.origin = .restore
            record.deviceID = deviceID
            restored.append(record)
        }
        try await commit(restored.map(StorageChange.saveTransaction))
        for record in restored { publish(.transactionUpdated(record)) }
        return restored
    }

    private func activeTransactions(accountID: String, bundleID: String) async throws(StoreError) -> [TransactionRecord] {
        try await transactions(TransactionQuery(accountID: accountID, bundleID: bundleID)).filter(\.isActive)
    }

    // MARK: Refunds and test controls

    /// Refunds a completed transaction now. For a non-consumable, every transaction that derives from the
    /// same purchase (restores, repurchases) is revoked with it.
    ///
    /// - Returns: the revoked transactions.
    public func refund(transactionID: UInt64, reason: RevocationReason = .refundedForOtherReason) async throws(StoreError) -> [TransactionRecord] {
        let record = try await transaction(transactionID)
        guard record.isActive else {
            throw StoreError(.invalidTransactionState, "Transaction \(transactionID) cannot be refunded: it is \(record.isRevoked ? "already refunded" : "\(record.state)"). Only completed transactions can be refunded.")
        }
        var revoked = [record]
        if record.productType == .nonConsumable {
            revoked = try await transactions(TransactionQuery(originalID: record.originalID)).filter(\.isActive)
        }
        let now = clock.now()
        for index in revoked.indices {
            revoked[index].revocationDate = now
            revoked[index].revocationReason = reason
        }
        try await commit(revoked.map(StorageChange.saveTransaction))
        publish(.transactionsRevoked(revoked))
        return revoked
    }

    /// Deletes a transaction and the restores and repurchases derived from it, as if they never happened.
    ///
    /// - Returns: the identifiers deleted.
    @discardableResult
    public func deleteTransaction(_ id: UInt64) async throws(StoreError) -> [UInt64] {
        let record = try await transaction(id)
        var ids = [id]
        if record.id == record.originalID {
            ids += try await transactions(TransactionQuery(originalID: id)).map(\.id).filter { $0 != id }
        }
        try await commit([.deleteTransactions(ids)])
        publish(.transactionsDeleted(ids))
        return ids
    }

    /// Deletes every transaction of the store: the receipt becomes empty.
    public func clearTransactions() async throws(StoreError) {
        try await commit([.deleteAllTransactions])
        publish(.transactionsCleared)
    }

    // MARK: Helpers (internal, so extensions in other files can use them)

    /// Product types a restore replays. Auto-renewable subscriptions join when subscriptions land.
    private static let restorableTypes: Set<ProductType> = [.nonConsumable]
    /// `SKError.Code.paymentNotAllowed`.
    private static let paymentNotAllowedCode = 4

    private static func unknownStorefront(_ code: String) -> StoreError {
        StoreError(.unknownStorefront, "Unknown storefront \"\(code)\". Use an ISO 3166-1 alpha-3 code such as USA, GBR, FRA, DEU or JPN.")
    }

    func read<T: Sendable>(_ body: @Sendable (any Storage) async throws -> T) async throws(StoreError) -> T {
        do {
            return try await body(storage)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.storageFailure, "The store's storage failed: \(error). Nothing was changed; check the data directory and try again.")
        }
    }

    func commit(_ changes: [StorageChange]) async throws(StoreError) {
        guard !changes.isEmpty else { return }
        try await read { [tenantID] in try await $0.commit(tenant: tenantID, changes) }
    }
}
