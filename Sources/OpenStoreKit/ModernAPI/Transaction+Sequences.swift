import AppStoreEngine
import AppStoreFormats
import Foundation

extension Transaction {
    /// An asynchronous sequence of signed transactions: what ``all``, ``currentEntitlements``, ``unfinished`` and
    /// ``updates`` give.
    public struct Transactions: AsyncSequence, Sendable {
        /// A transaction and whether it verified.
        public typealias Element = VerificationResult<Transaction>

        private let produce: @Sendable (AsyncStream<Element>.Continuation) async -> Void

        /// A sequence whose elements `produce` yields; the sequence ends when `produce` returns.
        init(_ produce: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void) {
            self.produce = produce
        }

        /// A sequence of the transactions `select` picks from the current device's store, read when iteration starts.
        static func snapshot(_ select: @escaping @Sendable (StoreKitDevice) async throws(StoreKitError) -> [TransactionRecord]) -> Transactions {
            let device = Result { () throws(StoreKitError) in try StoreKitDevice.current() }
            return Transactions { continuation in
                guard let device = try? device.get(), let records = try? await select(device),
                      let results = try? await device.verifiedTransactions(records) else { return }
                for result in results { continuation.yield(result) }
            }
        }

        /// Iterates the sequence.
        public typealias AsyncIterator = AsyncStream<Element>.Iterator

        /// Starts iterating.
        public func makeAsyncIterator() -> AsyncIterator {
            producedStream(produce).makeAsyncIterator()
        }
    }

    /// Every transaction of the customer in the app, oldest first: purchases, renewals, refunded ones, family
    /// shared ones. Consumables the app finished are left out, unless they were refunded or revoked or the app opts
    /// in with `SKIncludeConsumableInAppPurchaseHistory` (``StoreEnvironment/includesConsumableInAppPurchaseHistory``).
    public static var all: Transactions {
        .snapshot { device throws(StoreKitError) in try await device.historyRecords() }
    }

    /// Every transaction of the customer for one product, oldest first; finished consumables are left out as in
    /// ``all``.
    public static func all(for productID: String) -> Transactions {
        .snapshot { device throws(StoreKitError) in try await device.historyRecords().filter { $0.productID == productID } }
    }

    /// The transactions that entitle the customer now: the latest of each non-consumable and non-renewing
    /// subscription, and of each auto-renewable subscription that is subscribed or in its grace period. Refunded
    /// and revoked ones are left out.
    public static var currentEntitlements: Transactions {
        .snapshot { device throws(StoreKitError) in try await device.entitlementRecords() }
    }

    /// The transactions that entitle the customer to one product now.
    public static func currentEntitlements(for productID: String) -> Transactions {
        .snapshot { device throws(StoreKitError) in try await device.entitlementRecords().filter { $0.productID == productID } }
    }

    /// The transaction that entitles the customer to a product now, if any.
    @available(iOS, deprecated: 18.4, message: "Use currentEntitlements(for:)") @available(macOS, deprecated: 15.4, message: "Use currentEntitlements(for:)")
    @available(tvOS, deprecated: 18.4, message: "Use currentEntitlements(for:)") @available(watchOS, deprecated: 11.4, message: "Use currentEntitlements(for:)")
    @available(visionOS, deprecated: 2.4, message: "Use currentEntitlements(for:)")
    public static func currentEntitlement(for productID: String) async -> VerificationResult<Transaction>? {
        for await result in currentEntitlements(for: productID) { return result }
        return nil
    }

    /// The customer's latest transaction for a product, refunded or not; `nil` when there is none. A consumable the
    /// app finished does not count, unless it was refunded or revoked or the app opts in with
    /// `SKIncludeConsumableInAppPurchaseHistory` (``StoreEnvironment/includesConsumableInAppPurchaseHistory``).
    public static func latest(for productID: String) async -> VerificationResult<Transaction>? {
        guard let device = try? StoreKitDevice.current(),
              let record = try? await device.historyRecords().last(where: { $0.productID == productID }) else { return nil }
        return try? await device.verifiedTransactions([record]).first
    }

    /// The transactions the app has not finished on this device, oldest first.
    public static var unfinished: Transactions {
        .snapshot { device throws(StoreKitError) in try await device.unfinishedRecords() }
    }

    /// Transactions that reach the app other than as the result of its own `purchase`: renewals, refunds and
    /// revocations, approved Ask to Buy requests, resolved interrupted purchases, purchases made on other devices
    /// or outside the app, offer codes redeemed on the App Store. The app's unfinished transactions come first.
    ///
    /// Start iterating when the app launches and keep iterating: the sequence never ends on its own.
    public static var updates: Transactions {
        let device = Result { () throws(StoreKitError) in try StoreKitDevice.current() }
        return Transactions { continuation in
            guard let device = try? device.get() else { return }
            await device.streamUpdates(to: continuation)
        }
    }
}

extension StoreKitDevice {
    /// The records ``Transaction/all`` and ``Transaction/latest(for:)`` show: a consumable the app finished leaves
    /// the history, unless it was refunded or revoked or the app keeps finished consumables
    /// (``StoreEnvironment/includesConsumableInAppPurchaseHistory``).
    func historyRecords() async throws(StoreKitError) -> [TransactionRecord] {
        let records = try await transactionRecords()
        guard !environment.includesConsumableInAppPurchaseHistory,
              records.contains(where: { $0.productType == .consumable && !$0.isRevoked }) else { return records }
        let unfinished = Set(try await unfinishedRecords().map(\.id))
        return records.filter { $0.productType != .consumable || $0.isRevoked || unfinished.contains($0.id) }
    }

    /// The completed transactions this device has not finished, oldest first.
    func unfinishedRecords() async throws(StoreKitError) -> [TransactionRecord] {
        let (accountID, bundleID, deviceID) = (environment.accountID, environment.bundleID, environment.deviceID)
        return try await call { connection throws(StoreError) in
            try await connection.unfinishedTransactions(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
        }.filter(Self.isShown)
    }

    /// The records that entitle the customer now, in purchase order.
    func entitlementRecords() async throws(StoreKitError) -> [TransactionRecord] {
        let records = try await transactionRecords()
        let (accountID, bundleID) = (environment.accountID, environment.bundleID)
        let subscriptions = records.contains { $0.productType == .autoRenewable }
            ? try await call { connection throws(StoreError) in try await connection.subscriptions(accountID: accountID, bundleID: bundleID) }
            : []
        var latest: [String: TransactionRecord] = [:]
        for record in records where record.productType == .nonConsumable || record.productType == .nonRenewable {
            latest[record.productID] = record
        }
        var entitled = latest.values.filter { !$0.isRevoked }.map(\.id)
        let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        for subscription in subscriptions where subscription.status == .active || subscription.status == .gracePeriod {
            if let record = byID[subscription.latestTransactionID], !record.isRevoked { entitled.append(record.id) }
        }
        let ids = Set(entitled)
        return records.filter { ids.contains($0.id) }
    }

    /// Yields ``Transaction/updates`` until the iterating task is cancelled: the unfinished transactions first, then
    /// each transaction that appears or changes in a way the app did not cause with its own purchase.
    func streamUpdates(to continuation: AsyncStream<VerificationResult<Transaction>>.Continuation) async {
        let connection = environment.connection
        let changes = await connection.changes()
        let query = TransactionQuery(accountID: environment.accountID, bundleID: environment.bundleID)
        var known: [UInt64: TransactionRecord] = [:]
        if let records = try? await connection.transactions(query) {
            for record in records { known[record.id] = record }
        }
        if let unfinished = try? await unfinishedRecords(), let results = try? await verifiedTransactions(unfinished) {
            // One that arrived after the first look is yielded here, not again when its change comes in.
            for record in unfinished { known[record.id] = record }
            for result in results { continuation.yield(result) }
        }
        await listening {
            for await change in changes { await deliver(change) }
        }

        func deliver(_ change: StoreChange) async {
            let candidates: [TransactionRecord]
            switch change {
            case .transactions(let records):
                candidates = records.filter { $0.accountID == query.accountID && $0.bundleID == query.bundleID }
            case .other:
                guard let records = try? await connection.transactions(query) else { return }
                candidates = records
            case .subscriptions:
                return
            }
            var updated: [TransactionRecord] = []
            for record in candidates {
                let before = known.updateValue(record, forKey: record.id)
                guard before != record, Self.isShown(record), !isOwnPurchase(record, firstSeen: before == nil) else { continue }
                updated.append(record)
            }
            guard let results = try? await verifiedTransactions(updated) else { return }
            for result in results { continuation.yield(result) }
        }
    }

    /// Whether a transaction is the app's own purchase on this device, completed at once: `Product.purchase`
    /// returned it (or the payment queue delivered it), so it is no update.
    private func isOwnPurchase(_ record: TransactionRecord, firstSeen: Bool) -> Bool {
        firstSeen && record.deviceID == environment.deviceID && (record.origin == .purchase || record.origin == .repurchase)
    }
}
