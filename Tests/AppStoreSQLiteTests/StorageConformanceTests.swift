import AppStoreEngine
import AppStoreFormats
import AppStorePostgres
import AppStoreSQLite
import Foundation
import Testing

/// A storage implementation under test, made fresh for each test.
enum StorageKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case sqlite
    case postgres

    /// The kinds this run tests: PostgreSQL only when `OPENSTOREKIT_TEST_POSTGRES_URL` names a server (`.ci/run` starts
    /// one and sets it). Without it, each suite that runs on every kind reports a skipped test saying so.
    static var allCases: [StorageKind] {
        PostgresTestDatabase.isConfigured ? [.memory, .sqlite, .postgres] : [.memory, .sqlite]
    }

    var testDescription: String { rawValue }

    /// Two handles on one fresh store: the same object in memory, two connections pools on one SQLite file, two
    /// connection pools on one PostgreSQL schema made for the test (as two processes, or two servers, would have).
    /// `cleanup` removes what the store left on disk or in the database.
    func makeShared() throws -> (first: any Storage, second: any Storage, cleanup: @Sendable () -> Void) {
        switch self {
        case .memory:
            let storage = InMemoryStorage()
            return (storage, storage, {})
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-conformance-\(UUID().uuidString)")
            let url = directory.appendingPathComponent("store.sqlite")
            return (try SQLiteStorage(url: url), try SQLiteStorage(url: url), { try? FileManager.default.removeItem(at: directory) })
        case .postgres:
            let configuration = try PostgresTestDatabase.freshConfiguration()
            return (
                try PostgresStorage(configuration: configuration), try PostgresStorage(configuration: configuration),
                { try? PostgresTestDatabase.dropSchema(of: configuration) }
            )
        }
    }
}

/// The comment of the tests that say PostgreSQL was not tested.
let postgresSkipped: Comment = """
    OPENSTOREKIT_TEST_POSTGRES_URL is unset, so this suite ran on memory and SQLite only. To test PostgreSQL too: \
    export OPENSTOREKIT_TEST_POSTGRES_URL=$(bash .ci/postgres)
    """

/// What every ``Storage`` must do. New implementations join `StorageKind` and pass the same tests.
@Suite("Storage conformance")
struct StorageConformanceTests {
    let date = Date(timeIntervalSince1970: 1_768_478_400)

    // Skipped, visibly, when no PostgreSQL server is configured: the parameterized tests below then leave `.postgres` out.
    @Test("The suite runs on PostgreSQL too", .enabled(if: PostgresTestDatabase.isConfigured, postgresSkipped))
    func runsOnPostgres() throws {
        #expect(StorageKind.allCases.contains(.postgres))
    }

    func record(_ id: UInt64, account: String = "a", bundle: String = "app", product: String = "premium", original: UInt64? = nil) -> TransactionRecord {
        TransactionRecord(
            id: id, originalID: original ?? id, accountID: account, bundleID: bundle, productID: product,
            productType: .nonConsumable, quantity: 1, purchaseDate: date, originalPurchaseDate: date,
            storefront: Storefront.named("USA")!, unitPrice: 1, amountCharged: 1, origin: .purchase, state: .purchased
        )
    }

    @Test("A transaction reads its own writes, and a later one sees them committed", arguments: StorageKind.allCases)
    func readsOwnWrites(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let written = record(7)
        let seenInside = try await storage.transaction(tenant: "t") { transaction in
            try transaction.write([.saveAccount(Account(id: "a", storefront: "FRA")), .saveTransaction(written)])
            return try transaction.transaction(id: 7)
        }
        #expect(seenInside == written)
        #expect(try await other.read(tenant: "t") { try $0.transaction(id: 7) } == written)
        #expect(try await other.read(tenant: "t") { try $0.account(id: "a")?.storefront } == "FRA")
    }

    @Test("Accounts are read by a list of identifiers: the saved ones of the tenant, once each, in the transaction's own state too", arguments: StorageKind.allCases)
    func accountsByIdentifiers(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let saved = [Account(id: "a", storefront: "FRA"), Account(id: "b\"quoted\"", storefront: "JPN"), Account(id: "c", storefront: "USA")]
        let inside = try await storage.transaction(tenant: "t") { transaction in
            try transaction.write(saved.map(StorageChange.saveAccount))
            return try transaction.accounts(ids: ["a", "missing", "b\"quoted\"", "a"])
        }
        #expect(inside == ["a": saved[0], "b\"quoted\"": saved[1]])
        #expect(try await other.read(tenant: "t") { try $0.accounts(ids: ["c", "b\"quoted\""]) } == ["c": saved[2], "b\"quoted\"": saved[1]])
        #expect(try await other.read(tenant: "t") { try $0.accounts(ids: []) }.isEmpty)
        #expect(try await other.read(tenant: "elsewhere") { try $0.accounts(ids: ["a", "c"]) }.isEmpty, "another tenant's accounts")
    }

    @Test("A transaction whose body throws leaves nothing behind", arguments: StorageKind.allCases)
    func throwingBodyRollsBack(kind: StorageKind) async throws {
        let (storage, _, cleanup) = try kind.makeShared()
        defer { cleanup() }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await storage.transaction(tenant: "t") { transaction in
                try transaction.write(.saveAccount(Account(id: "a", storefront: "USA")))
                try transaction.write(.saveTransaction(record(1)))
                throw Refused()
            }
        }
        #expect(try await storage.read(tenant: "t") { try $0.accounts() }.isEmpty)
        #expect(try await storage.read(tenant: "t") { try $0.transactions(matching: TransactionQuery()) }.isEmpty)
    }

    @Test("Tenants never see each other's state", arguments: StorageKind.allCases)
    func tenantsAreIsolated(kind: StorageKind) async throws {
        let (storage, _, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let device = UUID()
        try await storage.transaction(tenant: "one") { transaction in
            try transaction.write([
                .saveAccount(Account(id: "a", storefront: "USA")), .saveTransaction(record(1)),
                .markFinished(transactionID: 1, deviceID: device),
                .savePurchaseIntent(PurchaseIntentRecord(accountID: "a", bundleID: "app", productID: "premium", date: date)),
            ])
        }
        let seen = try await storage.read(tenant: "two") { reader in
            (try reader.accounts().count, try reader.transactions(matching: TransactionQuery()).count,
             try reader.finishedTransactionIDs(deviceID: device).count, try reader.purchaseIntents(accountID: "a", bundleID: "app").count)
        }
        #expect(seen == (0, 0, 0, 0))
        #expect(try await storage.transaction(tenant: "two") { try $0.allocateTransactionID() } == TransactionRecord.firstID)
    }

    @Test("Erasing a tenant leaves it as new, identifiers starting over, and leaves other tenants alone", arguments: StorageKind.allCases)
    func eraseTenant(kind: StorageKind) async throws {
        let (storage, _, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let device = UUID()
        for tenant in ["kept", "erased"] {
            try await storage.transaction(tenant: tenant) { transaction in
                let id = try transaction.allocateTransactionID()
                try transaction.write([
                    .saveAccount(Account(id: "a", storefront: "FRA")), .saveTransaction(record(id)),
                    .markFinished(transactionID: id, deviceID: device),
                    .savePurchaseIntent(PurchaseIntentRecord(accountID: "a", bundleID: "app", productID: "premium", date: date)),
                    .saveClockState(StoreClockState(offset: 86_400, timeRate: .oneMinuteIsOneDay)),
                ])
            }
        }
        try await storage.transaction(tenant: "erased") { try $0.write(.eraseTenant) }
        let counts = { (tenant: String) in
            try await storage.read(tenant: tenant) { reader in
                [try reader.accounts().count, try reader.transactions(matching: TransactionQuery()).count,
                 try reader.finishedTransactionIDs(deviceID: device).count, try reader.purchaseIntents(accountID: "a", bundleID: "app").count]
            }
        }
        #expect(try await counts("erased") == [0, 0, 0, 0])
        #expect(try await storage.read(tenant: "erased") { try $0.clockState() } == StoreClockState())
        #expect(try await storage.transaction(tenant: "erased") { try $0.allocateTransactionID() } == TransactionRecord.firstID)
        #expect(try await counts("kept") == [1, 1, 1, 1])
        #expect(try await storage.read(tenant: "kept") { try $0.clockState().offset } == 86_400)
    }

    @Test("A snapshot holds everything of a tenant, and restoring it elsewhere gives back the same state", arguments: StorageKind.allCases)
    func snapshotRoundTrip(kind: StorageKind) async throws {
        let (storage, _, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let device = UUID()
        try await storage.transaction(tenant: "source") { transaction in
            let first = try transaction.allocateTransactionID()
            let second = try transaction.allocateTransactionID()
            try transaction.write([
                .saveAccount(Account(id: "a", storefront: "FRA")), .saveTransaction(record(first)), .saveTransaction(record(second, product: "coins")),
                .markFinished(transactionID: first, deviceID: device),
                .savePurchaseIntent(PurchaseIntentRecord(accountID: "a", bundleID: "app", productID: "premium", date: date)),
                .saveClockState(StoreClockState(offset: 3_600, timeRate: nil)),
            ])
        }
        let snapshot = try await storage.read(tenant: "source") { try $0.snapshot() }
        #expect(snapshot.transactions.map(\.id) == [TransactionRecord.firstID, TransactionRecord.firstID + 1])
        #expect(snapshot.finishedTransactions == [TenantSnapshot.FinishedMark(deviceID: device, transactionID: TransactionRecord.firstID)])
        #expect(snapshot.nextTransactionID == TransactionRecord.firstID + 2)
        // Through a file and into another tenant, and into the other kind of storage: the same state.
        let file = try TenantSnapshot.makeEncoder().encode(snapshot)
        let decoded = try TenantSnapshot.makeDecoder().decode(TenantSnapshot.self, from: file)
        #expect(decoded == snapshot)
        let other = try #require(StorageKind.allCases.first { $0 != kind }).makeShared()
        defer { other.cleanup() }
        for target in [storage, other.first] {
            try await target.transaction(tenant: "copy") { try $0.write(.saveTransaction(record(99))) }
            try await target.transaction(tenant: "copy") { try $0.write(.restore(decoded)) }
            #expect(try await target.read(tenant: "copy") { try $0.snapshot() } == snapshot)
            #expect(try await target.transaction(tenant: "copy") { try $0.allocateTransactionID() } == TransactionRecord.firstID + 2)
        }
    }

    @Test("Queries filter by account, app, product, original purchase and idempotency key, ordered by identifier", arguments: StorageKind.allCases)
    func queries(kind: StorageKind) async throws {
        let (storage, _, cleanup) = try kind.makeShared()
        defer { cleanup() }
        var keyed = record(6, original: 3)
        keyed.idempotencyKey = "order-1"
        var keyedElsewhere = record(5, account: "b")
        keyedElsewhere.idempotencyKey = "order-1"
        var rekeyed = record(4, product: "coins")
        rekeyed.idempotencyKey = "order-2"
        let written: [StorageChange] = [
            .saveTransaction(keyedElsewhere), .saveTransaction(record(3, bundle: "other")),
            .saveTransaction(rekeyed), .saveTransaction(keyed), .saveTransaction(record(2)),
        ]
        try await storage.transaction(tenant: "t") { try $0.write(written) }
        // A transaction saved again with another key is found by its new key only.
        rekeyed.idempotencyKey = "order-3"
        let resaved = StorageChange.saveTransaction(rekeyed)
        try await storage.transaction(tenant: "t") { try $0.write(resaved) }
        func ids(_ query: TransactionQuery) async throws -> [UInt64] {
            try await storage.read(tenant: "t") { try $0.transactions(matching: query).map(\.id) }
        }
        #expect(try await ids(TransactionQuery()) == [2, 3, 4, 5, 6])
        #expect(try await ids(TransactionQuery(accountID: "b")) == [5])
        #expect(try await ids(TransactionQuery(bundleID: "other")) == [3])
        #expect(try await ids(TransactionQuery(productID: "coins")) == [4])
        #expect(try await ids(TransactionQuery(originalID: 3)) == [3, 6])
        #expect(try await ids(TransactionQuery(accountID: "a", bundleID: "app", productID: "premium")) == [2, 6])
        #expect(try await ids(TransactionQuery(accountID: "a", bundleID: "app", idempotencyKey: "order-1")) == [6])
        #expect(try await ids(TransactionQuery(idempotencyKey: "order-1")) == [5, 6])
        #expect(try await ids(TransactionQuery(idempotencyKey: "order-2")) == [])
        #expect(try await ids(TransactionQuery(idempotencyKey: "order-3")) == [4])
    }

    @Test("Finished marks go with the transactions they mark", arguments: StorageKind.allCases)
    func finishedMarks(kind: StorageKind) async throws {
        let (storage, _, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let device = UUID(), otherDevice = UUID()
        try await storage.transaction(tenant: "t") { transaction in
            try transaction.write([
                .saveTransaction(record(1)), .saveTransaction(record(2)), .saveTransaction(record(3)),
                .markFinished(transactionID: 1, deviceID: device), .markFinished(transactionID: 2, deviceID: device),
                .markFinished(transactionID: 2, deviceID: device), .markFinished(transactionID: 3, deviceID: otherDevice),
            ])
        }
        #expect(try await storage.read(tenant: "t") { try $0.finishedTransactionIDs(deviceID: device) } == [1, 2])
        try await storage.transaction(tenant: "t") { try $0.write(.deleteTransactions([2])) }
        #expect(try await storage.read(tenant: "t") { try $0.finishedTransactionIDs(deviceID: device) } == [1])
        try await storage.transaction(tenant: "t") { try $0.write(.deleteAllTransactions) }
        #expect(try await storage.read(tenant: "t") { try $0.finishedTransactionIDs(deviceID: otherDevice) }.isEmpty)
        #expect(try await storage.read(tenant: "t") { try $0.transactions(matching: TransactionQuery()) }.isEmpty)
    }

    @Test("Purchase intents are listed oldest first per account and app, and deleted by identifier", arguments: StorageKind.allCases)
    func purchaseIntents(kind: StorageKind) async throws {
        let (storage, _, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let late = PurchaseIntentRecord(accountID: "a", bundleID: "app", productID: "premium", date: date.addingTimeInterval(60))
        let early = PurchaseIntentRecord(accountID: "a", bundleID: "app", productID: "coins", date: date)
        let elsewhere = PurchaseIntentRecord(accountID: "a", bundleID: "other", productID: "coins", date: date)
        try await storage.transaction(tenant: "t") { try $0.write([.savePurchaseIntent(late), .savePurchaseIntent(early), .savePurchaseIntent(elsewhere)]) }
        #expect(try await storage.read(tenant: "t") { try $0.purchaseIntents(accountID: "a", bundleID: "app") } == [early, late])
        try await storage.transaction(tenant: "t") { try $0.write(.deletePurchaseIntent(early.id)) }
        #expect(try await storage.read(tenant: "t") { try $0.purchaseIntents(accountID: "a", bundleID: "app") } == [late])
    }

    func subscription(_ id: UInt64, account: String = "a", expires: TimeInterval, status: SubscriptionStatus = .active) -> SubscriptionRecord {
        SubscriptionRecord(
            id: id, accountID: account, bundleID: "app", groupID: "G1", productID: "monthly", latestTransactionID: id,
            originalPurchaseDate: date, periodStartDate: date, expiresDate: date.addingTimeInterval(expires), status: status
        )
    }

    @Test("Subscriptions are found by original transaction and account, and the due ones in due-date order", arguments: StorageKind.allCases)
    func subscriptions(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        try await storage.transaction(tenant: "t") { transaction in
            try transaction.write([
                .saveSubscription(subscription(1, expires: 300)),
                .saveSubscription(subscription(2, expires: 100)),
                .saveSubscription(subscription(3, account: "b", expires: 200)),
                .saveSubscription(subscription(4, expires: 50, status: .expired)),
            ])
        }
        try await storage.transaction(tenant: "other") { try $0.write(.saveSubscription(subscription(9, expires: 10))) }
        let (byID, ofA, due, firstTwo, next) = try await other.read(tenant: "t") { reader in
            (
                try reader.subscription(id: 2), try reader.subscriptions(accountID: "a", bundleID: "app").map(\.id),
                try reader.subscriptionsDue(by: date.addingTimeInterval(250), limit: 10).map(\.id),
                try reader.subscriptionsDue(by: date.addingTimeInterval(1_000), limit: 2).map(\.id),
                try reader.nextSubscriptionEventDate()
            )
        }
        #expect(byID == subscription(2, expires: 100))
        #expect(ofA == [1, 2, 4])
        #expect(due == [2, 3])
        #expect(firstTwo == [2, 3])
        #expect(next == date.addingTimeInterval(100))

        try await storage.transaction(tenant: "t") { transaction in
            try transaction.write([.deleteSubscriptions([2]), .saveSubscription(subscription(3, account: "b", expires: 200, status: .expired))])
        }
        #expect(try await other.read(tenant: "t") { try $0.nextSubscriptionEventDate() } == date.addingTimeInterval(300))
        try await storage.transaction(tenant: "t") { try $0.write(.deleteAllTransactions) }
        #expect(try await other.read(tenant: "t") { try $0.subscriptions(accountID: "a", bundleID: nil) }.isEmpty)
        #expect(try await other.read(tenant: "other") { try $0.subscription(id: 9) } != nil)
    }

    @Test("A transaction that reads an account's subscriptions again sees what it wrote in between, and each app's apart", arguments: StorageKind.allCases)
    func subscriptionsReadAgain(kind: StorageKind) async throws {
        let (storage, _, cleanup) = try kind.makeShared()
        defer { cleanup() }
        try await storage.transaction(tenant: "t") { try $0.write(.saveSubscription(subscription(1, expires: 300))) }
        let reads = try await storage.transaction(tenant: "t") { transaction in
            var reads = [try transaction.subscriptions(accountID: "a", bundleID: "app").map(\.status)]
            reads.append(try transaction.subscriptions(accountID: "a", bundleID: "app").map(\.status))
            try transaction.write(.saveSubscription(subscription(1, expires: 300, status: .expired)))
            reads.append(try transaction.subscriptions(accountID: "a", bundleID: "app").map(\.status))
            try transaction.write(.saveSubscription(subscription(2, expires: 100)))
            reads.append(try transaction.subscriptions(accountID: "a", bundleID: nil).map(\.status))
            reads.append(try transaction.subscriptions(accountID: "a", bundleID: "another app").map(\.status))
            try transaction.write(.deleteSubscriptions([1]))
            reads.append(try transaction.subscriptions(accountID: "a", bundleID: "app").map(\.status))
            return reads
        }
        #expect(reads == [[.active], [.active], [.expired], [.expired, .active], [], [.active]])
    }

    @Test("The notification outbox is read by date, then in writing order, filtered by app and dates, per tenant", arguments: StorageKind.allCases)
    func notifications(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        func note(_ type: NotificationTypeV2, at seconds: TimeInterval, transaction: UInt64, bundle: String = "app") -> NotificationRecord {
            NotificationRecord(
                type: type, subtype: type == .subscribed ? .initialBuy : nil, date: date.addingTimeInterval(seconds), accountID: "a",
                bundleID: bundle, transactionID: transaction,
                subscription: type == .subscribed ? subscription(transaction, expires: 100) : nil
            )
        }
        let written = [
            note(.subscribed, at: 0, transaction: 1), note(.didRenew, at: 200, transaction: 2),
            note(.oneTimeCharge, at: 100, transaction: 3), note(.refund, at: 100, transaction: 3), note(.oneTimeCharge, at: 50, transaction: 4, bundle: "other"),
        ]
        try await storage.transaction(tenant: "t") { try $0.write(written.map(StorageChange.saveNotification)) }
        let elsewhere = note(.test, at: 0, transaction: 9)
        try await storage.transaction(tenant: "elsewhere") { try $0.write(.saveNotification(elsewhere)) }
        let (all, ofApp, window, first) = try await other.read(tenant: "t") { reader in
            (
                try reader.notifications(matching: NotificationQuery()),
                try reader.notifications(matching: NotificationQuery(bundleID: "app")).map(\.type),
                try reader.notifications(matching: NotificationQuery(startDate: date.addingTimeInterval(50), endDate: date.addingTimeInterval(200))).map(\.type),
                try reader.notifications(matching: NotificationQuery(limit: 2)).map(\.type)
            )
        }
        #expect(all == [written[0], written[4], written[2], written[3], written[1]])
        #expect(ofApp == [.subscribed, .oneTimeCharge, .refund, .didRenew])
        #expect(window == [.oneTimeCharge, .oneTimeCharge, .refund])
        #expect(first == [.subscribed, .oneTimeCharge])

        try await storage.transaction(tenant: "t") { try $0.write(.deleteTransactions([3])) }
        #expect(try await other.read(tenant: "t") { try $0.notifications(matching: NotificationQuery()).map(\.transactionID) } == [1, 4, 2])
        try await storage.transaction(tenant: "t") { try $0.write(.deleteAllTransactions) }
        #expect(try await other.read(tenant: "t") { try $0.notifications(matching: NotificationQuery()) }.isEmpty)
        #expect(try await other.read(tenant: "elsewhere") { try $0.notifications(matching: NotificationQuery()) }.count == 1)
    }

    @Test(
        "A transaction writing thousands of rows, as a period end renewing every subscriber does, keeps each table's writes in order: saving a row twice keeps the second, a deletion between saves takes out only what came before it, and a read between sees everything before it",
        arguments: StorageKind.allCases
    )
    func manyRowsInOneTransaction(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        // More rows than one PostgreSQL statement gathers (1,000), of three tables written in turn, as renewals do.
        let count: UInt64 = 2_500
        let seenInBetween = try await storage.transaction(tenant: "t") { transaction in
            for id in 1...count {
                try transaction.write(.saveTransaction(record(id, account: "account-\(id % 7)")))
                try transaction.write(.saveNotification(NotificationRecord(
                    type: .didRenew, date: date.addingTimeInterval(Double(id / 100)), accountID: "account-\(id % 7)", bundleID: "app",
                    transactionID: id, originalTransactionID: id
                )))
                try transaction.write(.saveSubscription(subscription(id, account: "account-\(id % 7)", expires: Double(id))))
                if id == 1_500 {
                    // Saved again in the same transaction (and among the same thousand): the second save is the one kept.
                    try transaction.write(.saveSubscription(subscription(1_200, account: "account-3", expires: 99_999)))
                    try transaction.write(.saveTransaction(record(1_200, account: "account-3", product: "renamed")))
                }
            }
            let seen = (try transaction.transactions(matching: TransactionQuery()).count, try transaction.subscription(id: 1_200)?.accountID)
            try transaction.write(.deleteTransactions([20]))
            // After the deletion: this one stays.
            try transaction.write(.saveTransaction(record(20)))
            return seen
        }
        #expect(seenInBetween.0 == Int(count))
        #expect(seenInBetween.1 == "account-3")
        let (transactions, notifications, resaved, due) = try await other.read(tenant: "t") { reader in
            (
                try reader.transactions(matching: TransactionQuery()),
                try reader.notifications(matching: NotificationQuery()).map(\.transactionID),
                try reader.subscription(id: 1_200),
                try reader.subscriptionsDue(by: date.addingTimeInterval(Double(count)), limit: 5_000).count
            )
        }
        #expect(transactions.map(\.id) == Array(1...count))
        #expect(transactions.first { $0.id == 1_200 }?.productID == "renamed")
        #expect(transactions.first { $0.id == 20 }?.accountID == "a")
        // The notification of transaction 20 went with its transaction; the others keep their order.
        #expect(notifications == Array(1...count).filter { $0 != 20 })
        #expect(resaved?.accountID == "account-3" && resaved?.expiresDate == date.addingTimeInterval(99_999))
        #expect(due == Int(count) - 1)
    }

    @Test("The pending notifications of an original transaction come in writing order; delivered ones and other originals are left out", arguments: StorageKind.allCases)
    func pendingNotificationsOfAnOriginal(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        func note(_ type: NotificationTypeV2, at seconds: TimeInterval, transaction: UInt64, original: UInt64) -> NotificationRecord {
            NotificationRecord(
                type: type, date: date.addingTimeInterval(seconds), accountID: "a", bundleID: "app", transactionID: transaction,
                originalTransactionID: original
            )
        }
        // Written out of date order on purpose: the order asked for is the order written.
        let renewal = note(.didRenew, at: 300, transaction: 11, original: 10)
        var delivered = note(.subscribed, at: 0, transaction: 10, original: 10)
        let refund = note(.refund, at: 100, transaction: 11, original: 10)
        let unrelated = note(.oneTimeCharge, at: 50, transaction: 20, original: 20)
        let elsewhere = note(.test, at: 0, transaction: 12, original: 10)
        try await storage.transaction(tenant: "t") { [delivered] in
            try $0.write([renewal, delivered, refund, unrelated].map(StorageChange.saveNotification))
        }
        try await storage.transaction(tenant: "elsewhere") { try $0.write(.saveNotification(elsewhere)) }
        delivered.delivery.record(.init(date: date, result: "SUCCESS"))
        try await storage.transaction(tenant: "t") { [delivered] in try $0.write(.updateNotification(delivered)) }

        let pending = try await other.read(tenant: "t") { try $0.pendingNotifications(originalTransactionID: 10) }
        #expect(pending.map(\.id) == [renewal.id, refund.id])
        #expect(try await other.read(tenant: "t") { try $0.pendingNotifications(originalTransactionID: 20) }.map(\.id) == [unrelated.id])
        #expect(try await other.read(tenant: "t") { try $0.pendingNotifications(originalTransactionID: 99) }.isEmpty)
    }

    @Test("Concurrent transactions on two handles never interleave: no update is lost, no identifier is given twice", arguments: StorageKind.allCases)
    func concurrentTransactionsAreSerialized(kind: StorageKind) async throws {
        let (first, second, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let writers = 40
        // Each transaction reads how many rows there are, then writes the next one. Two that interleaved would
        // read the same count and write the same row, losing one.
        let allocated = try await withThrowingTaskGroup(of: UInt64.self) { group in
            for index in 0..<writers {
                let storage = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    try await storage.transaction(tenant: "t") { transaction in
                        let count = try transaction.transactions(matching: TransactionQuery()).count
                        try transaction.write(.saveTransaction(record(UInt64(count + 1))))
                        return try transaction.allocateTransactionID()
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(allocated).count == writers)
        #expect(allocated.min() == TransactionRecord.firstID)
        #expect(try await first.read(tenant: "t") { try $0.transactions(matching: TransactionQuery()).map(\.id) } == Array(1...UInt64(writers)))
    }

    @Test("Of transactions run at the same moment, each caller gets its own outcome: the refused ones leave nothing, the others all commit", arguments: StorageKind.allCases)
    func concurrentOutcomesAreEachCallers(kind: StorageKind) async throws {
        let (first, second, cleanup) = try kind.makeShared()
        defer { cleanup() }
        struct Refused: Error, Equatable { let id: UInt64 }
        // SQLite commits transactions that arrive together as one (a group commit): a refused one must take only its
        // own writes with it, and a caller must hear of success only for writes that are there.
        let outcomes = await withTaskGroup(of: (UInt64, Result<UInt64, Refused>).self) { group in
            for id in UInt64(1)...90 {
                let storage = id.isMultiple(of: 2) ? first : second
                group.addTask {
                    do {
                        let written = try await storage.transaction(tenant: "t") { transaction in
                            try transaction.write(.saveTransaction(record(id)))
                            if id.isMultiple(of: 3) { throw Refused(id: id) }
                            return try transaction.transaction(id: id)?.id
                        }
                        return (id, .success(written ?? 0))
                    } catch let refused as Refused {
                        return (id, .failure(refused))
                    } catch {
                        Issue.record("transaction \(id) failed with \(error)")
                        return (id, .success(0))
                    }
                }
            }
            return await group.reduce(into: [UInt64: Result<UInt64, Refused>]()) { $0[$1.0] = $1.1 }
        }
        for (id, outcome) in outcomes {
            #expect(outcome == (id.isMultiple(of: 3) ? .failure(Refused(id: id)) : .success(id)))
        }
        let stored = try await first.read(tenant: "t") { try $0.transactions(matching: TransactionQuery()).map(\.id) }
        #expect(stored == (UInt64(1)...90).filter { !$0.isMultiple(of: 3) })
    }

    @Test("Of transactions run at the same moment, the refused ones take back the identifiers they allocated or reset: no identifier is handed out twice", arguments: StorageKind.allCases)
    func concurrentIdentifiersAreNeverReused(kind: StorageKind) async throws {
        let (first, second, cleanup) = try kind.makeShared()
        defer { cleanup() }
        struct Refused: Error {}
        // SQLite counts identifiers in memory for a whole group commit: a refused member that allocated, or that
        // restored a snapshot setting the counter back, must leave the count as it found it, or a later member of
        // the group would reuse an identifier and replace a purchase.
        let committed = await withTaskGroup(of: UInt64?.self) { group in
            for index in 0..<90 {
                let storage = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    try? await storage.transaction(tenant: "t") { transaction in
                        if index.isMultiple(of: 3) {
                            try transaction.write(.restore(TenantSnapshot()))
                            _ = try transaction.allocateTransactionID()
                            throw Refused()
                        }
                        let id = try transaction.allocateTransactionID()
                        try transaction.write(.saveTransaction(record(id)))
                        return id
                    }
                }
            }
            return await group.reduce(into: [UInt64]()) { ids, id in if let id { ids.append(id) } }
        }
        #expect(committed.count == 60)
        #expect(Set(committed).count == 60, "an identifier was handed out twice: \(committed.sorted())")
        let stored = try await first.read(tenant: "t") { try $0.transactions(matching: TransactionQuery()).map(\.id) }
        #expect(stored == committed.sorted())
    }

    @Test(
        "Inside a transaction, the clock and the due subscriptions read as the other handle's last commit left them, then as the transaction's own writes leave them",
        arguments: StorageKind.allCases
    )
    func transactionReadsLatestClockAndDueDates(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let moved = StoreClockState(offset: 86_400, timeRate: .oneRenewalEveryTenSeconds)
        try await storage.transaction(tenant: "t") { try $0.write([.saveClockState(moved), .saveSubscription(subscription(1, expires: 300))]) }
        let (before, after) = try await other.transaction(tenant: "t") { transaction in
            let before = (
                try transaction.clockState(), try transaction.subscriptionsDue(by: date.addingTimeInterval(299), limit: 10).map(\.id),
                try transaction.subscriptionsDue(by: date.addingTimeInterval(300), limit: 10).map(\.id), try transaction.nextSubscriptionEventDate()
            )
            try transaction.write([.saveClockState(StoreClockState(offset: 172_800)), .saveSubscription(subscription(2, expires: 100))])
            let after = (
                try transaction.clockState(), try transaction.subscriptionsDue(by: date.addingTimeInterval(150), limit: 10).map(\.id),
                try transaction.nextSubscriptionEventDate()
            )
            return (before, after)
        }
        #expect(before.0 == moved)
        #expect(before.1 == [])
        #expect(before.2 == [1])
        #expect(before.3 == date.addingTimeInterval(300))
        #expect(after.0 == StoreClockState(offset: 172_800))
        #expect(after.1 == [2])
        #expect(after.2 == date.addingTimeInterval(100))
        let seenByFirst = try await storage.transaction(tenant: "t") { transaction in
            (try transaction.clockState(), try transaction.nextSubscriptionEventDate())
        }
        #expect(seenByFirst.0 == StoreClockState(offset: 172_800))
        #expect(seenByFirst.1 == date.addingTimeInterval(100))
    }

    @Test("A tenant's clock state starts at wall time, is replaced as a whole, survives clearing transactions and stays in its tenant", arguments: StorageKind.allCases)
    func clockStateIsPerTenant(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        #expect(try await storage.read(tenant: "t") { try $0.clockState() } == StoreClockState())

        let moved = StoreClockState(offset: 7_776_000.5, timeRate: .oneRenewalEveryTenSeconds)
        let seenInside = try await storage.transaction(tenant: "t") { transaction in
            try transaction.write(.saveClockState(moved))
            return try transaction.clockState()
        }
        #expect(seenInside == moved)
        #expect(try await other.read(tenant: "t") { try $0.clockState() } == moved)
        #expect(try await other.read(tenant: "u") { try $0.clockState() } == StoreClockState())

        try await other.transaction(tenant: "t") { try $0.write(.saveClockState(StoreClockState(offset: 9_000_000))) }
        #expect(try await storage.read(tenant: "t") { try $0.clockState() } == StoreClockState(offset: 9_000_000, timeRate: nil))

        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await storage.transaction(tenant: "t") { transaction in
                try transaction.write(.saveClockState(StoreClockState(offset: 1)))
                throw Refused()
            }
        }
        try await storage.transaction(tenant: "t") { try $0.write(.deleteAllTransactions) }
        #expect(try await other.read(tenant: "t") { try $0.clockState().offset } == 9_000_000)
    }
}

extension ConcurrentOperationTests {
    // Here rather than beside the concurrency tests because it belongs with `StorageKind`: skipped, visibly, when no
    // PostgreSQL server is configured, as the racing tests then leave `.postgres` out.
    @Test("The suite runs on PostgreSQL too", .enabled(if: PostgresTestDatabase.isConfigured, postgresSkipped))
    func runsOnPostgres() throws {
        #expect(StorageKind.allCases.contains(.postgres))
    }
}
