import AppStoreEngine
import Foundation
import GRDB

/// ``Storage`` in one SQLite file: the embedded default of `storekit`.
///
/// The database runs in WAL mode so a server and the `storekit` command can use the same file at once;
/// every ``commit(tenant:_:)`` is one immediate transaction, so a crash leaves all of a change or none.
/// The schema evolves through append-only named migrations.
public final class SQLiteStorage: Storage {
    private let pool: DatabasePool

    /// Opens (and creates or migrates) the store at `url`.
    ///
    /// - Throws: ``SQLiteStorageError`` when the file cannot be opened or is not a store database.
    public init(url: URL) throws(SQLiteStorageError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.foreignKeysEnabled = true
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            pool = try DatabasePool(path: url.path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch {
            throw SQLiteStorageError(path: url.path, underlying: error)
        }
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
        return migrator
    }

    public func allocateTransactionID(tenant: String) async throws -> UInt64 {
        try await pool.write { db in
            let next = try UInt64.fetchOne(db, sql: "SELECT nextTransactionID FROM tenant WHERE id = ?", arguments: [tenant])
                ?? firstTransactionID
            try db.execute(
                sql: "INSERT INTO tenant (id, nextTransactionID) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET nextTransactionID = excluded.nextTransactionID",
                arguments: [tenant, next + 1]
            )
            return next
        }
    }

    public func account(tenant: String, id: String) async throws -> Account? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT body FROM account WHERE tenant = ? AND id = ?", arguments: [tenant, id])
                .map { try Self.decode(Account.self, from: $0) }
        }
    }

    public func accounts(tenant: String) async throws -> [Account] {
        try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT body FROM account WHERE tenant = ? ORDER BY id", arguments: [tenant])
                .map { try Self.decode(Account.self, from: $0) }
        }
    }

    public func transaction(tenant: String, id: UInt64) async throws -> TransactionRecord? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT body FROM storeTransaction WHERE tenant = ? AND id = ?", arguments: [tenant, id])
                .map { try Self.decode(TransactionRecord.self, from: $0) }
        }
    }

    public func transactions(tenant: String, matching query: TransactionQuery) async throws -> [TransactionRecord] {
        var conditions = ["tenant = ?"]
        var arguments: StatementArguments = [tenant]
        if let accountID = query.accountID { conditions.append("accountID = ?"); arguments += [accountID] }
        if let bundleID = query.bundleID { conditions.append("bundleID = ?"); arguments += [bundleID] }
        if let productID = query.productID { conditions.append("productID = ?"); arguments += [productID] }
        if let originalID = query.originalID { conditions.append("originalID = ?"); arguments += [originalID] }
        let sql = "SELECT body FROM storeTransaction WHERE \(conditions.joined(separator: " AND ")) ORDER BY id"
        return try await pool.read { [arguments] db in
            try String.fetchAll(db, sql: sql, arguments: arguments).map { try Self.decode(TransactionRecord.self, from: $0) }
        }
    }

    public func finishedTransactionIDs(tenant: String, deviceID: UUID) async throws -> Set<UInt64> {
        try await pool.read { db in
            Set(try UInt64.fetchAll(
                db, sql: "SELECT transactionID FROM finishedTransaction WHERE tenant = ? AND deviceID = ?",
                arguments: [tenant, deviceID.uuidString]
            ))
        }
    }

    public func purchaseIntents(tenant: String, accountID: String, bundleID: String) async throws -> [PurchaseIntentRecord] {
        try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT body FROM purchaseIntent WHERE tenant = ? AND accountID = ? AND bundleID = ? ORDER BY date, id",
                arguments: [tenant, accountID, bundleID]
            ).map { try Self.decode(PurchaseIntentRecord.self, from: $0) }
        }
    }

    public func commit(tenant: String, _ changes: [StorageChange]) async throws {
        let encoded = try changes.map(Self.encodeChange)
        try await pool.write { db in
            for change in encoded {
                try Self.apply(change, tenant: tenant, in: db)
            }
        }
    }

    /// A change with its JSON body already encoded, so the write transaction does no encoding.
    private enum EncodedChange: Sendable {
        case saveAccount(id: String, body: String)
        case saveTransaction(TransactionRecord, body: String)
        case savePurchaseIntent(PurchaseIntentRecord, body: String)
        case other(StorageChange)
    }

    private static func encodeChange(_ change: StorageChange) throws -> EncodedChange {
        switch change {
        case .saveAccount(let account): .saveAccount(id: account.id, body: try encode(account))
        case .saveTransaction(let record): .saveTransaction(record, body: try encode(record))
        case .savePurchaseIntent(let intent): .savePurchaseIntent(intent, body: try encode(intent))
        default: .other(change)
        }
    }

    private static func apply(_ change: EncodedChange, tenant: String, in db: Database) throws {
        switch change {
        case .saveAccount(let id, let body):
            try db.execute(sql: "INSERT OR REPLACE INTO account (tenant, id, body) VALUES (?, ?, ?)", arguments: [tenant, id, body])
        case .saveTransaction(let record, let body):
            try db.execute(
                sql: """
                INSERT OR REPLACE INTO storeTransaction (tenant, id, originalID, accountID, bundleID, productID, body)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                arguments: [tenant, record.id, record.originalID, record.accountID, record.bundleID, record.productID, body]
            )
        case .other(.deleteTransactions(let ids)):
            for id in ids {
                try db.execute(sql: "DELETE FROM storeTransaction WHERE tenant = ? AND id = ?", arguments: [tenant, id])
                try db.execute(sql: "DELETE FROM finishedTransaction WHERE tenant = ? AND transactionID = ?", arguments: [tenant, id])
            }
        case .other(.deleteAllTransactions):
            try db.execute(sql: "DELETE FROM storeTransaction WHERE tenant = ?", arguments: [tenant])
            try db.execute(sql: "DELETE FROM finishedTransaction WHERE tenant = ?", arguments: [tenant])
        case .other(.markFinished(let transactionID, let deviceID)):
            try db.execute(
                sql: "INSERT OR IGNORE INTO finishedTransaction (tenant, deviceID, transactionID) VALUES (?, ?, ?)",
                arguments: [tenant, deviceID.uuidString, transactionID]
            )
        case .savePurchaseIntent(let intent, let body):
            try db.execute(
                sql: "INSERT OR REPLACE INTO purchaseIntent (tenant, id, accountID, bundleID, date, body) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [tenant, intent.id.uuidString, intent.accountID, intent.bundleID, intent.date.timeIntervalSince1970, body]
            )
        case .other(.deletePurchaseIntent(let id)):
            try db.execute(sql: "DELETE FROM purchaseIntent WHERE tenant = ? AND id = ?", arguments: [tenant, id.uuidString])
        case .other(.saveAccount), .other(.saveTransaction), .other(.savePurchaseIntent):
            preconditionFailure("encodeChange encodes every save")
        }
    }

    private static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func decode<T: Decodable>(_ type: T.Type, from body: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(body.utf8))
    }
}

/// The SQLite store file could not be opened or migrated.
public struct SQLiteStorageError: Error, Sendable, CustomStringConvertible {
    /// The database file's path.
    public let path: String
    /// What SQLite or the file system said.
    public let underlying: any Error

    /// What failed and what to do.
    public var description: String {
        "Cannot open the store database at \(path): \(underlying). Check that the directory is writable and the file is an OpenStoreKit store, or pass another --data-dir."
    }
}
