import AppStoreEngine
import Foundation
import Logging
import NIOCore
import NIOPosix
package import PostgresNIO

/// One connection used synchronously, from one thread that is neither an event loop nor Swift's cooperative pool:
/// each query blocks until PostgreSQL answers (see `PostgresStorage.onConnectionThread`).
struct PostgresSession: Sendable {
    let connection: PostgresConnection
    let configuration: PostgresStorage.Configuration
    let logger: Logger

    /// The rows a statement returns.
    func rows(_ query: PostgresQuery) throws(StoreError) -> [PostgresRow] {
        do {
            return try connection.query(query, logger: logger).wait().rows
        } catch {
            throw PostgresFailure.describe(error, running: query.sql, on: configuration)
        }
    }

    /// Runs a statement whose rows, if any, do not matter.
    func execute(_ query: PostgresQuery) throws(StoreError) {
        _ = try rows(query)
    }

    /// Runs `body` in a `REPEATABLE READ, READ ONLY` transaction: every read sees the database as it was at the first
    /// one, and no lock is taken.
    func read<Result>(tenant: String, _ body: (any StorageReader) throws -> Result) throws -> Result {
        try execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        do {
            let result = try body(PostgresTransaction(session: self, tenant: tenant, identifiers: nil))
            try execute("COMMIT")
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// Runs `body` in a `READ COMMITTED` transaction that first locks the tenant's row.
    ///
    /// The upsert inserts the row of a new tenant or locks the existing one, waiting while another transaction holds
    /// it, and returns the tenant's next transaction identifier as the last holder committed it. From then on each
    /// statement reads the latest committed data (`READ COMMITTED` takes a snapshot per statement), and no other
    /// transaction of the tenant commits anything until this one ends: the same guarantee as SQLite's
    /// `BEGIN IMMEDIATE`, per tenant instead of per file. (`REPEATABLE READ` would fix the snapshot before the lock
    /// was granted, and miss what the previous holder committed.)
    /// The channel on which write transactions of the stores in `schema` announce their commits (see
    /// `PostgresStorage.changesByOthers(tenant:)`): `NOTIFY` is delivered at commit, and not at all on a rollback.
    /// Channels are database-wide, so each schema has its own; two schemas whose keys collide only hear a few
    /// signals too many.
    static func changeChannel(schema: String?) -> String {
        "openstorekit_changes_" + String(UInt32(bitPattern: PostgresMigrations.schemaKey(schema)), radix: 16)
    }

    func transaction<Result>(tenant: String, origin: UUID, _ body: (any StorageTransaction) throws -> Result) throws -> Result {
        try execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        do {
            let first = try Int64(checking: TransactionRecord.firstID)
            let locked = try rows("""
                INSERT INTO tenant (id, next_transaction_id) VALUES (\(tenant), \(first))
                ON CONFLICT (id) DO UPDATE SET id = excluded.id
                RETURNING next_transaction_id
                """)
            let next = try UInt64(checking: try PostgresTransaction.decodeIfPresent(Int64.self, locked.first, on: configuration) ?? first)
            let identifiers = IdentifierCounter(next: next)
            let result = try body(PostgresTransaction(session: self, tenant: tenant, identifiers: identifiers))
            if identifiers.next != next {
                let stored = try Int64(checking: identifiers.next)
                try execute("UPDATE tenant SET next_transaction_id = \(stored) WHERE id = \(tenant)")
            }
            if identifiers.wroteChanges {
                let payload = origin.uuidString + " " + tenant
                try execute("SELECT pg_notify(\(Self.changeChannel(schema: configuration.schema)), \(payload))")
            }
            do {
                _ = try connection.query("COMMIT", logger: logger).wait()
            } catch {
                throw PostgresFailure.describeCommit(error, tenant: tenant, on: configuration)
            }
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// Ends a failed transaction. A connection that cannot even roll back is closed, so the pool never lends it again.
    private func rollBack() {
        do {
            _ = try connection.query("ROLLBACK", logger: logger).wait()
        } catch {
            _ = connection.close() as EventLoopFuture<Void>
        }
    }

    /// A double-quoted SQL identifier.
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Connects once, runs `body`, and disconnects, all synchronously: for opening the storage (migrations) and
    /// for what a store needs before its first operation.
    ///
    /// The caller's thread blocks until PostgreSQL answers, which is why this refuses to run on an event loop: the
    /// answer might have to come through that very loop.
    static func withSetupConnection<Result>(
        _ configuration: PostgresStorage.Configuration, logger: Logger, _ body: (PostgresSession) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            throw .storageFailure(
                "PostgreSQL storage at \(configuration) was opened on an event loop thread, which it would block. Open it from a task or another thread."
            )
        }
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(), configuration: try configuration.connectionConfiguration,
                id: 0, logger: logger
            ).wait()
        } catch {
            throw PostgresFailure.describe(error, running: nil, on: configuration)
        }
        defer { _ = try? (connection.close() as EventLoopFuture<Void>).wait() }
        return try body(PostgresSession(connection: connection, configuration: configuration, logger: logger))
    }
}

/// The tenant's next transaction identifier in a write transaction: read with the tenant's lock, counted in memory,
/// written back before the commit. Used on the transaction's thread only.
final class IdentifierCounter {
    var next: UInt64
    /// Whether the transaction wrote anything: only then are other servers told of its commit.
    var wroteChanges = false

    init(next: UInt64) {
        self.next = next
    }
}

extension PostgresStorage.Configuration {
    /// The configuration of one connection made outside the pool (tests use it to hold locks the storage waits for).
    package var connectionConfiguration: PostgresConnection.Configuration {
        get throws {
            var connection: PostgresConnection.Configuration
            if host.hasPrefix("/") {
                connection = PostgresConnection.Configuration(unixSocketPath: socketPath, username: username, password: password, database: database)
            } else {
                let tls: PostgresConnection.Configuration.TLS = switch tls {
                case .disable: .disable
                case .prefer: .prefer(try NIOSSLContext(configuration: tlsConfiguration))
                case .require, .verifyCA, .verifyFull: .require(try NIOSSLContext(configuration: tlsConfiguration))
                }
                connection = PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
            }
            connection.options.additionalStartupParameters = startupParameters
            connection.options.connectTimeout = .nanoseconds(Int64(connectTimeout / .nanoseconds(1)))
            return connection
        }
    }
}

extension Int64 {
    /// A transaction identifier as PostgreSQL's `bigint` holds it.
    init(checking identifier: UInt64) throws(StoreError) {
        guard let value = Int64(exactly: identifier) else {
            throw .storageFailure("The identifier \(identifier) is larger than PostgreSQL's bigint holds (\(Int64.max)); it cannot be stored.")
        }
        self = value
    }
}

extension UInt64 {
    /// A transaction identifier read back from a `bigint` column.
    init(checking value: Int64) throws(StoreError) {
        guard let identifier = UInt64(exactly: value) else {
            throw .storageFailure("The database holds the negative transaction identifier \(value), which OpenStoreKit never writes: something else changed it.")
        }
        self = identifier
    }
}
