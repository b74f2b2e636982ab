import AppStoreEngine
import AppStoreFormats
import AppStoreSQLite
import Foundation
import GRDB
import Testing

@Suite("SQLite storage")
struct SQLiteStorageTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-sqlite-\(UUID().uuidString)")
    var databaseURL: URL { directory.appendingPathComponent("store.sqlite") }
    let start = Date(timeIntervalSince1970: 1_768_478_400)
    let catalog = Catalog(products: [
        CatalogProduct(id: "coins", type: .consumable, price: Decimal(string: "0.99")!),
        CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!),
    ])

    func engine(_ storage: any Storage) throws -> StoreEngine {
        StoreEngine(catalog: catalog, storage: storage, clock: VirtualClock(start: start), signer: .ephemeral)
    }

    @Test("Purchases, accounts and finished marks survive closing and reopening the database")
    func survivesReopen() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = UUID()
        let bought: TransactionRecord
        do {
            let store = try engine(try SQLiteStorage(url: databaseURL))
            try await store.saveAccount(Account(id: "ana", storefront: "ESP"))
            bought = try await store.purchase(PurchaseRequest(productID: "premium", accountID: "ana", bundleID: "app", deviceID: device))
            _ = try await store.purchase(PurchaseRequest(productID: "coins", accountID: "ana", bundleID: "app", quantity: 2, deviceID: device))
            try await store.finish(transactionID: bought.id, deviceID: device)
        }
        let reopened = try engine(try SQLiteStorage(url: databaseURL))
        let all = try await reopened.transactions()
        #expect(all.count == 2)
        #expect(all.first == bought)
        #expect(all.last?.quantity == 2)
        #expect(all.last?.amountCharged == Decimal(string: "1.98"))
        #expect(try await reopened.account("ana").storefront == "ESP")
        #expect(try await reopened.unfinishedTransactions(accountID: "ana", bundleID: "app", deviceID: device).map(\.productID) == ["coins"])
        let next = try await reopened.purchase(PurchaseRequest(productID: "coins", accountID: "ana", bundleID: "app"))
        #expect(next.id > all.last!.id)
    }

    @Test("Queries filter by account, app, product and original transaction")
    func queries() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try engine(try SQLiteStorage(url: databaseURL))
        let premium = try await store.purchase(PurchaseRequest(productID: "premium", accountID: "a", bundleID: "one"))
        _ = try await store.purchase(PurchaseRequest(productID: "coins", accountID: "a", bundleID: "two"))
        _ = try await store.purchase(PurchaseRequest(productID: "coins", accountID: "b", bundleID: "one"))
        let restored = try await store.restoreCompletedTransactions(accountID: "a", bundleID: "one", deviceID: nil)
        #expect(try await store.transactions(TransactionQuery(accountID: "a")).count == 3)
        #expect(try await store.transactions(TransactionQuery(bundleID: "one")).count == 3)
        #expect(try await store.transactions(TransactionQuery(productID: "coins")).count == 2)
        #expect(try await store.transactions(TransactionQuery(originalID: premium.id)).map(\.id) == [premium.id, restored[0].id])
        try await store.deleteTransaction(premium.id)
        #expect(try await store.transactions(TransactionQuery(accountID: "a")).count == 1)
    }

    @Test("Reclaiming freed space empties the writer's page cache, and the store goes on reading and writing")
    func releasingCaches() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let storage = try SQLiteStorage(url: databaseURL)
        let store = try engine(storage)
        for index in 0..<300 {
            _ = try await store.purchase(PurchaseRequest(productID: "coins", accountID: "account-\(index)", bundleID: "app"))
        }
        let filled = try await storage.writerPageCacheBytes()
        await storage.reclaimFreedSpace()
        let released = try await storage.writerPageCacheBytes()
        #expect(released < filled / 2, "the writer's cache held \(filled) bytes, and \(released) after the release")
        #expect(try await store.transactions().count == 300)
        _ = try await store.purchase(PurchaseRequest(productID: "premium", accountID: "account-0", bundleID: "app"))
        #expect(try await store.transactions().count == 301)
    }

    @Test("Reclaiming freed space after deleting a tenant gives its pages back: the database's files shrink")
    func reclaimingShrinksTheFiles() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let storage = try SQLiteStorage(url: databaseURL)
        let store = try engine(storage)
        for index in 0..<1_000 {
            _ = try await store.purchase(PurchaseRequest(productID: "coins", accountID: "account-\(index)", bundleID: "app"))
        }
        func bytesOnDisk() throws -> Int {
            try [databaseURL.path, databaseURL.path + "-wal"].reduce(0) { total, path in
                total + ((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
            }
        }
        // With its log copied in and emptied, the database holds the purchases.
        await storage.reclaimFreedSpace()
        let full = try bytesOnDisk()
        try await store.delete()
        await storage.reclaimFreedSpace()
        let reclaimed = try bytesOnDisk()
        #expect(reclaimed < full / 4, "\(full) bytes with the purchases, \(reclaimed) after deleting them")
        // The store goes on.
        _ = try await store.purchase(PurchaseRequest(productID: "premium", accountID: "account-0", bundleID: "app"))
        #expect(try await store.transactions().count == 1)
    }

    @Test("A commit that fails part-way changes nothing")
    func commitIsAtomic() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteStorage(url: databaseURL)
        let store = try engine(storage)
        // Make SQLite refuse the transaction row, after the account row of the same commit was written.
        let pool = try DatabasePool(path: databaseURL.path)
        try await pool.write { db in
            try db.execute(sql: """
                CREATE TRIGGER refuse BEFORE INSERT ON storeTransaction WHEN NEW.productID = 'premium'
                BEGIN SELECT RAISE(ABORT, 'refused by test'); END
                """)
        }
        await #expect(throws: StoreError.storageFailure) {
            try await store.purchase(PurchaseRequest(productID: "premium", accountID: "new-account", bundleID: "app"))
        }
        #expect(try await storage.read(tenant: "default") { try $0.account(id: "new-account") } == nil)
        #expect(try await store.transactions().isEmpty)
    }

    @Test(
        "Between its transactions the writer remembers a tenant's clock, settings and catalog versions and next identifier; a commit through another handle, or a transaction that fails, makes it read them again"
    )
    func writerMemoryFollowsOtherHandles() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two handles on one file: two writer connections, as a server and a `storekit` command have.
        let storage = try SQLiteStorage(url: databaseURL), other = try SQLiteStorage(url: databaseURL)
        struct Seen: Equatable {
            var clock: StoreClockState, settingsVersion: Int, catalogVersion: Int, allocated: UInt64
        }
        func look(through storage: SQLiteStorage) async throws -> Seen {
            try await storage.transaction(tenant: "t") { transaction in
                Seen(
                    clock: try transaction.clockState(), settingsVersion: try transaction.settingsVersion(),
                    catalogVersion: try transaction.catalogVersion(), allocated: try transaction.allocateTransactionID()
                )
            }
        }
        let first = TransactionRecord.firstID
        #expect(try await look(through: storage) == Seen(clock: StoreClockState(), settingsVersion: 0, catalogVersion: 0, allocated: first))
        #expect(try await look(through: storage) == Seen(clock: StoreClockState(), settingsVersion: 0, catalogVersion: 0, allocated: first + 1))

        let moved = StoreClockState(offset: 3_600, timeRate: .oneRenewalEveryTenSeconds)
        let allocatedByOther = try await other.transaction(tenant: "t") { transaction in
            try transaction.write([.saveClockState(moved), .saveSettings(nil), .saveCatalog(Data("{}".utf8))])
            return try transaction.allocateTransactionID()
        }
        #expect(allocatedByOther == first + 2)
        #expect(try await look(through: storage) == Seen(clock: moved, settingsVersion: 1, catalogVersion: 1, allocated: first + 3))

        // A transaction that fails takes back what it changed: its identifier is handed out again, its clock is gone.
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await storage.transaction(tenant: "t") { transaction in
                _ = try transaction.allocateTransactionID()
                try transaction.write(.saveClockState(StoreClockState(offset: 7_200)))
                _ = try transaction.clockState()
                throw Refused()
            }
        }
        #expect(try await look(through: storage) == Seen(clock: moved, settingsVersion: 1, catalogVersion: 1, allocated: first + 4))
        #expect(try await other.transaction(tenant: "t") { try $0.allocateTransactionID() } == first + 5)
        #expect(try await look(through: storage) == Seen(clock: moved, settingsVersion: 1, catalogVersion: 1, allocated: first + 6))
    }

    @Test("A group that counts identifiers for more tenants than the writer remembers stores every one of them")
    func writerMemoryKeepsUnstoredIdentifiers() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteStorage(url: databaseURL)
        let tenants = (0..<4_200).map { "tenant-\($0)" }
        // Thirty callers at once, so groups commit many tenants' allocations together: each is counted in memory and
        // stored just before its group commits, and the memory passes its limit during such a group.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for caller in 0..<30 {
                group.addTask {
                    for tenant in stride(from: caller, to: tenants.count, by: 30).map({ tenants[$0] }) {
                        _ = try await storage.transaction(tenant: tenant) { try $0.allocateTransactionID() }
                    }
                }
            }
            try await group.waitForAll()
        }
        let stored = try await DatabaseQueue(path: databaseURL.path).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tenant WHERE nextTransactionID = ?", arguments: [TransactionRecord.firstID + 1])
        }
        #expect(stored == tenants.count)
    }

    @Test(
        "The writer remembers when a tenant's next subscription event is due: its own saves and deletions keep that true, and a commit through another handle makes it read again"
    )
    func writerMemoryKnowsTheNextSubscriptionEvent() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteStorage(url: databaseURL), other = try SQLiteStorage(url: databaseURL)
        func subscription(_ id: UInt64, expires: TimeInterval) -> SubscriptionRecord {
            SubscriptionRecord(
                id: id, accountID: "a", bundleID: "app", groupID: "G1", productID: "monthly", latestTransactionID: id,
                originalPurchaseDate: start, periodStartDate: start, expiresDate: start.addingTimeInterval(expires), status: .active
            )
        }
        struct Seen: Equatable {
            var next: Date?, dueByTheHour: [UInt64]
        }
        func look(through storage: SQLiteStorage, writing changes: [StorageChange] = []) async throws -> Seen {
            try await storage.transaction(tenant: "t") { transaction in
                try transaction.write(changes)
                return Seen(
                    next: try transaction.nextSubscriptionEventDate(),
                    dueByTheHour: try transaction.subscriptionsDue(by: start.addingTimeInterval(3_600), limit: 10).map(\.id)
                )
            }
        }
        #expect(try await look(through: storage) == Seen(next: nil, dueByTheHour: []))
        #expect(try await look(through: storage, writing: [.saveSubscription(subscription(1, expires: 7_200))]) == Seen(
            next: start.addingTimeInterval(7_200), dueByTheHour: []
        ))
        // An earlier date is the earliest; the earliest moved later, or deleted, is read again.
        #expect(try await look(through: storage, writing: [.saveSubscription(subscription(2, expires: 1_800))]) == Seen(
            next: start.addingTimeInterval(1_800), dueByTheHour: [2]
        ))
        #expect(try await look(through: storage, writing: [.saveSubscription(subscription(2, expires: 9_000))]) == Seen(
            next: start.addingTimeInterval(7_200), dueByTheHour: []
        ))
        #expect(try await look(through: storage, writing: [.deleteSubscriptions([1])]) == Seen(next: start.addingTimeInterval(9_000), dueByTheHour: []))

        let third = subscription(3, expires: 600), fourth = subscription(4, expires: 60)
        try await other.transaction(tenant: "t") { try $0.write(.saveSubscription(third)) }
        #expect(try await look(through: storage) == Seen(next: start.addingTimeInterval(600), dueByTheHour: [3]))
        #expect(try await look(through: storage, writing: [.deleteAllTransactions]) == Seen(next: nil, dueByTheHour: []))
        try await other.transaction(tenant: "t") { try $0.write(.saveSubscription(fourth)) }
        #expect(try await look(through: storage) == Seen(next: start.addingTimeInterval(60), dueByTheHour: [4]))
    }

    @Test("The writer's page cache is SQLite's default between transactions, after a large one as after small ones")
    func writerCacheReturnsToDefault() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteStorage(url: databaseURL)
        let sqliteDefault = -2_000
        try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "small", storefront: "USA"))) }
        #expect(try await storage.writerCacheSize() == sqliteDefault)
        // A period end's catch-up makes thousands of changes in one transaction; its pages then fit the large cache.
        let count = try await storage.transaction(tenant: "t") { transaction in
            try transaction.write((0..<1_500).map { .saveAccount(Account(id: "account-\($0)", storefront: "USA")) })
            return try transaction.accounts().count
        }
        #expect(count == 1_501)
        #expect(try await storage.writerCacheSize() == sqliteDefault)
        #expect(try await storage.read(tenant: "t") { try $0.accounts().count } == 1_501)
    }

    @Test("When SQLite abandons a group of transactions committed together, every caller hears of it and nothing of theirs is kept")
    func abandonedGroupFailsEveryCaller() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteStorage(url: databaseURL)
        // RAISE(ROLLBACK) ends the whole SQLite transaction, as an I/O error or a full disk would: whatever else was
        // in it is gone, and its callers must not be told it committed.
        let pool = try DatabasePool(path: databaseURL.path)
        try await pool.write { db in
            try db.execute(sql: """
                CREATE TRIGGER abandon BEFORE INSERT ON account WHEN NEW.id = 'poison'
                BEGIN SELECT RAISE(ROLLBACK, 'abandoned by test'); END
                """)
        }
        let outcomes = await withTaskGroup(of: (String, Bool).self) { group in
            for index in 0..<60 {
                let id = index == 30 ? "poison" : "account-\(index)"
                group.addTask {
                    let committed: Void? = try? await storage.transaction(tenant: "t") { transaction in
                        try transaction.write(.saveAccount(Account(id: id, storefront: "USA")))
                    }
                    return (id, committed != nil)
                }
            }
            return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes["poison"] == false)
        let stored = Set(try await storage.read(tenant: "t") { try $0.accounts().map(\.id) })
        #expect(stored == Set(outcomes.filter(\.value).keys))
        // The storage goes on working after the abandoned group.
        try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "after", storefront: "USA"))) }
        #expect(try await storage.read(tenant: "t") { try $0.account(id: "after") } != nil)
    }

    @Test("The write-ahead log is copied into the database beside the writer, and the store reads the same afterwards")
    func backgroundCheckpoints() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteStorage(url: databaseURL)
        func databaseFileSize() throws -> Int {
            try FileManager.default.attributesOfItem(atPath: databaseURL.path)[.size] as? Int ?? 0
        }
        let before = try databaseFileSize()
        // Bodies of about 3 KB: 6,000 of them fill well over the 4,000 pages that start a checkpoint. The writer's
        // own automatic checkpoint is off, so only the background one can have moved them into the file.
        let padding = String(repeating: "x", count: 3_000)
        for batch in 0..<60 {
            try await storage.transaction(tenant: "t") { transaction in
                for index in 0..<100 {
                    try transaction.write(.saveAccount(Account(id: "account-\(batch)-\(index)-\(padding)", storefront: "USA")))
                }
            }
        }
        await storage.checkpointsFinished()
        #expect(try databaseFileSize() > before + 4_000 * 4_096, "the accounts' pages reached the database file")
        #expect(try await storage.read(tenant: "t") { try $0.accounts().count } == 6_000)
        let reopened = try SQLiteStorage(url: databaseURL)
        #expect(try await reopened.read(tenant: "t") { try $0.accounts().count } == 6_000)
    }

    @Test("Under commits that never pause, the write-ahead log still starts over: its file stays a few thousand pages")
    func writeAheadLogStaysBounded() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteStorage(url: databaseURL)
        // 12,000 commits of a few pages each, from 16 writers that submit the next the moment the last committed:
        // the background checkpoint never finds the log without frames it has not copied, so only the writer can
        // let the log start over. Without that, the log grew by every page written (over 60,000 pages here).
        let padding = String(repeating: "x", count: 3_000)
        try await withThrowingTaskGroup { group in
            for writer in 0..<16 {
                group.addTask {
                    for index in 0..<750 {
                        try await storage.transaction(tenant: "t") { transaction in
                            try transaction.write(.saveAccount(Account(id: "account-\(writer)-\(index)-\(padding)", storefront: "USA")))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let logSize = try FileManager.default.attributesOfItem(atPath: databaseURL.path + "-wal")[.size] as? Int ?? 0
        // The writer lets the log start over past 8,000 pages, once no background checkpoint is running: the log grows
        // by what is committed while one finishes, which a slow disk makes more. Unbounded, it reached 67,000 pages.
        #expect(logSize < 16_000 * 4_096, "the write-ahead log reached \(logSize / 4_096) pages")
        #expect(try await storage.read(tenant: "t") { try $0.accounts().count } == 12_000)
    }

    @Test("A store migrated before notifications were indexed by original transaction gets the index, filled from their bodies")
    func notificationsByOriginalAreBackfilled() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = (0..<3).map { index in
            NotificationRecord(
                type: .didRenew, date: start.addingTimeInterval(Double(index)), accountID: "a", bundleID: "app",
                transactionID: 2_000_000_000_000_010 + UInt64(index), originalTransactionID: 2_000_000_000_000_001
            )
        }
        try await SQLiteStorage(url: databaseURL).transaction(tenant: "t") { try $0.write(written.map(StorageChange.saveNotification)) }
        // Back to the schema as "v8" left it: no column, no index, no record of "v9".
        let queue = try DatabaseQueue(path: databaseURL.path)
        try await queue.write { db in
            try db.execute(sql: "DROP INDEX notificationByOriginal")
            try db.execute(sql: "ALTER TABLE notification DROP COLUMN originalTransactionID")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v9:%'")
        }
        try queue.close()
        let reopened = try SQLiteStorage(url: databaseURL)
        let pending = try await reopened.read(tenant: "t") { try $0.pendingNotifications(originalTransactionID: 2_000_000_000_000_001) }
        #expect(pending.map(\.id) == written.map(\.id))
    }

    @Test("A store migrated before transactions were indexed by idempotency key gets the index, filled from their bodies")
    func idempotencyKeysAreBackfilled() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let records = (0..<3).map { index in
            var record = TransactionRecord(
                id: 2_000_000_000_000_001 + UInt64(index), originalID: 2_000_000_000_000_001 + UInt64(index), accountID: "a",
                bundleID: "app", productID: "coins", productType: .consumable, quantity: 1, purchaseDate: start,
                originalPurchaseDate: start, storefront: Storefront.named("USA")!, unitPrice: 1, amountCharged: 1,
                origin: .purchase, state: .purchased
            )
            record.idempotencyKey = index == 1 ? nil : "order-\(index)"
            return record
        }
        try await SQLiteStorage(url: databaseURL).transaction(tenant: "t") { try $0.write(records.map(StorageChange.saveTransaction)) }
        // Back to the schema as "v9" left it: no column, no index, no record of "v10".
        let queue = try DatabaseQueue(path: databaseURL.path)
        try await queue.write { db in
            try db.execute(sql: "DROP INDEX storeTransactionByIdempotencyKey")
            try db.execute(sql: "ALTER TABLE storeTransaction DROP COLUMN idempotencyKey")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v10:%'")
        }
        try queue.close()
        let reopened = try SQLiteStorage(url: databaseURL)
        let found = try await reopened.read(tenant: "t") { reader in
            try ["order-0", "order-1", "order-2"].map { key in
                try reader.transactions(matching: TransactionQuery(accountID: "a", bundleID: "app", idempotencyKey: key)).map(\.id)
            }
        }
        #expect(found == [[records[0].id], [], [records[2].id]])
    }

    @Test("A file that is not a database gives an error naming the path")
    func badFile() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("not a database, just text that is long enough to look like a header ....".utf8).write(to: databaseURL)
        #expect {
            _ = try SQLiteStorage(url: databaseURL)
        } throws: { error in
            String(describing: error).contains(databaseURL.path)
        }
    }
}

/// The queries a purchase makes stay cheap however big the store grows: an index answers each one, filter and
/// order, instead of a walk over every row of the tenant (which had made each purchase cost time in proportion to
/// the store's size).
@Suite("SQLite query plans")
struct SQLiteQueryPlanTests {
    @Test(
        "Transactions by app, by account and by original transaction are read through an index that also gives their order",
        arguments: [
            TransactionQuery(accountID: "a", bundleID: "app"),
            TransactionQuery(accountID: "a"),
            TransactionQuery(originalID: 7),
            TransactionQuery(accountID: "a", bundleID: "app", originalID: 7),
        ]
    )
    func transactionQueriesUseAnIndex(query: TransactionQuery) throws {
        let (sql, arguments) = SQLiteQueries.transactions(matching: query, tenant: "t")
        let plan = try Self.plan(sql, arguments)
        #expect(plan.contains("USING INDEX storeTransactionBy"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
    }

    @Test("A purchase repeating an idempotency key finds the first through the index of keys, not among the account's purchases")
    func idempotencyKeyQueryUsesItsIndex() throws {
        let (sql, arguments) = SQLiteQueries.transactions(
            matching: TransactionQuery(accountID: "a", bundleID: "app", idempotencyKey: "order-17"), tenant: "t"
        )
        let plan = try Self.plan(sql, arguments)
        #expect(plan.contains("USING INDEX storeTransactionByIdempotencyKey"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
    }

    @Test("An account's subscriptions, in one app or all, are read through an index", arguments: ["app", nil])
    func subscriptionQueriesUseAnIndex(bundleID: String?) throws {
        let (sql, arguments) = SQLiteQueries.subscriptions(accountID: "a", bundleID: bundleID, tenant: "t")
        let plan = try Self.plan(sql, arguments)
        #expect(plan.contains("USING INDEX subscriptionBy"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
    }

    @Test("The due subscriptions are read a batch at a time through an index that also gives their order")
    func dueSubscriptionsUseAnIndex() throws {
        let (sql, arguments) = SQLiteQueries.subscriptionsDue(by: Date(timeIntervalSince1970: 100), limit: 512, tenant: "t")
        let plan = try Self.plan(sql, arguments)
        #expect(plan.contains("USING INDEX subscriptionByDueDate"), "\(plan)")
        // A sort would read every subscription due at the same date for each batch: 100,000 sharing a period end
        // made the catch-up quadratic.
        #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
    }

    @Test(
        "The notification outbox is read in date order through an index, with or without a date range",
        arguments: [
            NotificationQuery(), NotificationQuery(startDate: Date(timeIntervalSince1970: 100), limit: 50),
            NotificationQuery(bundleID: "app", startDate: Date(timeIntervalSince1970: 100), endDate: Date(timeIntervalSince1970: 200)),
        ]
    )
    func notificationQueriesUseAnIndex(query: NotificationQuery) throws {
        let (sql, arguments) = SQLiteQueries.notifications(matching: query, tenant: "t")
        let plan = try Self.plan(sql, arguments)
        #expect(plan.contains("USING INDEX notificationByDate"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
    }

    @Test("An API key is found by its identifier in one search of the key table's primary key, and a tenant's keys through an index that gives their order")
    func apiKeyQueriesUseAnIndex() throws {
        let (sql, arguments) = SQLiteQueries.apiKey(id: "ABCDEF1234")
        let plan = try Self.plan(sql, arguments)
        #expect(plan.contains("SEARCH apiKey USING INDEX sqlite_autoindex_apiKey_1 (keyID=?)"), "\(plan)")
        let (listing, listingArguments) = SQLiteQueries.apiKeys(tenant: "t")
        let listingPlan = try Self.plan(listing, listingArguments)
        #expect(listingPlan.contains("USING INDEX apiKeyByTenant"), "\(listingPlan)")
        #expect(!listingPlan.contains("TEMP B-TREE"), "\(listingPlan)")
    }

    /// SQLite's plan for `sql` on a freshly migrated store, which has no statistics, as no store of ours has.
    static func plan(_ sql: String, _ arguments: StatementArguments) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-plan-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.sqlite")
        _ = try SQLiteStorage(url: url)
        let database = try DatabaseQueue(path: url.path)
        return try database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                .map { $0["detail"] as String? ?? "" }.joined(separator: "; ")
        }
    }
}
