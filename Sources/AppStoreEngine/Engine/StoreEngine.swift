public import AppStoreFormats
public import Foundation
import Synchronization

/// One App Store: a catalog, its accounts and their purchases, on a clock.
///
/// A `StoreEngine` owns one tenant of a ``Storage``. It does no I/O of its own: everything durable goes
/// through the storage, every date comes from the injected ``StoreClock``. Each operation is one storage
/// transaction — it reads what it needs, allocates identifiers and writes in one atomic, serialized step —
/// and events are published only after it committed, so a crash never leaves half a purchase and several
/// engines, in one process or several, can share one store without two of them acting on the same state.
public actor StoreEngine: ScheduledEventSource {
    /// The tenant this engine serves.
    public nonisolated let tenantID: String
    /// What the store sells, as of its last operation: the tenant's stored catalog (``setCatalog(_:)``, in this process
    /// or another on the same storage), else the one it was opened with. ``currentCatalog()`` reads it anew.
    public private(set) var catalog: Catalog
    /// The version of the tenant's stored catalog that ``catalog`` reflects (0: none stored).
    var catalogVersion = 0
    /// How the store behaves, as of its last operation: the tenant's stored settings (``updateSettings(_:)``, in this
    /// process or another on the same storage), else its configuration's. ``currentSettings()`` reads them anew.
    public internal(set) var settings: StoreSettings {
        didSet { signingEnvironment.withLock { $0 = Self.environment(of: settings) } }
    }
    /// The settings the store was opened with, its configuration's: what it runs with while the tenant has none stored.
    private let configuredSettings: StoreSettings
    /// The version of the tenant's stored settings that ``settings`` reflects (0: none stored).
    private var settingsVersion = 0
    /// The environment of ``settings``, readable without a turn on the engine: signing a transaction needs nothing
    /// else of its state, so requests sign on their own threads instead of one after another here.
    private nonisolated let signingEnvironment: Mutex<AppStoreEnvironment>
    /// The store's clock.
    public nonisolated let clock: any StoreClock

    /// Signs the transactions and receipts the store issues.
    public nonisolated let signer: StoreSigner
    /// The keys promotional-offer signatures are checked against: the configuration's `subscriptionOffersKeyPair`
    /// and the keys added with ``addPromotionalOfferKey(_:)``.
    public private(set) var promotionalOfferKeys: [PromotionalOfferKey]

    /// Where the store keeps its state, shared with the other tenants of its location: for what belongs to the storage
    /// rather than to one tenant, such as the App Store Server API keys a server checks tokens with.
    public nonisolated let storage: any Storage
    /// Signed receipts by device, valid while their purchases are unchanged (see `appReceipt`).
    var receiptCache: [ReceiptCacheKey: CachedReceipt] = [:]
    private var subscribers: [UUID: AsyncStream<StoreEvent>.Continuation] = [:]
    private var outboxSubscribers: [UUID: OutboxSubscriber] = [:]
    /// Wakes the store at its next scheduled event, on a clock that runs by itself.
    public nonisolated let wakeups: StoreWakeups
    /// The date of the wake asked of ``wakeups``, if any.
    private var scheduledWake: Date?
    /// Whether ``stopWaking()`` was called: the store then asks for no more wakes.
    private var wakesStopped = false
    /// The date of the next subscription event the last operation saw, which ``scheduledWake`` is for with
    /// ``externalPurchaseTokenWake``.
    private var subscriptionWake: Date?
    /// When the next external purchase token notification is due, as the last operation that looked saw it.
    private var externalPurchaseTokenWake: Date?
    /// Follows other handles' commits to this tenant, while anyone listens (a ``ChangeSignalingStorage`` only).
    private var changeFollower: Task<Void, Never>?
    /// Whether ``changeFollower`` heard its stream's first signal: from then on every commit of another handle is
    /// signalled, shortly after it commits.
    private(set) var hearsChangesElsewhere = false
    /// The tenant's notification destinations, with their storage's stamp, as last read while
    /// ``hearsChangesElsewhere``; `nil` when unknown.
    var knownDestinations: (stamp: Int64, destinations: NotificationDestinations?)?
    /// The highest stamp of the notification destinations this engine's transactions and reads found: the stamps of
    /// a tenant's writes grow (they are taken behind its lock), so kept destinations with a lower one are outdated.
    var latestDestinationsStamp: Int64 = 0
    /// Counts the times ``knownDestinations`` was forgotten, so a read that a change overtook does not keep its answer.
    var destinationsGeneration = 0

    /// Creates an engine for a tenant of `storage`, signing with `signer`.
    ///
    /// `wakeups` wakes the store when its next renewal, expiry or token notification falls due on a clock that runs by
    /// itself: the process's one timer unless a test gives its own. A ``VirtualClock`` drives its stores itself.
    public init(
        tenantID: String = StoreDefaults.tenant, catalog: Catalog, settings: StoreSettings = StoreSettings(),
        storage: any Storage, clock: any StoreClock, signer: StoreSigner, promotionalOfferKeys: [PromotionalOfferKey] = [],
        wakeups: StoreWakeups = .shared
    ) {
        self.wakeups = wakeups
        self.signer = signer
        self.promotionalOfferKeys = promotionalOfferKeys
        self.tenantID = tenantID
        self.catalog = catalog
        self.settings = settings
        self.configuredSettings = settings
        self.signingEnvironment = Mutex(Self.environment(of: settings))
        self.storage = storage
        self.clock = clock
        (clock as? VirtualClock)?.register(self)
    }

    /// The environment signed data claims, from the store's settings (`Sandbox` unless configured).
    public nonisolated var environment: AppStoreEnvironment {
        signingEnvironment.withLock { $0 }
    }

    private static func environment(of settings: StoreSettings) -> AppStoreEnvironment {
        AppStoreEnvironment(rawValue: settings.environment) ?? .sandbox
    }

    deinit {
        wakeups.cancel(ObjectIdentifier(self))
    }

    /// Replaces the catalog (for example after the configuration file changed). Transactions are kept.
    public func replaceCatalog(_ catalog: Catalog) {
        self.catalog = catalog
    }

    /// Registers a key promotional-offer signatures may be made with, as a developer registers their In-App
    /// Purchase key in App Store Connect. A key with the identifier of one already known replaces it.
    public func addPromotionalOfferKey(_ key: PromotionalOfferKey) {
        promotionalOfferKeys.removeAll { $0.keyID == key.keyID }
        promotionalOfferKeys.append(key)
    }

    /// Changes the store's settings, starting from the tenant's current ones, and stores them: every engine of the
    /// tenant on the same storage, in this process or another, runs with them from its next operation, and so does the
    /// tenant when it is opened again, whatever its configuration says.
    ///
    /// - Throws: ``StoreError/storageFailure`` when the settings cannot be stored; nothing changes then.
    public func updateSettings(_ change: @escaping @Sendable (inout StoreSettings) -> Void) async throws(StoreError) {
        try await perform { operation in
            var settings = operation.settings
            change(&settings)
            try operation.storage.write(.saveSettings(settings))
        }
    }

    /// The tenant's settings as stored now, read anew: what another engine on the same storage may have changed
    /// since this one's last operation. ``settings`` holds them afterwards.
    public func currentSettings() async throws(StoreError) -> StoreSettings {
        let known = (version: settingsVersion, settings: settings), configured = configuredSettings
        let latest = try await storageCall { [tenantID] storage in
            try await storage.read(tenant: tenantID) { reader in try Self.settings(known: known, configured: configured, in: reader) }
        }
        adoptSettings(latest)
        return settings
    }

    /// The settings an operation runs with: `known` while the stored version is still its version, else the stored
    /// settings (the configuration's when none are stored) with the tenant's stored time rate.
    private static func settings(
        known: (version: Int, settings: StoreSettings), configured: StoreSettings, in reader: any StorageReader
    ) throws -> (version: Int, settings: StoreSettings) {
        let version = try reader.settingsVersion()
        guard version != known.version else { return known }
        var settings = try reader.storedSettings().settings ?? configured
        if let rate = try reader.clockState().timeRate { settings.timeRate = rate }
        return (version, settings)
    }

    /// Takes settings read or written by a committed operation, unless a later version is already known (operations
    /// overlap on the actor), and tells subscribers when they differ.
    private func adoptSettings(_ latest: (version: Int, settings: StoreSettings)) {
        guard latest.version > settingsVersion else { return }
        settingsVersion = latest.version
        guard latest.settings != settings else { return }
        settings = latest.settings
        publish(.settingsChanged)
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
        followChangesElsewhere()
        return stream
    }

    private func removeSubscriber(_ id: UUID) {
        subscribers[id] = nil
        outboxSubscribers[id] = nil
        if subscribers.isEmpty, outboxSubscribers.isEmpty {
            changeFollower?.cancel()
            changeFollower = nil
            hearsChangesElsewhere = false
            forgetDestinations()
        }
    }

    /// While anyone listens, turns the storage's signals of other handles' commits into ``StoreEvent/changedElsewhere``,
    /// work for the notification senders, and a look at the next due renewal.
    private func followChangesElsewhere() {
        guard changeFollower == nil, let signaling = storage as? any ChangeSignalingStorage else { return }
        let signals = signaling.changesByOthers(tenant: tenantID)
        changeFollower = Task { [weak self] in
            for await _ in signals {
                await self?.changedElsewhere()
            }
        }
    }

    private func changedElsewhere() async {
        hearsChangesElsewhere = true
        forgetDestinations()
        publish(.changedElsewhere)
        announceOutboxWork()
        _ = try? await currentSettings()
        // A read schedules the wake for the next due renewal, which another server may have brought forward.
        _ = try? await read { _ in }
    }

    /// Signals for whatever sends notifications to app servers: each time an operation adds notifications to the
    /// outbox, and when the tenant's notification destinations may have changed.
    ///
    /// Signals that were not read yet collapse into one; cancel the task that reads the stream to stop listening.
    public func outboxUpdates() -> OutboxSubscription {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        outboxSubscribers[id] = OutboxSubscriber(continuation: continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        followChangesElsewhere()
        return OutboxSubscription(id: id, signals: stream)
    }

    /// Until the tenant's notification destinations may have changed, signals the subscription once for the
    /// notifications operations add, not for each: a sender that found nowhere to send to needs to know only that
    /// something waits, and a signal per purchase made it wake for every one.
    public func quietOutboxSignals(for id: UUID) {
        guard let subscriber = outboxSubscribers[id] else { return }
        subscriber.quiet = true
        subscriber.signalledWhileQuiet = false
    }

    /// Wakes whatever sends notifications: the outbox holds work for it.
    func announceOutboxWork() {
        for subscriber in outboxSubscribers.values {
            if subscriber.quiet {
                guard !subscriber.signalledWhileQuiet else { continue }
                subscriber.signalledWhileQuiet = true
            }
            subscriber.continuation.yield()
        }
    }

    /// Wakes every sender, quiet or not: the notification destinations may have changed.
    func announceDestinationChange() {
        for subscriber in outboxSubscribers.values {
            subscriber.quiet = false
            subscriber.continuation.yield()
        }
    }

    func publish(_ event: StoreEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    // MARK: Accounts

    /// The account with the identifier, created with the store's default storefront on first use.
    public func account(_ id: String) async throws(StoreError) -> Account {
        let storefront = settings.storefront
        return try await read { try $0.account(id: id) ?? Account(id: id, storefront: storefront) }
    }

    /// Every account that has been saved in this store.
    public func accounts() async throws(StoreError) -> [Account] {
        try await read { try $0.accounts() }
    }

    /// Saves an account's storefront and restrictions; the apps it downloaded stay as the store recorded them. A
    /// storefront change is announced to clients.
    public func saveAccount(_ account: Account) async throws(StoreError) {
        let previous = try await perform { try $0.saveAccount(account) }
        if previous != account.storefront {
            publish(.storefrontChanged(accountID: account.id, storefront: account.storefront))
        }
    }

    // MARK: Purchases

    /// Buys a product and records the transaction.
    ///
    /// The returned transaction is `.purchased` unless a test switch intervenes: Ask to Buy makes it
    /// `.pendingApproval`, interrupted purchases make it `.interrupted`, failure injection or a restricted
    /// account make it `.failed`. Buying a non-consumable the account already owns makes a new regular
    /// transaction that is not charged again. Checking ownership, allocating the identifier and recording the
    /// transaction are one storage transaction, so two concurrent purchases never both become the owner.
    ///
    /// - Throws: ``StoreError`` `unknownProduct` or `invalidQuantity` for a request the store cannot
    ///   take at all; nothing is recorded then.
    public func purchase(_ request: PurchaseRequest) async throws(StoreError) -> TransactionRecord {
        guard (1...PurchaseRequest.maximumQuantity).contains(request.quantity) else {
            throw StoreError.invalidQuantity("Quantity \(request.quantity) is out of range. Buy between 1 and \(PurchaseRequest.maximumQuantity) at a time.")
        }
        let (records, isRepeat) = try await perform(expecting: ExpectedReads(accountIDs: [request.accountID])) { operation in
            // The operation's catalog: the tenant's latest, which another engine on the storage may have stored.
            let catalog = operation.catalog
            guard let product = catalog.product(request.productID) else {
                throw StoreError.unknownProduct("No product \"\(request.productID)\" in this store. Add it to the .storekit configuration or use one of: \(catalog.products.map(\.id).joined(separator: ", ")).")
            }
            guard request.quantity == 1 || product.type == .consumable else {
                throw StoreError.invalidQuantity("Quantity \(request.quantity) is not allowed for \(product.id): only consumables can be bought more than one at a time. Buy 1.")
            }
            if let earlier = try operation.purchase(repeatedBy: request) { return ([earlier], true) }
            return (try operation.purchase(request, of: product), false)
        }
        if !isRepeat { for record in records { publish(.transactionUpdated(record)) } }
        return records[0]
    }

    /// Approves a pending Ask to Buy request: the purchase completes now.
    public func approveAskToBuy(transactionID: UInt64) async throws(StoreError) -> TransactionRecord {
        try await complete(transactionID, from: .pendingApproval, to: .purchased, action: "approve an Ask to Buy request")
    }

    /// Declines a pending Ask to Buy request: the purchase fails and nothing is charged.
    public func declineAskToBuy(transactionID: UInt64) async throws(StoreError) -> TransactionRecord {
        try await complete(transactionID, from: .pendingApproval, to: .declined, action: "decline an Ask to Buy request")
    }

    /// Resolves a billing issue, as the customer does by updating their payment method: an interrupted purchase
    /// completes now; a subscription in billing retry (the transaction is any of its periods) recovers and renews.
    ///
    /// - Returns: the completed purchase, or the renewal that recovered the subscription.
    /// - Throws: ``StoreError`` `invalidTransactionState` when the transaction has no billing issue.
    public func resolveIssue(transactionID: UInt64) async throws(StoreError) -> TransactionRecord {
        let records = try await perform { operation in
            let record = try operation.transaction(transactionID)
            if record.state != .interrupted, record.productType == .autoRenewable,
               let subscription = try operation.storage.subscription(id: record.originalID), subscription.isInBillingRetry {
                return try operation.recoverBilling(subscription.id)
            }
            return try operation.complete(transactionID, from: .interrupted, to: .purchased, action: "resolve a purchase issue")
        }
        for record in records { publish(.transactionUpdated(record)) }
        return records[0]
    }

    private func complete(
        _ id: UInt64, from expected: TransactionState, to newState: TransactionState, action: String
    ) async throws(StoreError) -> TransactionRecord {
        let records = try await perform { try $0.complete(id, from: expected, to: newState, action: action) }
        for record in records { publish(.transactionUpdated(record)) }
        return records[0]
    }

    // MARK: Devices

    /// Marks a transaction finished on a device, so the device is not given it again.
    ///
    /// - Throws: ``StoreError`` `invalidTransactionState` for a transaction still waiting for approval or
    ///   for a billing issue, which StoreKit does not let an app finish.
    public func finish(transactionID: UInt64, deviceID: UUID) async throws(StoreError) {
        try await perform { try $0.finish(transactionID, deviceID: deviceID) }
    }

    /// Marks a transaction finished for every device of the account, as the App Store Server API's "Finish a
    /// transaction" does: no device hands it to its app again, and a consumable leaves every receipt.
    ///
    /// - Throws: ``StoreError`` `invalidTransactionState` for a transaction still waiting for approval or a billing issue.
    public func finishEverywhere(transactionID: UInt64) async throws(StoreError) {
        try await finish(transactionID: transactionID, deviceID: StoreDefaults.everyDevice)
    }

    /// The consumables among `records` that their app has finished — on the device that bought them, or everywhere
    /// through the App Store Server API — and that therefore leave the receipt and version 1 of the transaction history.
    public func finishedConsumables(among records: [TransactionRecord]) async throws(StoreError) -> Set<UInt64> {
        let consumables = records.filter { $0.productType == .consumable }
        guard !consumables.isEmpty else { return [] }
        return try await read { storage in
            var finishedByDevice: [UUID: Set<UInt64>] = [:]
            var finished: Set<UInt64> = []
            for record in consumables {
                let device = record.deviceID ?? StoreDefaults.everyDevice
                if finishedByDevice[device] == nil { finishedByDevice[device] = try storage.transactionsFinished(on: device) }
                if finishedByDevice[device]!.contains(record.id) { finished.insert(record.id) }
            }
            return finished
        }
    }

    /// The transactions a device must still hand to its app: those made on that device or outside any app,
    /// for the app and account, that the device has not finished.
    public func unfinishedTransactions(accountID: String, bundleID: String, deviceID: UUID) async throws(StoreError) -> [TransactionRecord] {
        try await read { storage in
            let finished = try storage.transactionsFinished(on: deviceID)
            return try storage.transactions(matching: TransactionQuery(accountID: accountID, bundleID: bundleID))
                .filter { ($0.deviceID == nil || $0.deviceID == deviceID) && !finished.contains($0.id) }
        }
    }

    // MARK: Queries

    /// The transaction with the identifier.
    ///
    /// - Throws: ``StoreError`` `unknownTransaction` when there is none.
    public func transaction(_ id: UInt64) async throws(StoreError) -> TransactionRecord {
        try await read { try $0.knownTransaction(id: id) }
    }

    /// The transactions that match a query, oldest first.
    public func transactions(_ query: TransactionQuery = TransactionQuery()) async throws(StoreError) -> [TransactionRecord] {
        try await read { try $0.transactions(matching: query) }
    }

    /// What an account owns in an app: one completed, unrevoked transaction per non-consumable and per
    /// non-renewing subscription purchase, the original purchases, and the purchases family members share.
    public func ownedProducts(accountID: String, bundleID: String) async throws(StoreError) -> [TransactionRecord] {
        let owningTypes: Set<ProductType> = [.nonConsumable, .nonRenewable]
        let owningOrigins: Set<TransactionOrigin> = [.purchase, .familyShare]
        return try await read { try $0.activeTransactions(accountID: accountID, bundleID: bundleID) }
            .filter { owningTypes.contains($0.productType) && owningOrigins.contains($0.origin) }
    }

    /// What a restore would replay: the original purchase of each non-consumable the account still owns, and every
    /// period (purchase and renewals) of its auto-renewable subscriptions. Consumables and non-renewing
    /// subscriptions are never restored.
    public func restorableTransactions(accountID: String, bundleID: String) async throws(StoreError) -> [TransactionRecord] {
        try await read { try $0.restorableTransactions(accountID: accountID, bundleID: bundleID) }
    }

    /// Restores completed transactions on a device: one new `.restore` transaction per restorable purchase,
    /// each pointing at its original. Restoring twice makes two sets.
    public func restoreCompletedTransactions(accountID: String, bundleID: String, deviceID: UUID?) async throws(StoreError) -> [TransactionRecord] {
        let restored = try await perform { try $0.restore(accountID: accountID, bundleID: bundleID, deviceID: deviceID) }
        for record in restored { publish(.transactionUpdated(record)) }
        return restored
    }

    // MARK: Refunds and test controls

    /// Refunds a completed transaction now. For a non-consumable, every transaction that derives from the
    /// same purchase (restores, repurchases) is revoked with it. Refunding one transaction from several
    /// processes at once refunds it once; the others fail with `invalidTransactionState`.
    ///
    /// - Returns: the revoked transactions.
    public func refund(transactionID: UInt64, reason: RevocationReason = .refundedForOtherReason) async throws(StoreError) -> [TransactionRecord] {
        let revoked = try await perform { try $0.refund(transactionID, reason: reason) }
        publish(.transactionsRevoked(revoked))
        return revoked
    }

    /// A customer's refund request from an app (StoreKit 2's `beginRefundRequest`).
    ///
    /// With ``StoreSettings/refundRequestsAwaitDecision`` off (the default) the App Store decides at once: approved,
    /// the transaction is refunded as ``refund(transactionID:reason:)`` does (`REFUND`); declined, it stays, and the
    /// app's server hears `REFUND_DECLINED`. With it on, the request waits on the transaction
    /// (``TransactionRecord/refundRequest``), the app's server hears `CONSUMPTION_REQUEST` with `reason` as its
    /// `consumptionRequestReason` (for a consumable, a non-renewing or an auto-renewable subscription), and
    /// ``decideRefundRequest(transactionID:_:reason:)`` decides it; `approve` is not used then.
    ///
    /// - Returns: the transactions the refund revoked; empty when declined or pending.
    /// - Throws: `StoreError.unknownTransaction` when the account has no such transaction; `invalidTransactionState`
    ///   when it was already refunded, never completed, or has a request waiting already.
    @discardableResult
    public func requestRefund(
        transactionID: UInt64, accountID: String, approve: Bool, reason: ConsumptionRequestReason = .other
    ) async throws(StoreError) -> [TransactionRecord] {
        let (revoked, pending) = try await perform { operation in
            let revoked = try operation.requestRefund(transactionID, accountID: accountID, approve: approve, reason: reason)
            return (revoked, revoked.isEmpty ? try operation.transaction(transactionID) : nil)
        }
        if !revoked.isEmpty { publish(.transactionsRevoked(revoked)) }
        if let pending, pending.refundRequest != nil { publish(.refundRequestChanged(pending)) }
        return revoked
    }

    /// Decides a transaction's pending refund request, as App Store review does: refunds it in full or prorated
    /// (`REFUND`, with `revocationType` `REFUND_FULL` or `REFUND_PRORATED` and `revocationPercentage`), revoking what
    /// ``refund(transactionID:reason:)`` revokes, or declines it (`REFUND_DECLINED`).
    ///
    /// - Returns: the revoked transactions, the decided one first; the transaction alone when declined.
    /// - Throws: `StoreError.invalidTransactionState` when the transaction has no pending request;
    ///   `invalidRefundDecision` for a prorated percentage outside 1…100000.
    @discardableResult
    public func decideRefundRequest(
        transactionID: UInt64, _ decision: RefundDecision, reason: RevocationReason = .refundedForOtherReason
    ) async throws(StoreError) -> [TransactionRecord] {
        let records = try await perform { try $0.decideRefundRequest(transactionID, decision, reason: reason) }
        // A declined request changes nothing a device sees.
        publish(decision == .decline ? .refundRequestChanged(records[0]) : .transactionsRevoked(records))
        return records
    }

    /// Keeps what an app's server sent with Send Consumption Information (App Store Server API v1 or v2) with the
    /// transaction's pending refund request, where the control API, `storekit tx show` and the transaction manager
    /// show it.
    ///
    /// - Parameters:
    ///   - transactionID: The transaction the information is for.
    ///   - version: The endpoint's version, 1 or 2.
    ///   - fields: The request body's fields as one JSON object, already validated.
    /// - Returns: whether a pending request took it, dated now; for a transaction without one it is not kept.
    /// - Throws: `StoreError.unknownTransaction` when there is no such transaction.
    @discardableResult
    public func recordConsumptionInformation(transactionID: UInt64, version: Int, fields: String) async throws(StoreError) -> Bool {
        let kept = try await perform { operation in
            try operation.recordConsumption(
                ConsumptionInformation(date: operation.now, version: version, fields: fields), transactionID: transactionID
            ) ? try operation.transaction(transactionID) : nil
        }
        if let kept { publish(.refundRequestChanged(kept)) }
        return kept != nil
    }

    /// Reverses a refund, as the App Store does after a dispute: the transaction and what the refund revoked with it
    /// grant their product again, a subscription the refund ended runs to its period's end, and the app's server
    /// hears `REFUND_REVERSED`.
    ///
    /// - Returns: the restored transactions, the reversed one first.
    /// - Throws: `StoreError.invalidTransactionState` when the transaction was not refunded.
    @discardableResult
    public func reverseRefund(transactionID: UInt64) async throws(StoreError) -> [TransactionRecord] {
        let restored = try await perform { try $0.reverseRefund(transactionID) }
        for record in restored { publish(.transactionUpdated(record)) }
        return restored
    }

    /// Deletes a transaction and the restores and repurchases derived from it, as if they never happened.
    ///
    /// - Returns: the identifiers deleted.
    @discardableResult
    public func deleteTransaction(_ id: UInt64) async throws(StoreError) -> [UInt64] {
        let ids = try await perform { try $0.delete(id) }
        publish(.transactionsDeleted(ids))
        return ids
    }

    /// Deletes every transaction of the store: the receipt becomes empty.
    public func clearTransactions() async throws(StoreError) {
        try await perform { try $0.storage.write(.deleteAllTransactions) }
        publish(.transactionsCleared)
    }

    /// Erases everything the store holds — accounts, purchases, subscriptions, purchase intents, the notification
    /// outbox, the stored clock offset and time rate, the stored settings — and starts transaction identifiers over: a
    /// tenant reset. The store runs with its configuration's settings again.
    ///
    /// The engine keeps its catalog and clock, which never runs backwards; a server resetting a tenant opens it again
    /// afterwards (`StoreFactory.open`), so the reset store runs at wall time.
    public func erase() async throws(StoreError) {
        try await perform { operation in
            try operation.storage.write(.eraseTenant)
            try operation.storage.write(.saveSettings(nil))
        }
        publish(.transactionsCleared)
    }

    /// Deletes the store from its storage: everything ``erase()`` erases, and its configuration — stored settings,
    /// catalog, notification destinations, App Store Server API keys, Retention Messaging content —, so nothing of the
    /// tenant is left and its name is free again. The store stops waking; a server closes it afterwards, and an
    /// operation on it would start the tenant anew.
    public func delete() async throws(StoreError) {
        try await perform { try $0.storage.write(.deleteTenant) }
        stopWaking()
        publish(.transactionsCleared)
    }

    /// Everything the store holds — accounts, purchases, devices' finished marks, purchase intents, subscriptions, the
    /// notification outbox, the clock — as one consistent snapshot: a tenant export.
    public func exportState() async throws(StoreError) -> TenantSnapshot {
        try await read { try $0.snapshot() }
    }

    /// Replaces everything the store holds with `snapshot`'s state: a tenant import. Devices look at everything again.
    ///
    /// The engine keeps its catalog and settings, and its clock never runs backwards; open the tenant again
    /// (`StoreFactory.open`) to run on the imported clock when it is behind this one.
    ///
    /// - Throws: ``StoreError/storageFailure`` for a snapshot of a format this version does not know; nothing changes then.
    public func importState(_ snapshot: TenantSnapshot) async throws(StoreError) {
        guard snapshot.format == TenantSnapshot.currentFormat else {
            throw StoreError.storageFailure("The snapshot is of format \(snapshot.format); this version of OpenStoreKit reads format \(TenantSnapshot.currentFormat). Export it again with this version.")
        }
        try await perform { try $0.storage.write(.restore(snapshot)) }
        publish(.transactionsCleared)
    }

    // MARK: Running operations

    /// Runs `body` as one storage transaction on this tenant, with the catalog, settings and time of now.
    ///
    /// The transaction first applies every subscription renewal and expiry due by now, so each operation sees a
    /// store that is caught up with its clock. Everything is committed together, after `body` returns; when it
    /// throws, nothing is written. The renewals are published after the commit; publish what `body` did only after
    /// this returns, so no one hears of a change that did not happen.
    ///
    /// "Now" is read inside the transaction: a ``TenantClock`` first picks up an offset another process stored.
    /// A store opened without products (no configuration) leaves due events for one that knows what they renew into.
    ///
    /// - Parameters:
    ///   - storing: The catalog `body` stores, if any, with the document it stores: taken as it is once stored,
    ///     rather than parsed back from the document.
    ///   - reads: What `body` will read, for a storage that reads ahead (``Storage/transaction(tenant:expecting:_:)``).
    func perform<Result: Sendable>(
        storingCatalog storing: ParsedCatalog? = nil, expecting reads: ExpectedReads = .nothing,
        _ body: @escaping @Sendable (StoreOperation) throws -> Result
    ) async throws(StoreError) -> Result {
        let clock = clock
        let known = (version: settingsVersion, settings: settings), configured = configuredSettings
        let knownCatalog = KnownCatalog(version: catalogVersion, catalog: catalog, offerKeys: promotionalOfferKeys)
        let (renewals, nextDue, notifications, subscriptions, settings, catalog, result) = try await storageCall { [tenantID] storage in
            try await storage.transaction(tenant: tenantID, expecting: reads) { base in
                let transaction = OutboxWatchingTransaction(base)
                let now = try Self.currentDate(on: clock, in: transaction)
                var settings = try Self.settings(known: known, configured: configured, in: transaction)
                var catalog = try Self.catalog(known: knownCatalog, tenant: tenantID, in: transaction)
                let offerVerifier = PromotionalOfferVerifier(keys: catalog.offerKeys)
                let operation = StoreOperation(
                    storage: transaction, catalog: catalog.catalog, settings: settings.settings, now: now, offerVerifier: offerVerifier
                )
                let renewals = catalog.catalog.products.isEmpty ? [] : try operation.applyDueSubscriptionEvents()
                let result = try body(operation)
                if transaction.savedSettings {
                    settings = try Self.settings(known: settings, configured: configured, in: transaction)
                }
                if transaction.savedCatalog {
                    catalog = try Self.catalog(known: catalog, tenant: tenantID, in: transaction, parsed: storing)
                }
                return (
                    renewals, try transaction.nextSubscriptionEventDate(),
                    (
                        recorded: transaction.recordedNotifications, changed: transaction.changedNotifications,
                        savedDestinations: transaction.savedDestinations,
                        // Read behind the lock: a change another handle committed shows here before its signal.
                        destinationsStamp: transaction.savedDestinations ? nil : try transaction.notificationDestinationsStamp()
                    ),
                    Array(transaction.savedSubscriptions.values), settings, catalog, result
                )
            }
        }
        adoptSettings(settings)
        adoptCatalog(catalog)
        for renewal in renewals { publish(.transactionUpdated(renewal)) }
        // Sorted only for someone listening: a period end renews a hundred thousand subscriptions at once.
        if !subscriptions.isEmpty, !subscribers.isEmpty { publish(.subscriptionsChanged(subscriptions.sorted { $0.id < $1.id })) }
        if notifications.changed { publish(.notificationsChanged) }
        if notifications.savedDestinations { forgetDestinations() }
        if let stamp = notifications.destinationsStamp {
            // Another stamp than the kept one's: written since, or the row deleted with its tenant (stamp 0).
            if let known = knownDestinations, known.stamp != stamp { forgetDestinations() }
            latestDestinationsStamp = max(latestDestinationsStamp, stamp)
        }
        if notifications.recorded { announceOutboxWork() }
        scheduleWake(at: nextDue)
        return result
    }

    /// Runs `body` on a snapshot of this tenant's stored state, after applying the subscription events due by now.
    ///
    /// The snapshot tells when the next subscription event is due; only when that is already past — another process
    /// bought a subscription, or nobody ran the store for a while — does the read first catch up in a transaction.
    ///
    /// The read also looks at the settings' version, so what it signs afterwards claims the environment another
    /// process set (a fresh server's first request is often a read).
    func read<Result: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> Result) async throws(StoreError) -> Result {
        let now = clock.now()
        let known = (version: settingsVersion, settings: settings), configured = configuredSettings
        let (nextDue, latestSettings, result) = try await storageCall { [tenantID] storage in
            try await storage.read(tenant: tenantID) { reader in
                (try reader.nextSubscriptionEventDate(), try Self.settings(known: known, configured: configured, in: reader), try body(reader))
            }
        }
        adoptSettings(latestSettings)
        guard let nextDue, nextDue <= now, !catalog.products.isEmpty else {
            scheduleWake(at: nextDue)
            return result
        }
        try await perform { _ in }
        return try await storageCall { [tenantID] storage in try await storage.read(tenant: tenantID, body) }
    }

    // MARK: Time

    /// Applies every subscription event due by the clock's now: renewals, expiries.
    ///
    /// Every operation and query does this first, so calling it is only needed to make a store catch up (and
    /// publish its renewals) while nothing else happens, as a server does at startup.
    public func applyDueEvents() async throws(StoreError) {
        // External purchase tokens catch up here, when the clock wakes the store, rather than in every operation.
        let next = try await perform { operation in
            try operation.applyDueExternalPurchaseTokenEvents()
            return try operation.storage.nextExternalPurchaseTokenEventDate()
        }
        noteExternalPurchaseTokenWake(next)
    }

    /// Reads when the next external purchase token notification is due, and wakes the store for it.
    func noteExternalPurchaseTokenEvents() async {
        let next = try? await storageCall { [tenantID] storage in
            try await storage.read(tenant: tenantID) { try $0.nextExternalPurchaseTokenEventDate() }
        }
        noteExternalPurchaseTokenWake(next ?? nil)
    }

    private func noteExternalPurchaseTokenWake(_ date: Date?) {
        externalPurchaseTokenWake = date
        scheduleWake(at: subscriptionWake)
    }

    /// Asks ``wakeups`` to wake the store when the next subscription event falls due on a clock that runs by itself;
    /// a ``VirtualClock`` drives its stores itself, through ``ScheduledEventSource``. A store without products
    /// cannot apply events, so it does not wake for them.
    private func scheduleWake(at subscriptionDate: Date?) {
        subscriptionWake = subscriptionDate
        let date = [subscriptionDate, externalPurchaseTokenWake].compactMap { $0 }.min()
        guard !wakesStopped, !(clock is VirtualClock), !catalog.products.isEmpty, date != scheduledWake else { return }
        scheduledWake = date
        if let date {
            wakeups.schedule(self, after: date.timeIntervalSince(clock.now()))
        } else {
            wakeups.cancel(ObjectIdentifier(self))
        }
    }

    /// Applies the events due now: ``wakeups`` calls this when the scheduled wake comes.
    func wake() async {
        scheduledWake = nil
        try? await applyDueEvents()
    }

    /// Stops waking the store for its scheduled events: a server calls this as it shuts down, so no renewal starts
    /// while its storage closes. Operations still apply every event due when they run.
    public func stopWaking() {
        wakesStopped = true
        scheduledWake = nil
        wakeups.cancel(ObjectIdentifier(self))
    }

    func storageCall<Result: Sendable>(_ body: @Sendable (any Storage) async throws -> Result) async throws(StoreError) -> Result {
        do {
            return try await body(storage)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storageFailure("The store's storage failed: \(error). Nothing was changed; check the data directory and try again.")
        }
    }
}

extension StoreEngine {
    /// The date of the store's next scheduled event (a renewal, an expiry, an external purchase token notification),
    /// for a ``VirtualClock``.
    public func nextEventDate() async -> Date? {
        try? await storageCall { [tenantID] storage in
            try await storage.read(tenant: tenantID) { reader in
                [try reader.nextSubscriptionEventDate(), try reader.nextExternalPurchaseTokenEventDate()].compactMap { $0 }.min()
            }
        }
    }

    /// Applies the subscription events due by `date`, which a ``VirtualClock`` has just reached.
    public func fireEvents(dueAt date: Date) async {
        try? await applyDueEvents()
    }
}

/// A storage transaction that notes whether anything was added to the notification outbox, which subscriptions were
/// saved and whether the settings were, so the engine can announce them after the commit; every call goes to the transaction it wraps.
private final class OutboxWatchingTransaction: StorageTransaction {
    private let base: any StorageTransaction
    private(set) var recordedNotifications = false
    /// Whether a notification was added or its delivery state changed.
    private(set) var changedNotifications = false
    /// The subscriptions saved, last version of each.
    private(set) var savedSubscriptions: [UInt64: SubscriptionRecord] = [:]
    /// Whether the tenant's settings were saved.
    private(set) var savedSettings = false
    /// Whether the tenant's catalog was saved.
    private(set) var savedCatalog = false
    /// Whether the tenant's notification destinations were saved, or may have gone with the rest of its state.
    private(set) var savedDestinations = false

    init(_ base: any StorageTransaction) {
        self.base = base
    }

    func write(_ change: StorageChange) throws {
        switch change {
        case .saveNotification:
            recordedNotifications = true
            changedNotifications = true
        case .updateNotification: changedNotifications = true
        case .saveSubscription(let subscription): savedSubscriptions[subscription.id] = subscription
        case .saveSettings: savedSettings = true
        case .saveCatalog: savedCatalog = true
        case .saveNotificationDestinations, .eraseTenant, .deleteTenant, .restore: savedDestinations = true
        default: break
        }
        try base.write(change)
    }

    func allocateTransactionID() throws -> UInt64 { try base.allocateTransactionID() }
    func account(id: String) throws -> Account? { try base.account(id: id) }
    func accounts() throws -> [Account] { try base.accounts() }
    func accounts(ids: [String]) throws -> [String: Account] { try base.accounts(ids: ids) }
    func transaction(id: UInt64) throws -> TransactionRecord? { try base.transaction(id: id) }
    func transactions(matching query: TransactionQuery) throws -> [TransactionRecord] { try base.transactions(matching: query) }
    func finishedTransactionIDs(deviceID: UUID) throws -> Set<UInt64> { try base.finishedTransactionIDs(deviceID: deviceID) }
    func purchaseIntents(accountID: String, bundleID: String) throws -> [PurchaseIntentRecord] {
        try base.purchaseIntents(accountID: accountID, bundleID: bundleID)
    }
    func subscription(id: UInt64) throws -> SubscriptionRecord? { try base.subscription(id: id) }
    func subscriptions(accountID: String, bundleID: String?) throws -> [SubscriptionRecord] {
        try base.subscriptions(accountID: accountID, bundleID: bundleID)
    }
    func subscriptionsDue(by date: Date, limit: Int) throws -> [SubscriptionRecord] { try base.subscriptionsDue(by: date, limit: limit) }
    func nextSubscriptionEventDate() throws -> Date? { try base.nextSubscriptionEventDate() }
    func notifications(matching query: NotificationQuery) throws -> [NotificationRecord] { try base.notifications(matching: query) }
    func notificationsDue(by date: Date, limit: Int) throws -> [NotificationRecord] { try base.notificationsDue(by: date, limit: limit) }
    func notification(id: UUID) throws -> NotificationRecord? { try base.notification(id: id) }
    func pendingNotifications(originalTransactionID: UInt64) throws -> [NotificationRecord] {
        try base.pendingNotifications(originalTransactionID: originalTransactionID)
    }
    func clockState() throws -> StoreClockState { try base.clockState() }
    func snapshot() throws -> TenantSnapshot { try base.snapshot() }
    func apiKeys() throws -> [APIKeyRecord] { try base.apiKeys() }
    func settingsVersion() throws -> Int { try base.settingsVersion() }
    func storedSettings() throws -> StoredSettings { try base.storedSettings() }
    func notificationDestinations() throws -> NotificationDestinations? { try base.notificationDestinations() }
    func notificationDestinationsStamp() throws -> Int64? { try base.notificationDestinationsStamp() }
    func catalogVersion() throws -> Int { try base.catalogVersion() }
    func storedCatalog() throws -> StoredCatalog { try base.storedCatalog() }
    func retentionMessaging(bundleID: String) throws -> RetentionMessagingContent? { try base.retentionMessaging(bundleID: bundleID) }
    func massExtension(productID: String, requestIdentifier: String) throws -> MassExtensionRecord? {
        try base.massExtension(productID: productID, requestIdentifier: requestIdentifier)
    }
    func externalPurchaseToken(id: String) throws -> ExternalPurchaseTokenRecord? { try base.externalPurchaseToken(id: id) }
    func externalPurchaseTokens(accountID: String, bundleID: String) throws -> [ExternalPurchaseTokenRecord] {
        try base.externalPurchaseTokens(accountID: accountID, bundleID: bundleID)
    }
    func externalPurchaseTokensDue(by date: Date, limit: Int) throws -> [ExternalPurchaseTokenRecord] {
        try base.externalPurchaseTokensDue(by: date, limit: limit)
    }
    func nextExternalPurchaseTokenEventDate() throws -> Date? { try base.nextExternalPurchaseTokenEventDate() }
    func externalPurchaseReport(requestIdentifier: String) throws -> ExternalPurchaseReportRecord? {
        try base.externalPurchaseReport(requestIdentifier: requestIdentifier)
    }
}
