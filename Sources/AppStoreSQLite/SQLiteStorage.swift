public import AppStoreEngine
public import Foundation
package import GRDB
import GRDBSQLite
import JSONCoding
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The engine's `Storage` in one SQLite file: the embedded default of `storekit`.
///
/// The database runs in WAL mode so a server and the `storekit` command can use the same file at once;
/// every ``transaction(tenant:_:)`` runs inside an immediate transaction (those asked for at the same moment share one,
/// each in its own savepoint), so a crash leaves all of a change or none.
/// The schema evolves through append-only named migrations.
///
/// Durability: the writer runs with `synchronous = NORMAL`, GRDB's setting for WAL databases. A commit is written to
/// the WAL before the transaction returns, so whatever was acknowledged survives the process being killed (the kill -9
/// tests check it); the WAL is synced to disk at checkpoints only, so a power loss or an operating-system crash may
/// take back the transactions committed since the last checkpoint, whole — never part of one.
public final class SQLiteStorage: Storage {
    private let pool: DatabasePool
    /// A read-only connection of its own for the synchronous reads a store makes while it opens
    /// (``clockState(tenant:)``). Those run on whatever thread opens the store, often one of Swift concurrency's few:
    /// waiting there for one of the pool's readers, which are released only once an `async` read resumes on such a
    /// thread, deadlocks once every thread waits so.
    private let openingReader: DatabaseQueue
    private let groupCommit: GroupCommit
    /// What the writer connection remembers of each tenant between its transactions.
    private let memory = WriterMemory()
    /// Sizes the writer's page cache to each transaction.
    private let writerCache = WriterCache()

    /// Opens (and creates or migrates) the store at `url`.
    ///
    /// - Throws: `StoreError.storageFailure` when the file cannot be opened or is not a store database.
    public init(url: URL) throws(StoreError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // Each member of a group commit runs in a savepoint, and SQLite keeps the pages a savepoint changes, as
            // they were before it, in a journal of its own. Past 64 KB that journal went to a temporary file: two
            // dozen writes, 50 KB, per purchase, more than its write-ahead-log frames. In memory it is a copy. Sorts'
            // temporary tables live there too: they hold a few rows of one account at a time.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // Only takes effect on a database being created, before it goes to WAL mode (which this precedes): its free
            // pages (a deleted tenant's) can then be given back to the file system (`reclaimFreedSpace()`) instead of
            // only reused.
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL") }
        }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            pool = try Self.withSetupLock(beside: url) {
                let pool = try DatabasePool(path: url.path, configuration: configuration)
                try Self.migrator.migrate(pool)
                return pool
            }
            var readOnly = Configuration()
            readOnly.readonly = true
            readOnly.busyMode = .timeout(10)
            openingReader = try DatabaseQueue(path: url.path, configuration: readOnly)
            let checkpointer = try BackgroundCheckpointer(path: url.path)
            try pool.writeWithoutTransaction { db in
                try checkpointer.takeOver(from: db)
                try Self.configureWriterCache(db)
            }
            let memory = memory, writerCache = writerCache
            groupCommit = GroupCommit(
                writer: pool, checkpointer: checkpointer,
                transactionBegan: { db in memory.transactionBegan(db) },
                beforeCommit: { db in try memory.storeIdentifiers(in: db) },
                transactionEnded: { db, committed in
                    memory.transactionEnded(db, committed: committed)
                    writerCache.transactionEnded(db)
                }
            )
        } catch {
            throw .storageFailure(
                "Cannot open the store database at \(url.path): \(error). Check that the directory is writable and the file is an OpenStoreKit store, or use another data directory."
            )
        }
    }

    /// Lets a transaction on `db` change 32 MB of pages before they are written to the WAL early (and again at its
    /// commit): SQLite's default, what its 2 MB page cache holds, is far less than a period end renewing 100,000
    /// subscribers changes. The cache itself keeps SQLite's size until a transaction turns out large (``WriterCache``).
    package static func configureWriterCache(_ db: Database) throws {
        try db.execute(sql: "PRAGMA cache_spill = -\(WriterCache.largeKilobytes)")
    }

    /// Runs `body` while holding an exclusive lock on `<database>-setup.lock`.
    ///
    /// Two processes opening a new database at the same moment would otherwise collide twice: switching a new
    /// file to WAL can fail with "database is locked" without waiting for the busy timeout, and GRDB's migrator
    /// reads which migrations are applied before it takes SQLite's write lock, so both could apply the first
    /// one. The lock makes processes set the database up one at a time; the later ones find nothing left to do.
    /// The kernel releases an `flock` when its process dies, so a crash never leaves the lock behind.
    private static func withSetupLock<Result>(beside databaseURL: URL, _ body: () throws -> Result) throws -> Result {
        let descriptor = open(databaseURL.path + "-setup.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer {
            // The C library's, not the storage's `close()`.
            #if canImport(Glibc)
            Glibc.close(descriptor)
            #elseif canImport(Darwin)
            Darwin.close(descriptor)
            #endif
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// The schema's history. Never edit a migration that has shipped; append a new one.
    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: tenants, accounts, transactions, finished marks") { db in
            try db.create(table: "tenant") { table in
                table.primaryKey("id", .text)
                table.column("nextTransactionID", .integer).notNull()
            }
            try db.create(table: "account") { table in
                table.column("tenant", .text).notNull()
                table.column("id", .text).notNull()
                table.column("body", .jsonText).notNull()
                table.primaryKey(["tenant", "id"])
            }
            try db.create(table: "storeTransaction") { table in
                table.column("tenant", .text).notNull()
                table.column("id", .integer).notNull()
                table.column("originalID", .integer).notNull()
                table.column("accountID", .text).notNull()
                table.column("bundleID", .text).notNull()
                table.column("productID", .text).notNull()
                table.column("body", .jsonText).notNull()
                table.primaryKey(["tenant", "id"])
            }
            try db.create(index: "storeTransactionByAccount", on: "storeTransaction", columns: ["tenant", "accountID", "bundleID"])
            try db.create(index: "storeTransactionByOriginal", on: "storeTransaction", columns: ["tenant", "originalID"])
            try db.create(table: "finishedTransaction") { table in
                table.column("tenant", .text).notNull()
                table.column("deviceID", .text).notNull()
                table.column("transactionID", .integer).notNull()
                table.primaryKey(["tenant", "deviceID", "transactionID"])
            }
        }
        migrator.registerMigration("v2: purchase intents") { db in
            try db.create(table: "purchaseIntent") { table in
                table.column("tenant", .text).notNull()
                table.column("id", .text).notNull()
                table.column("accountID", .text).notNull()
                table.column("bundleID", .text).notNull()
                table.column("date", .double).notNull()
                table.column("body", .jsonText).notNull()
                table.primaryKey(["tenant", "id"])
            }
            try db.create(index: "purchaseIntentByApp", on: "purchaseIntent", columns: ["tenant", "accountID", "bundleID"])
        }
        migrator.registerMigration("v3: subscriptions and their next due date") { db in
            try db.create(table: "subscription") { table in
                table.column("tenant", .text).notNull()
                table.column("id", .integer).notNull()
                table.column("accountID", .text).notNull()
                table.column("bundleID", .text).notNull()
                // Seconds since 1970 of the next renewal or expiry; NULL when nothing is due.
                table.column("nextEventDate", .double)
                table.column("body", .jsonText).notNull()
                table.primaryKey(["tenant", "id"])
            }
            // Ending in `id`, the indexes also give the order the queries ask for, so SQLite never prefers
            // walking the whole tenant in primary-key order.
            try db.create(index: "subscriptionByApp", on: "subscription", columns: ["tenant", "accountID", "bundleID", "id"])
            try db.create(index: "subscriptionByAccount", on: "subscription", columns: ["tenant", "accountID", "id"])
            try db.create(index: "subscriptionByDueDate", on: "subscription", columns: ["tenant", "nextEventDate"])
        }
        migrator.registerMigration("v4: transaction indexes that also give identifier order") { db in
            // With only (tenant, accountID, bundleID), SQLite answered `… ORDER BY id` by walking every transaction of
            // the tenant in primary-key order: each purchase cost time in proportion to the store's size.
            try db.drop(index: "storeTransactionByAccount")
            try db.drop(index: "storeTransactionByOriginal")
            try db.create(index: "storeTransactionByApp", on: "storeTransaction", columns: ["tenant", "accountID", "bundleID", "id"])
            try db.create(index: "storeTransactionByAccount", on: "storeTransaction", columns: ["tenant", "accountID", "id"])
            try db.create(index: "storeTransactionByOriginal", on: "storeTransaction", columns: ["tenant", "originalID", "id"])
        }
        migrator.registerMigration("v5: the notification outbox") { db in
            try db.create(table: "notification") { table in
                // The rowid: the order notifications were written in, across processes.
                table.autoIncrementedPrimaryKey("sequence")
                table.column("tenant", .text).notNull()
                table.column("id", .text).notNull()
                table.column("bundleID", .text).notNull()
                table.column("transactionID", .integer).notNull()
                table.column("date", .double).notNull()
                table.column("body", .jsonText).notNull()
            }
            try db.create(index: "notificationByDate", on: "notification", columns: ["tenant", "date", "sequence"])
            try db.create(index: "notificationByTransaction", on: "notification", columns: ["tenant", "transactionID"])
        }
        migrator.registerMigration("v6: per-tenant store clock") { db in
            try db.create(table: "storeClock") { table in
                table.primaryKey("tenant", .text)
                // Seconds the tenant's clock runs ahead of wall time; only ever grows.
                table.column("offset", .double).notNull()
                // The raw SKTestSession.TimeRate that overrides the configuration's; NULL for none.
                table.column("timeRate", .integer)
            }
        }
        migrator.registerMigration("v7: notification delivery") { db in
            try db.alter(table: "notification") { table in
                // Seconds since 1970 of the next attempt to send it; NULL once delivered, given up or never to be sent.
                table.add(column: "nextAttemptDate", .double)
            }
            try db.execute(sql: "UPDATE notification SET nextAttemptDate = date")
            try db.create(index: "notificationByNextAttempt", on: "notification", columns: ["tenant", "nextAttemptDate", "sequence"])
            try db.create(index: "notificationByID", on: "notification", columns: ["tenant", "id"], unique: true)
        }
        migrator.registerMigration("v8: due-date index that also gives identifier order") { db in
            // With only (tenant, nextEventDate), SQLite read every subscription due at the same date and sorted them
            // by id for each batch of the catch-up: a period end shared by 100,000 subscribers cost 200 such sorts.
            try db.drop(index: "subscriptionByDueDate")
            try db.create(index: "subscriptionByDueDate", on: "subscription", columns: ["tenant", "nextEventDate", "id"])
        }
        migrator.registerMigration("v9: notifications by original transaction") { db in
            // A notification is sent only after the earlier ones of its original transaction: the senders of several
            // processes look those up in one indexed read.
            try db.alter(table: "notification") { table in
                table.add(column: "originalTransactionID", .integer)
            }
            try db.execute(sql: "UPDATE notification SET originalTransactionID = json_extract(body, '$.originalTransactionID')")
            try db.create(
                index: "notificationByOriginal", on: "notification", columns: ["tenant", "originalTransactionID", "sequence"]
            )
        }
        migrator.registerMigration("v10: transactions by idempotency key") { db in
            // A purchase that repeats a key finds the first one in one indexed read, instead of reading every
            // transaction of the account in the app. Most transactions have no key: the index leaves them out.
            try db.alter(table: "storeTransaction") { table in
                table.add(column: "idempotencyKey", .text)
            }
            try db.execute(sql: "UPDATE storeTransaction SET idempotencyKey = json_extract(body, '$.idempotencyKey')")
            try db.execute(sql: """
                CREATE INDEX storeTransactionByIdempotencyKey ON storeTransaction (tenant, accountID, bundleID, idempotencyKey, id)
                WHERE idempotencyKey IS NOT NULL
                """)
        }
        migrator.registerMigration("v11: App Store Server API keys") { db in
            // Keyed by the key's identifier alone: identifiers are unique across the storage, and a token's kid finds
            // its key, and the tenant it signs for, in one read of the primary key.
            try db.create(table: "apiKey") { table in
                table.primaryKey("keyID", .text)
                table.column("tenant", .text).notNull()
                table.column("issuerID", .text).notNull()
                table.column("publicKeyPEM", .text).notNull()
                // Seconds since 1970.
                table.column("created", .double).notNull()
                table.column("revoked", .boolean).notNull()
            }
            try db.create(index: "apiKeyByTenant", on: "apiKey", columns: ["tenant", "created", "keyID"])
        }
        migrator.registerMigration("v12: tenant settings") { db in
            // One row per tenant whose settings were changed; every operation reads its version by the primary key.
            try db.create(table: "tenantSettings") { table in
                table.primaryKey("tenant", .text)
                table.column("version", .integer).notNull()
                // The StoreSettings as JSON; NULL for the configuration's (a reset tenant).
                table.column("body", .jsonText)
            }
        }
        migrator.registerMigration("v13: notification destinations") { db in
            // One row per tenant given notification URLs; each notification sender reads it once per pass.
            try db.create(table: "notificationDestinations") { table in
                table.primaryKey("tenant", .text)
                table.column("body", .jsonText).notNull()
            }
        }
        migrator.registerMigration("v14: tenant catalogs") { db in
            // One row per tenant given a catalog of its own; every operation reads its version by the primary key,
            // the document only when the version moved. Catalogs kept as tenants/<name>.storekit files are imported
            // by `storekit serve`, not here: a migration does not know the data directory.
            try db.create(table: "tenantCatalog") { table in
                table.primaryKey("tenant", .text)
                table.column("version", .integer).notNull()
                // The .storekit file's JSON.
                table.column("document", .jsonText).notNull()
            }
        }
        migrator.registerMigration("v15: retention messaging") { db in
            // One row per app of a tenant given Retention Messaging content; each Retention Messaging request reads or
            // writes it by the primary key.
            try db.create(table: "retentionMessaging") { table in
                table.column("tenant", .text).notNull()
                table.column("bundleID", .text).notNull()
                table.column("body", .jsonText).notNull()
                table.primaryKey(["tenant", "bundleID"])
            }
        }
        migrator.registerMigration("v16: mass extensions") { db in
            // One row per mass renewal-date extension request, found by its product and request identifier.
            try db.create(table: "massExtension") { table in
                table.column("tenant", .text).notNull()
                table.column("productID", .text).notNull()
                table.column("requestIdentifier", .text).notNull()
                table.column("body", .jsonText).notNull()
                table.primaryKey(["tenant", "productID", "requestIdentifier"])
            }
        }
        migrator.registerMigration("v17: external purchases") { db in
            // One row per external purchase token the store issued, with the date its next notification is due.
            try db.create(table: "externalPurchaseToken") { table in
                table.column("tenant", .text).notNull()
                table.column("id", .text).notNull()
                table.column("accountID", .text).notNull()
                table.column("bundleID", .text).notNull()
                table.column("nextEventDate", .double)
                table.column("body", .jsonText).notNull()
                table.primaryKey(["tenant", "id"])
            }
            try db.create(index: "externalPurchaseTokenByApp", on: "externalPurchaseToken", columns: ["tenant", "accountID", "bundleID"])
            try db.create(index: "externalPurchaseTokenByDueDate", on: "externalPurchaseToken", columns: ["tenant", "nextEventDate", "id"])
            // One row per accepted External Purchase Server API report, found by its request identifier.
            try db.create(table: "externalPurchaseReport") { table in
                table.column("tenant", .text).notNull()
                table.column("requestIdentifier", .text).notNull()
                table.column("body", .jsonText).notNull()
                table.primaryKey(["tenant", "requestIdentifier"])
            }
        }
        return migrator
    }

    /// Runs `body` on a snapshot of the database; writers are not blocked meanwhile (WAL).
    public func read<Result: Sendable>(tenant: String, _ body: @Sendable (any StorageReader) throws -> Result) async throws -> Result {
        try await pool.read { db in try body(SQLiteTransaction(db: db, tenant: tenant)) }
    }

    /// The API key with the identifier, whichever tenant holds it: one read of the key table's primary key.
    public func apiKey(id: String) async throws -> StoredAPIKey? {
        try await pool.read { db in try SQLiteTransaction.apiKey(id: id, in: db) }
    }

    /// The tenants with a stored catalog, sorted by name.
    public func tenantsWithCatalogs() async throws -> [String] {
        try await pool.read { db in try String.fetchAll(db, sql: "SELECT tenant FROM tenantCatalog ORDER BY tenant") }
    }

    /// Every tenant with a row in any of the storage's tables, sorted by name.
    public func tenantsWithState() async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(db, sql: """
                SELECT id FROM tenant
                UNION SELECT tenant FROM account UNION SELECT tenant FROM storeClock
                UNION SELECT tenant FROM tenantSettings UNION SELECT tenant FROM notificationDestinations
                UNION SELECT tenant FROM apiKey UNION SELECT tenant FROM tenantCatalog UNION SELECT tenant FROM retentionMessaging
                ORDER BY 1
                """)
        }
    }

    /// The tenant's clock state, read synchronously: what a store being opened needs before its first operation.
    ///
    /// - Throws: `StoreError.storageFailure` when the database cannot be read.
    public func clockState(tenant: String) throws(StoreError) -> StoreClockState {
        do {
            return try openingReader.read { db in try SQLiteTransaction(db: db, tenant: tenant).clockState() }
        } catch {
            throw .storageFailure("Cannot read the clock of store \"\(tenant)\": \(error). Check that the data directory is readable.")
        }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction: it holds the database's write lock from its first
    /// statement, so no other connection, in this process or another, writes between its reads and its writes.
    /// Another writer waits up to the busy timeout (10 seconds) for the lock.
    ///
    /// Transactions this storage is asked for at the same time commit together (a group commit), each in its own
    /// savepoint: when `body` throws, only what it wrote is rolled back, and the call returns once its writes are
    /// committed.
    public func transaction<Result: Sendable>(
        tenant: String, _ body: @escaping @Sendable (any StorageTransaction) throws -> Result
    ) async throws -> Result {
        let memory = memory, writerCache = writerCache
        return try await withCheckedThrowingContinuation { continuation in
            groupCommit.submit(GroupCommit.Transaction { db in
                memory.memberBegan()
                do {
                    let result = try body(SQLiteTransaction(db: db, tenant: tenant, memory: memory, writerCache: writerCache))
                    return { continuation.resume(returning: result) }
                } catch {
                    // Rolled back to its savepoint: so is what it changed in the writer's memory.
                    memory.memberFailed()
                    throw error
                }
            } fail: { error in
                continuation.resume(throwing: error)
            })
        }
    }
}

extension SQLiteStorage {
    /// Empties the connections' page caches (the writer keeps up to 32 MB) and closes the idle readers, then gives the
    /// database file's free pages back to the file system, a few thousand at a time between other writes, and empties
    /// the write-ahead log: what a server does after a burst of tenant deletions, whose pages the caches and the file
    /// still held. A database made before OpenStoreKit kept its free pages this way (`auto_vacuum` is set when a
    /// database is created) keeps its size, and reuses them.
    public func reclaimFreedSpace() async {
        pool.releaseMemoryEventually()
        while await onWriter({ db in
            guard try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0 > 0,
                  try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") == 2 else { return false }
            try db.execute(sql: "PRAGMA incremental_vacuum(\(Self.pagesReclaimedAtOnce))")
            return true
        }) == true {}
        // The log keeps every page the steps moved until a checkpoint copies them; then it can start over, empty. A
        // background checkpoint running meanwhile makes this one give up at once (busy): wait for it, a few times.
        for _ in 0..<5 {
            await groupCommit.checkpointsFinished()
            let busy = await onWriter { db in try Int.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") ?? 1 }
            guard busy != 0 else { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// How many free pages one step of ``reclaimFreedSpace()`` gives back (16 MB of 4 KB pages): the writer does
    /// nothing else meanwhile.
    private static let pagesReclaimedAtOnce = 4_096

    /// Runs `work` on the writer connection, after what its queue holds (the release of its cache, group commits);
    /// `nil` when it threw: reclaiming space is done again after the next deletions.
    private func onWriter<Result: Sendable>(_ work: @escaping @Sendable (Database) throws -> Result) async -> Result? {
        await withCheckedContinuation { (done: CheckedContinuation<Result?, Never>) in
            pool.asyncWriteWithoutTransaction { db in done.resume(returning: try? work(db)) }
        }
    }
}

extension SQLiteStorage {
    /// How many bytes the writer connection's page cache holds now: for tests.
    package func writerPageCacheBytes() async throws -> Int {
        try await pool.writeWithoutTransaction { db in
            var used: Int32 = 0, highest: Int32 = 0
            sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_USED, &used, &highest, 0)
            return Int(used)
        }
    }

    /// The writer connection's `cache_size` setting (negative: in KB): for tests.
    package func writerCacheSize() async throws -> Int {
        try await pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0 }
    }

    /// Returns once the background checkpoint that the commits so far started, if any, has ended: for tests.
    package func checkpointsFinished() async {
        await groupCommit.checkpointsFinished()
    }
}

/// Reads and writes of one tenant on one GRDB connection, inside a transaction or a snapshot read.
/// Used only inside the closure GRDB runs on its connection's queue.
private struct SQLiteTransaction: StorageTransaction {
    let db: Database
    let tenant: String
    /// What the writer remembers between transactions (``WriterMemory``); `nil` in a snapshot read.
    var memory: WriterMemory? = nil
    /// The writer's page cache, told of each change (``WriterCache``); `nil` in a snapshot read.
    var writerCache: WriterCache? = nil
    /// A snapshot read's tenant header, once read (``tenantHeader()``).
    private let readHeader = ReadHeader()

    private final class ReadHeader {
        var value: WriterMemory.Header?
    }

    /// Every operation reads the tenant's clock and the versions of its settings and catalog: the first of those reads
    /// fetches all three in one statement, and the others answer from it (a statement is most of what a read costs): in
    /// a snapshot read for the rest of it, on the writer until a write that may change them or another connection's
    /// commit (``WriterMemory``).
    private func tenantHeader() throws -> WriterMemory.Header {
        if let memory {
            if let value = memory.tenant(tenant)?.header { return value }
        } else if let value = readHeader.value {
            return value
        }
        let row = try Row.fetchOne(
            try db.cachedStatement(
                sql: """
                    SELECT (SELECT offset FROM storeClock WHERE tenant = ?1), (SELECT timeRate FROM storeClock WHERE tenant = ?1),
                    (SELECT version FROM tenantSettings WHERE tenant = ?1), (SELECT version FROM tenantCatalog WHERE tenant = ?1)
                    """
            ),
            arguments: [tenant]
        )
        // By position: a lookup by name compares the row's column names.
        let offset: Double? = row?[0], rate: Int? = row?[1], settingsVersion: Int? = row?[2], catalogVersion: Int? = row?[3]
        let clock = offset.map { StoreClockState(offset: $0, timeRate: rate.flatMap(TimeRate.init(rawValue:))) } ?? StoreClockState()
        let value = WriterMemory.Header(clock: clock, settingsVersion: settingsVersion ?? 0, catalogVersion: catalogVersion ?? 0)
        if let memory {
            memory.update(tenant) { $0.header = value }
        } else {
            readHeader.value = value
        }
        return value
    }

    func account(id: String) throws -> Account? {
        try String.fetchOne(try db.cachedStatement(sql: "SELECT body FROM account WHERE tenant = ? AND id = ?"), arguments: [tenant, id])
            .map { try Self.decode(Account.self, from: $0) }
    }

    func accounts() throws -> [Account] {
        try String.fetchAll(try db.cachedStatement(sql: "SELECT body FROM account WHERE tenant = ? ORDER BY id"), arguments: [tenant])
            .map { try Self.decode(Account.self, from: $0) }
    }

    /// One statement for all of them: the identifiers go in as one JSON array, so the statement is compiled once
    /// whatever their number.
    func accounts(ids: [String]) throws -> [String: Account] {
        guard !ids.isEmpty else { return [:] }
        let rows = try Row.fetchCursor(
            try db.cachedStatement(sql: "SELECT id, body FROM account WHERE tenant = ? AND id IN (SELECT value FROM json_each(?))"),
            arguments: [tenant, try JSONWriter().encodeText(ids)]
        )
        var found: [String: Account] = [:]
        while let row = try rows.next() {
            let body: String = row[1]
            found[row[0]] = try Self.decode(Account.self, from: body)
        }
        return found
    }

    func transaction(id: UInt64) throws -> TransactionRecord? {
        try String.fetchOne(try db.cachedStatement(sql: "SELECT body FROM storeTransaction WHERE tenant = ? AND id = ?"), arguments: [tenant, id])
            .map { try Self.decode(TransactionRecord.self, from: $0) }
    }

    func transactions(matching query: TransactionQuery) throws -> [TransactionRecord] {
        let (sql, arguments) = SQLiteQueries.transactions(matching: query, tenant: tenant)
        return try String.fetchAll(try db.cachedStatement(sql: sql), arguments: arguments).map { try Self.decode(TransactionRecord.self, from: $0) }
    }

    func finishedTransactionIDs(deviceID: UUID) throws -> Set<UInt64> {
        Set(try UInt64.fetchAll(
            try db.cachedStatement(sql: "SELECT transactionID FROM finishedTransaction WHERE tenant = ? AND deviceID = ?"),
            arguments: [tenant, deviceID.storedText]
        ))
    }

    func purchaseIntents(accountID: String, bundleID: String) throws -> [PurchaseIntentRecord] {
        try String.fetchAll(
            try db.cachedStatement(sql: "SELECT body FROM purchaseIntent WHERE tenant = ? AND accountID = ? AND bundleID = ? ORDER BY date, id"),
            arguments: [tenant, accountID, bundleID]
        ).map { try Self.decode(PurchaseIntentRecord.self, from: $0) }
    }

    func subscription(id: UInt64) throws -> SubscriptionRecord? {
        try String.fetchOne(try db.cachedStatement(sql: "SELECT body FROM subscription WHERE tenant = ? AND id = ?"), arguments: [tenant, id])
            .map { try Self.decode(SubscriptionRecord.self, from: $0) }
    }

    func subscriptions(accountID: String, bundleID: String?) throws -> [SubscriptionRecord] {
        let (sql, arguments) = SQLiteQueries.subscriptions(accountID: accountID, bundleID: bundleID, tenant: tenant)
        return try String.fetchAll(try db.cachedStatement(sql: sql), arguments: arguments).map { try Self.decode(SubscriptionRecord.self, from: $0) }
    }

    /// On the writer, none while the earliest next event date it remembers is later (``WriterMemory``).
    func subscriptionsDue(by date: Date, limit: Int) throws -> [SubscriptionRecord] {
        if let next = memory?.tenant(tenant)?.nextSubscriptionEvent, !next.isDue(by: date) { return [] }
        let (sql, arguments) = SQLiteQueries.subscriptionsDue(by: date, limit: limit, tenant: tenant)
        return try String.fetchAll(try db.cachedStatement(sql: sql), arguments: arguments).map { try Self.decode(SubscriptionRecord.self, from: $0) }
    }

    func nextSubscriptionEventDate() throws -> Date? {
        if let next = memory?.tenant(tenant)?.nextSubscriptionEvent {
            guard case .at(let seconds) = next else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        let seconds = try Double.fetchOne(
            try db.cachedStatement(sql: "SELECT MIN(nextEventDate) FROM subscription WHERE tenant = ?"), arguments: [tenant]
        )
        memory?.update(tenant) { $0.nextSubscriptionEvent = seconds.map { .at(secondsSince1970: $0) } ?? WriterMemory.NextSubscriptionEvent.noEvent }
        return seconds.map(Date.init(timeIntervalSince1970:))
    }

    func notifications(matching query: NotificationQuery) throws -> [NotificationRecord] {
        let (sql, arguments) = SQLiteQueries.notifications(matching: query, tenant: tenant)
        return try String.fetchAll(try db.cachedStatement(sql: sql), arguments: arguments).map { try Self.decode(NotificationRecord.self, from: $0) }
    }

    func notification(id: UUID) throws -> NotificationRecord? {
        try String.fetchOne(
            try db.cachedStatement(sql: "SELECT body FROM notification WHERE tenant = ? AND id = ?"), arguments: [tenant, id.storedText]
        ).map { try Self.decode(NotificationRecord.self, from: $0) }
    }

    func pendingNotifications(originalTransactionID: UInt64) throws -> [NotificationRecord] {
        try String.fetchAll(
            try db.cachedStatement(
                sql: """
                    SELECT body FROM notification WHERE tenant = ? AND originalTransactionID = ? AND nextAttemptDate IS NOT NULL
                    ORDER BY sequence
                    """
            ),
            arguments: [tenant, originalTransactionID]
        ).map { try Self.decode(NotificationRecord.self, from: $0) }
    }

    func notificationsDue(by date: Date, limit: Int) throws -> [NotificationRecord] {
        try String.fetchAll(
            try db.cachedStatement(
                sql: "SELECT body FROM notification WHERE tenant = ? AND nextAttemptDate <= ? ORDER BY nextAttemptDate, sequence LIMIT ?"
            ),
            arguments: [tenant, date.timeIntervalSince1970, limit]
        ).map { try Self.decode(NotificationRecord.self, from: $0) }
    }

    func clockState() throws -> StoreClockState {
        try tenantHeader().clock
    }

    func snapshot() throws -> TenantSnapshot {
        let finished = try Row.fetchAll(
            try db.cachedStatement(sql: "SELECT deviceID, transactionID FROM finishedTransaction WHERE tenant = ? ORDER BY deviceID, transactionID"),
            arguments: [tenant]
        ).compactMap { row -> TenantSnapshot.FinishedMark? in
            let device: String = row["deviceID"]
            return UUID(uuidString: device).map { TenantSnapshot.FinishedMark(deviceID: $0, transactionID: row["transactionID"]) }
        }
        let intents = try String.fetchAll(
            try db.cachedStatement(sql: "SELECT body FROM purchaseIntent WHERE tenant = ? ORDER BY date, id"), arguments: [tenant]
        ).map { try Self.decode(PurchaseIntentRecord.self, from: $0) }
        let subscriptions = try String.fetchAll(
            try db.cachedStatement(sql: "SELECT body FROM subscription WHERE tenant = ? ORDER BY id"), arguments: [tenant]
        ).map { try Self.decode(SubscriptionRecord.self, from: $0) }
        let next = try memory?.tenant(tenant)?.nextTransactionID ?? UInt64.fetchOne(
            try db.cachedStatement(sql: "SELECT nextTransactionID FROM tenant WHERE id = ?"), arguments: [tenant]
        ) ?? TransactionRecord.firstID
        return TenantSnapshot(
            accounts: try accounts(), transactions: try transactions(matching: TransactionQuery()), finishedTransactions: finished,
            purchaseIntents: intents, subscriptions: subscriptions, notifications: try notifications(matching: NotificationQuery()),
            clock: try clockState(), nextTransactionID: next
        )
    }

    func apiKeys() throws -> [APIKeyRecord] {
        let (sql, arguments) = SQLiteQueries.apiKeys(tenant: tenant)
        return try Row.fetchAll(try db.cachedStatement(sql: sql), arguments: arguments).map(Self.apiKey(from:))
    }

    func settingsVersion() throws -> Int {
        try tenantHeader().settingsVersion
    }

    func storedSettings() throws -> StoredSettings {
        guard let row = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT version, body FROM tenantSettings WHERE tenant = ?"), arguments: [tenant]
        ) else { return StoredSettings() }
        let body: String? = row[1]
        return StoredSettings(version: row[0], settings: try body.map { try Self.decode(StoreSettings.self, from: $0) })
    }

    func notificationDestinations() throws -> NotificationDestinations? {
        try String.fetchOne(
            try db.cachedStatement(sql: "SELECT body FROM notificationDestinations WHERE tenant = ?"), arguments: [tenant]
        ).map { try Self.decode(NotificationDestinations.self, from: $0) }
    }

    func retentionMessaging(bundleID: String) throws -> RetentionMessagingContent? {
        try String.fetchOne(
            try db.cachedStatement(sql: "SELECT body FROM retentionMessaging WHERE tenant = ? AND bundleID = ?"), arguments: [tenant, bundleID]
        ).map { try Self.decode(RetentionMessagingContent.self, from: $0) }
    }

    func massExtension(productID: String, requestIdentifier: String) throws -> MassExtensionRecord? {
        try String.fetchOne(
            try db.cachedStatement(sql: "SELECT body FROM massExtension WHERE tenant = ? AND productID = ? AND requestIdentifier = ?"),
            arguments: [tenant, productID, requestIdentifier]
        ).map { try Self.decode(MassExtensionRecord.self, from: $0) }
    }

    func externalPurchaseToken(id: String) throws -> ExternalPurchaseTokenRecord? {
        try String.fetchOne(
            try db.cachedStatement(sql: "SELECT body FROM externalPurchaseToken WHERE tenant = ? AND id = ?"), arguments: [tenant, id]
        ).map { try Self.decode(ExternalPurchaseTokenRecord.self, from: $0) }
    }

    func externalPurchaseTokens(accountID: String, bundleID: String) throws -> [ExternalPurchaseTokenRecord] {
        try String.fetchAll(
            try db.cachedStatement(sql: "SELECT body FROM externalPurchaseToken WHERE tenant = ? AND accountID = ? AND bundleID = ?"),
            arguments: [tenant, accountID, bundleID]
        ).map { try Self.decode(ExternalPurchaseTokenRecord.self, from: $0) }.sorted { ($0.creationDate, $0.id) < ($1.creationDate, $1.id) }
    }

    func externalPurchaseTokensDue(by date: Date, limit: Int) throws -> [ExternalPurchaseTokenRecord] {
        try String.fetchAll(
            try db.cachedStatement(
                sql: "SELECT body FROM externalPurchaseToken WHERE tenant = ? AND nextEventDate <= ? ORDER BY nextEventDate, id LIMIT ?"
            ),
            arguments: [tenant, date.timeIntervalSince1970, limit]
        ).map { try Self.decode(ExternalPurchaseTokenRecord.self, from: $0) }
    }

    func nextExternalPurchaseTokenEventDate() throws -> Date? {
        try Double.fetchOne(try db.cachedStatement(sql: "SELECT MIN(nextEventDate) FROM externalPurchaseToken WHERE tenant = ?"), arguments: [tenant])
            .map(Date.init(timeIntervalSince1970:))
    }

    func externalPurchaseReport(requestIdentifier: String) throws -> ExternalPurchaseReportRecord? {
        try String.fetchOne(
            try db.cachedStatement(sql: "SELECT body FROM externalPurchaseReport WHERE tenant = ? AND requestIdentifier = ?"),
            arguments: [tenant, requestIdentifier]
        ).map { try Self.decode(ExternalPurchaseReportRecord.self, from: $0) }
    }

    func catalogVersion() throws -> Int {
        try tenantHeader().catalogVersion
    }

    func storedCatalog() throws -> StoredCatalog {
        guard let row = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT version, document FROM tenantCatalog WHERE tenant = ?"), arguments: [tenant]
        ) else { return StoredCatalog() }
        let document: String = row[1]
        return StoredCatalog(version: row[0], document: Data(document.utf8))
    }

    /// The key with the identifier under any tenant, and that tenant.
    static func apiKey(id: String, in db: Database) throws -> StoredAPIKey? {
        let (sql, arguments) = SQLiteQueries.apiKey(id: id)
        return try Row.fetchOne(try db.cachedStatement(sql: sql), arguments: arguments).map { row in StoredAPIKey(tenant: row[5], key: apiKey(from: row)) }
    }

    /// A key from the first five columns of a row: identifier, issuer, PEM, creation date, revoked.
    private static func apiKey(from row: Row) -> APIKeyRecord {
        APIKeyRecord(keyID: row[0], issuerID: row[1], publicKeyPEM: row[2], created: Date(timeIntervalSince1970: row[3]), revoked: row[4])
    }

    /// Counts in the writer's memory from the tenant's stored next identifier, read once while no other connection
    /// writes; the group writes it back once, before it commits (see ``WriterMemory``).
    func allocateTransactionID() throws -> UInt64 {
        guard let memory else { throw StoreError.storageFailure("Transaction identifiers are allocated only in a write transaction.") }
        let next = try memory.tenant(tenant)?.nextTransactionID ?? UInt64.fetchOne(
            try db.cachedStatement(sql: "SELECT nextTransactionID FROM tenant WHERE id = ?"), arguments: [tenant]
        ) ?? TransactionRecord.firstID
        memory.update(tenant) { remembered in
            remembered.nextTransactionID = next + 1
            remembered.identifierUnsaved = true
        }
        return next
    }

    func write(_ change: StorageChange) throws {
        try writerCache?.changing(db)
        switch change {
        case .saveAccount, .saveTransaction, .markFinished, .saveSubscription, .saveNotification, .updateNotification: break
        default:
            readHeader.value = nil
            memory?.update(tenant) { $0.header = nil }
        }
        switch change {
        case .saveAccount(let account):
            try execute(
                "INSERT OR REPLACE INTO account (tenant, id, body) VALUES (?, ?, ?)",
                arguments: [tenant, account.id, try Self.encode(account)]
            )
        case .saveTransaction(let record):
            try execute(
                """
                INSERT OR REPLACE INTO storeTransaction (tenant, id, originalID, accountID, bundleID, productID, idempotencyKey, body)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                arguments: [
                    tenant, record.id, record.originalID, record.accountID, record.bundleID, record.productID, record.idempotencyKey,
                    try Self.encode(record),
                ]
            )
        case .deleteTransactions(let ids):
            for id in ids {
                try execute("DELETE FROM storeTransaction WHERE tenant = ? AND id = ?", arguments: [tenant, id])
                try execute("DELETE FROM finishedTransaction WHERE tenant = ? AND transactionID = ?", arguments: [tenant, id])
                try execute("DELETE FROM notification WHERE tenant = ? AND transactionID = ?", arguments: [tenant, id])
            }
        case .deleteAllTransactions:
            memory?.update(tenant) { $0.nextSubscriptionEvent = WriterMemory.NextSubscriptionEvent.noEvent }
            try execute("DELETE FROM storeTransaction WHERE tenant = ?", arguments: [tenant])
            try execute("DELETE FROM finishedTransaction WHERE tenant = ?", arguments: [tenant])
            try execute("DELETE FROM subscription WHERE tenant = ?", arguments: [tenant])
            try execute("DELETE FROM notification WHERE tenant = ?", arguments: [tenant])
        case .eraseTenant:
            for table in ["account", "storeTransaction", "finishedTransaction", "purchaseIntent", "subscription", "notification", "massExtension",
                          "externalPurchaseToken", "externalPurchaseReport"] {
                try execute("DELETE FROM \(table) WHERE tenant = ?", arguments: [tenant])
            }
            try execute("DELETE FROM storeClock WHERE tenant = ?", arguments: [tenant])
            try execute("DELETE FROM tenant WHERE id = ?", arguments: [tenant])
            memory?.forget(tenant)
        case .deleteTenant:
            try write(.eraseTenant)
            for table in ["tenantSettings", "notificationDestinations", "apiKey", "tenantCatalog", "retentionMessaging"] {
                try execute("DELETE FROM \(table) WHERE tenant = ?", arguments: [tenant])
            }
        case .restore(let snapshot):
            try write(.eraseTenant)
            for account in snapshot.accounts { try write(.saveAccount(account)) }
            for record in snapshot.transactions { try write(.saveTransaction(record)) }
            for mark in snapshot.finishedTransactions { try write(.markFinished(transactionID: mark.transactionID, deviceID: mark.deviceID)) }
            for intent in snapshot.purchaseIntents { try write(.savePurchaseIntent(intent)) }
            for subscription in snapshot.subscriptions { try write(.saveSubscription(subscription)) }
            for notification in snapshot.notifications { try write(.saveNotification(notification)) }
            if snapshot.clock != StoreClockState() { try write(.saveClockState(snapshot.clock)) }
            memory?.update(tenant) { remembered in
                remembered.nextTransactionID = snapshot.nextTransactionID
                remembered.identifierUnsaved = true
            }
        case .markFinished(let transactionID, let deviceID):
            try execute(
                "INSERT OR IGNORE INTO finishedTransaction (tenant, deviceID, transactionID) VALUES (?, ?, ?)",
                arguments: [tenant, deviceID.storedText, transactionID]
            )
        case .savePurchaseIntent(let intent):
            try execute(
                "INSERT OR REPLACE INTO purchaseIntent (tenant, id, accountID, bundleID, date, body) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [tenant, intent.id.storedText, intent.accountID, intent.bundleID, intent.date.timeIntervalSince1970, try Self.encode(intent)]
            )
        case .deletePurchaseIntent(let id):
            try execute("DELETE FROM purchaseIntent WHERE tenant = ? AND id = ?", arguments: [tenant, id.storedText])
        case .saveSubscription(let subscription):
            memory?.update(tenant) { $0.nextSubscriptionEvent = $0.nextSubscriptionEvent?.saving(next: subscription.nextEventDate?.timeIntervalSince1970) }
            let body = try Self.encode(subscription)
            // Most saves move an existing subscription on: updating its body and due date rewrites one index, where
            // replacing the row deleted and inserted it in all four.
            try execute(
                "UPDATE subscription SET nextEventDate = ?, body = ? WHERE tenant = ? AND id = ? AND accountID = ? AND bundleID = ?",
                arguments: [
                    subscription.nextEventDate?.timeIntervalSince1970, body,
                    tenant, subscription.id, subscription.accountID, subscription.bundleID,
                ]
            )
            guard db.changesCount == 0 else { return }
            try execute(
                "INSERT OR REPLACE INTO subscription (tenant, id, accountID, bundleID, nextEventDate, body) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    tenant, subscription.id, subscription.accountID, subscription.bundleID,
                    subscription.nextEventDate?.timeIntervalSince1970, body,
                ]
            )
        case .deleteSubscriptions(let ids):
            // One of them may have held the earliest date.
            memory?.update(tenant) { $0.nextSubscriptionEvent = nil }
            for id in ids {
                try execute("DELETE FROM subscription WHERE tenant = ? AND id = ?", arguments: [tenant, id])
            }
        case .saveNotification(let notification):
            try execute(
                """
                INSERT INTO notification (tenant, id, bundleID, transactionID, originalTransactionID, date, nextAttemptDate, body)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                arguments: [
                    tenant, notification.id.storedText, notification.bundleID, notification.transactionID, notification.originalTransactionID,
                    notification.date.timeIntervalSince1970, notification.delivery.nextAttemptDate?.timeIntervalSince1970,
                    try Self.encode(notification),
                ]
            )
        case .updateNotification(let notification):
            try execute(
                "UPDATE notification SET nextAttemptDate = ?, body = ? WHERE tenant = ? AND id = ?",
                arguments: [
                    notification.delivery.nextAttemptDate?.timeIntervalSince1970, try Self.encode(notification),
                    tenant, notification.id.storedText,
                ]
            )
        case .saveClockState(let clock):
            try execute(
                "INSERT OR REPLACE INTO storeClock (tenant, offset, timeRate) VALUES (?, ?, ?)",
                arguments: [tenant, clock.offset, clock.timeRate?.rawValue]
            )
        case .addAPIKey(let key):
            // The writer holds the database's write lock: no other handle adds a key between the check and the insert.
            guard try Self.apiKey(id: key.keyID, in: db) == nil else { throw StoreError.duplicateAPIKey(key.keyID) }
            try execute(
                "INSERT INTO apiKey (keyID, tenant, issuerID, publicKeyPEM, created, revoked) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [key.keyID, tenant, key.issuerID, key.publicKeyPEM, key.created.timeIntervalSince1970, key.revoked]
            )
        case .revokeAPIKey(let keyID):
            try execute("UPDATE apiKey SET revoked = 1 WHERE tenant = ? AND keyID = ?", arguments: [tenant, keyID])
        case .saveSettings(let settings):
            try execute(
                """
                INSERT INTO tenantSettings (tenant, version, body) VALUES (?, 1, ?)
                ON CONFLICT (tenant) DO UPDATE SET version = version + 1, body = excluded.body
                """,
                arguments: [tenant, try settings.map { try Self.encode($0) }]
            )
        case .saveNotificationDestinations(let destinations?):
            try execute(
                "INSERT OR REPLACE INTO notificationDestinations (tenant, body) VALUES (?, ?)", arguments: [tenant, try Self.encode(destinations)]
            )
        case .saveNotificationDestinations(nil):
            try execute("DELETE FROM notificationDestinations WHERE tenant = ?", arguments: [tenant])
        case .saveCatalog(let document):
            try execute(
                """
                INSERT INTO tenantCatalog (tenant, version, document) VALUES (?, 1, ?)
                ON CONFLICT (tenant) DO UPDATE SET version = version + 1, document = excluded.document
                """,
                arguments: [tenant, String(decoding: document, as: UTF8.self)]
            )
        case .saveRetentionMessaging(let bundleID, let content?):
            try execute(
                "INSERT OR REPLACE INTO retentionMessaging (tenant, bundleID, body) VALUES (?, ?, ?)",
                arguments: [tenant, bundleID, try Self.encode(content)]
            )
        case .saveRetentionMessaging(let bundleID, nil):
            try execute("DELETE FROM retentionMessaging WHERE tenant = ? AND bundleID = ?", arguments: [tenant, bundleID])
        case .saveMassExtension(let record):
            try execute(
                "INSERT OR REPLACE INTO massExtension (tenant, productID, requestIdentifier, body) VALUES (?, ?, ?, ?)",
                arguments: [tenant, record.productID, record.requestIdentifier, try Self.encode(record)]
            )
        case .saveExternalPurchaseToken(let record):
            try execute(
                "INSERT OR REPLACE INTO externalPurchaseToken (tenant, id, accountID, bundleID, nextEventDate, body) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [tenant, record.id, record.accountID, record.bundleID, record.nextEventDate?.timeIntervalSince1970, try Self.encode(record)]
            )
        case .saveExternalPurchaseReport(let record):
            try execute(
                "INSERT OR REPLACE INTO externalPurchaseReport (tenant, requestIdentifier, body) VALUES (?, ?, ?)",
                arguments: [tenant, record.requestIdentifier, try Self.encode(record)]
            )
        }
    }

    /// Runs a statement from GRDB's per-connection cache, so a statement is compiled once per connection.
    private func execute(_ sql: String, arguments: StatementArguments) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// A row's body, written in one pass (see ``RowJSONEncoder``): `JSONEncoder` was the largest cost of a renewal.
    private static func encode(_ value: some Encodable) throws -> String {
        try RowJSONEncoder().encode(value)
    }

    /// A row's body read back (see `JSONReader`), whichever encoder wrote it.
    private static func decode<T: Decodable>(_ type: T.Type, from body: String) throws -> T {
        try JSONReader().decode(type, from: body)
    }
}

/// What the writer connection remembers of each tenant from one transaction to the next: the header every operation
/// reads (the clock, the settings' and catalog's versions), the next transaction identifier, and when the next
/// subscription event is due, which every operation asks to catch up on due renewals. Read from the database, they cost
/// a statement each per operation, together a fifth of a purchase, though they change far more rarely.
///
/// All of it holds only while no other connection writes: it is forgotten when another one, in this process or another
/// (a `storekit` command on the data directory), committed since the writer's last transaction. SQLite's data version
/// of the file tells, read once a group's transaction has begun (`SQLITE_FCNTL_DATA_VERSION`, a call rather than a
/// statement). The writer's own writes keep it true: a write that may change a tenant's header forgets it, and an
/// allocation counts the identifier, which the group writes to the tenant's row just before it commits
/// (``storeIdentifiers(in:)``). A member of a group rolled back to its savepoint takes back what it changed here; a
/// group rolled back forgets everything.
///
/// Used on the writer connection only; the lock only makes that checkable.
final class WriterMemory: Sendable {
    /// A tenant's clock and the versions of its settings and catalog.
    struct Header: Sendable {
        var clock: StoreClockState
        var settingsVersion: Int
        var catalogVersion: Int
    }

    /// What is remembered of one tenant.
    struct Tenant: Sendable {
        var header: Header?
        /// The tenant's next transaction identifier.
        var nextTransactionID: UInt64?
        /// Whether ``nextTransactionID`` moved since it was read or stored: the group writes it before it commits.
        var identifierUnsaved = false
        /// The earliest next event date of the tenant's subscriptions, as stored.
        var nextSubscriptionEvent: NextSubscriptionEvent?
    }

    /// The earliest next event date of a tenant's subscriptions: in seconds since 1970, as the column holds it, so that
    /// comparing it answers as the query would.
    enum NextSubscriptionEvent: Sendable, Equatable {
        /// No subscription has a next event.
        case noEvent
        case at(secondsSince1970: Double)

        /// Whether an event is due by `date`.
        func isDue(by date: Date) -> Bool {
            guard case .at(let seconds) = self else { return false }
            return seconds <= date.timeIntervalSince1970
        }

        /// What it becomes once a subscription is saved with `next` as its next event date (seconds since 1970):
        /// `nil`, unknown, when the subscription may have held the earliest date and moved it later.
        func saving(next: Double?) -> NextSubscriptionEvent? {
            switch (self, next) {
            case (.noEvent, nil): .noEvent
            case (.noEvent, let next?): .at(secondsSince1970: next)
            case (.at(let earliest), let next?) where next <= earliest: .at(secondsSince1970: next)
            default: nil
            }
        }
    }

    private struct State {
        var tenants: [String: Tenant] = [:]
        /// The file's data version after the writer's last commit; `nil` when unknown, so nothing remembered is trusted.
        var dataVersion: UInt32?
        /// What the running member of the group changed, as it was before: restored if the member fails.
        var undo: [String: Tenant?] = [:]
        /// The tenants whose identifier the running group counted (perhaps since taken back): storing and marking
        /// stored look only at these, not at every tenant remembered.
        var counted: Set<String> = []
    }

    private let state = Mutex(State())

    /// The most tenants remembered: past it, all is forgotten but the identifiers the running group has yet to store, so
    /// a server of many tenants keeps a bounded memory.
    static let tenantLimit = 4_096

    /// What is remembered of the tenant.
    func tenant(_ id: String) -> Tenant? {
        state.withLock { $0.tenants[id] }
    }

    /// Changes what is remembered of the tenant; the running member's failure takes it back.
    func update(_ id: String, _ change: (inout Tenant) -> Void) {
        state.withLock { state in
            if state.undo[id] == nil { state.undo[id] = .some(state.tenants[id]) }
            if state.tenants[id] == nil, state.tenants.count >= Self.tenantLimit {
                // An identifier counted but not stored yet must stay: the group writes it before it commits.
                state.tenants = state.tenants.filter(\.value.identifierUnsaved).mapValues { unsaved in
                    Tenant(nextTransactionID: unsaved.nextTransactionID, identifierUnsaved: true)
                }
            }
            var tenant = state.tenants[id] ?? Tenant()
            change(&tenant)
            if tenant.identifierUnsaved { state.counted.insert(id) }
            state.tenants[id] = tenant
        }
    }

    /// Forgets the tenant (a tenant erased or deleted); the running member's failure brings it back.
    func forget(_ id: String) {
        state.withLock { state in
            if state.undo[id] == nil { state.undo[id] = .some(state.tenants[id]) }
            state.tenants[id] = nil
        }
    }

    /// Called once a group's transaction has begun: forgets everything if another connection committed since the
    /// writer's last commit.
    func transactionBegan(_ db: Database) {
        let version = Self.dataVersion(of: db)
        state.withLock { state in
            if version == nil || version != state.dataVersion { state.tenants = [:] }
            state.dataVersion = version
            state.undo = [:]
            state.counted = []
        }
    }

    /// Called before each member of a group runs.
    func memberBegan() {
        state.withLock { $0.undo = [:] }
    }

    /// Takes back what the member that failed changed: its writes were rolled back to its savepoint.
    func memberFailed() {
        state.withLock { state in
            for (id, tenant) in state.undo { state.tenants[id] = tenant }
            state.undo = [:]
        }
    }

    /// Writes every identifier counted since it was last stored to its tenant's row, inside the group's transaction.
    func storeIdentifiers(in db: Database) throws {
        let unsaved = state.withLock { state in
            state.counted.compactMap { id in state.tenants[id].flatMap { $0.identifierUnsaved ? (id, $0.nextTransactionID) : nil } }
        }
        for case let (tenant, value?) in unsaved {
            try db.cachedStatement(
                sql: "INSERT INTO tenant (id, nextTransactionID) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET nextTransactionID = excluded.nextTransactionID"
            ).execute(arguments: [tenant, value])
        }
    }

    /// Called once a group's transaction has ended: committed, what is remembered is what the file holds; rolled back,
    /// it is all forgotten.
    func transactionEnded(_ db: Database, committed: Bool) {
        let version = committed ? Self.dataVersion(of: db) : nil
        state.withLock { state in
            state.undo = [:]
            state.dataVersion = version
            if committed {
                for id in state.counted { state.tenants[id]?.identifierUnsaved = false }
            } else {
                state.tenants = [:]
            }
            state.counted = []
        }
    }

    /// The main database file's data version: it moves with every change, the connection's own and those other
    /// connections committed (seen from the start of the connection's next transaction). `nil` if SQLite cannot tell.
    private static func dataVersion(of db: Database) -> UInt32? {
        var version: UInt32 = 0
        guard sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else { return nil }
        return version
    }
}

/// The writer connection's page cache, sized to the transaction: SQLite's default, 2 MB, for the few pages an operation
/// changes, and 32 MB once a transaction has made ``largeTransactionChanges`` changes, as a period end's renewals do, for
/// the rest of it. A cache of 32 MB throughout made every purchase touch fresh memory rather than reuse pages, 5% of its
/// CPU; one of 2 MB throughout made a period end read its pages again and again, 10% of its time.
///
/// Used on the writer connection only; the lock only makes that checkable.
package final class WriterCache: Sendable {
    /// The changes after which a transaction gets the large cache.
    static let largeTransactionChanges = 1_000
    /// The large cache's size, in KB.
    package static let largeKilobytes = 32 * 1024
    /// The changes of the running transaction, and whether the cache was made large for it.
    private let state = Mutex((changes: 0, large: false))

    /// Counts a change of the running transaction; makes the cache large at the ``largeTransactionChanges``th.
    func changing(_ db: Database) throws {
        let makeLarge = state.withLock { state in
            state.changes += 1
            guard state.changes >= Self.largeTransactionChanges, !state.large else { return false }
            state.large = true
            return true
        }
        if makeLarge { try db.execute(sql: "PRAGMA cache_size = -\(Self.largeKilobytes)") }
    }

    /// Gives the cache its default size back once a transaction that made it large has ended.
    func transactionEnded(_ db: Database) {
        let wasLarge = state.withLock { state in
            defer { state = (0, false) }
            return state.large
        }
        if wasLarge { try? db.execute(sql: "PRAGMA cache_size = \(Self.defaultCacheSize)") }
    }

    /// SQLite's default `cache_size` (negative: in KB).
    private static let defaultCacheSize = -2_000
}

/// The queries whose cost grows with the store if SQLite walks a whole tenant: visible to the package so a test can
/// check, with `EXPLAIN QUERY PLAN`, that an index answers them.
package enum SQLiteQueries {
    /// The transactions a query selects, in identifier order.
    package static func transactions(matching query: TransactionQuery, tenant: String) -> (sql: String, arguments: StatementArguments) {
        var conditions = ["tenant = ?"]
        var arguments: StatementArguments = [tenant]
        if let accountID = query.accountID { conditions.append("accountID = ?"); arguments += [accountID] }
        if let bundleID = query.bundleID { conditions.append("bundleID = ?"); arguments += [bundleID] }
        if let productID = query.productID { conditions.append("productID = ?"); arguments += [productID] }
        if let originalID = query.originalID { conditions.append("originalID = ?"); arguments += [originalID] }
        if let idempotencyKey = query.idempotencyKey { conditions.append("idempotencyKey = ?"); arguments += [idempotencyKey] }
        return ("SELECT body FROM storeTransaction WHERE \(conditions.joined(separator: " AND ")) ORDER BY id", arguments)
    }

    /// An account's subscriptions, in one app or all, in identifier order.
    package static func subscriptions(accountID: String, bundleID: String?, tenant: String) -> (sql: String, arguments: StatementArguments) {
        if let bundleID {
            return ("SELECT body FROM subscription WHERE tenant = ? AND accountID = ? AND bundleID = ? ORDER BY id", [tenant, accountID, bundleID])
        }
        return ("SELECT body FROM subscription WHERE tenant = ? AND accountID = ? ORDER BY id", [tenant, accountID])
    }

    /// The subscriptions due by `date`, earliest first, then in identifier order: the catch-up reads them a batch at a time.
    package static func subscriptionsDue(by date: Date, limit: Int, tenant: String) -> (sql: String, arguments: StatementArguments) {
        (
            "SELECT body FROM subscription WHERE tenant = ? AND nextEventDate <= ? ORDER BY nextEventDate, id LIMIT ?",
            [tenant, date.timeIntervalSince1970, limit]
        )
    }

    /// A tenant's API keys, by creation date and identifier.
    package static func apiKeys(tenant: String) -> (sql: String, arguments: StatementArguments) {
        ("SELECT keyID, issuerID, publicKeyPEM, created, revoked FROM apiKey WHERE tenant = ? ORDER BY created, keyID", [tenant])
    }

    /// The API key with an identifier, under any tenant: what every App Store Server API request reads.
    package static func apiKey(id: String) -> (sql: String, arguments: StatementArguments) {
        ("SELECT keyID, issuerID, publicKeyPEM, created, revoked, tenant FROM apiKey WHERE keyID = ?", [id])
    }

        /// The notifications a query selects, by date and then in the order they were written.
    package static func notifications(matching query: NotificationQuery, tenant: String) -> (sql: String, arguments: StatementArguments) {
        var conditions = ["tenant = ?"]
        var arguments: StatementArguments = [tenant]
        if let bundleID = query.bundleID { conditions.append("bundleID = ?"); arguments += [bundleID] }
        if let startDate = query.startDate { conditions.append("date >= ?"); arguments += [startDate.timeIntervalSince1970] }
        if let endDate = query.endDate { conditions.append("date < ?"); arguments += [endDate.timeIntervalSince1970] }
        var sql = "SELECT body FROM notification WHERE \(conditions.joined(separator: " AND ")) ORDER BY date, sequence"
        if let limit = query.limit { sql += " LIMIT ?"; arguments += [limit] }
        return (sql, arguments)
    }
}
