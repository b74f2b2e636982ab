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
    /// one, and no lock is taken. `BEGIN` is sent with the first read; a body that reads nothing sends nothing.
    ///
    /// The `COMMIT` is sent but not waited for: it has nothing to make durable, and whatever the connection runs next
    /// is queued behind it. Should it fail, the connection is closed, as after a failed rollback.
    func read<Result>(tenant: String, _ body: (any StorageReader) throws -> Result) throws -> Result {
        let pipeline = PostgresPipeline(session: self)
        pipeline.hold("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        do {
            let result = try body(PostgresTransaction(pipeline: pipeline, tenant: tenant, writes: nil))
            if pipeline.started {
                let connection = connection
                connection.query("COMMIT", logger: logger).whenFailure { _ in _ = connection.close() as EventLoopFuture<Void> }
            }
            return result
        } catch {
            if pipeline.started { rollBack() }
            throw error
        }
    }

    /// The channel on which write transactions of the stores in `schema` announce their commits (see
    /// `PostgresStorage.changesByOthers(tenant:)`): `NOTIFY` is delivered at commit, and not at all on a rollback.
    /// Channels are database-wide, so each schema has its own; two schemas whose keys collide only hear a few
    /// signals too many.
    static func changeChannel(schema: String?) -> String {
        "openstorekit_changes_" + String(UInt32(bitPattern: PostgresMigrations.schemaKey(schema)), radix: 16)
    }

    /// Runs the members of `group` in one `READ COMMITTED` transaction that first locks the rows of their tenants,
    /// and delivers each its outcome, or returns the members to run in another transaction: those after a member that
    /// deleted its tenant (whose row goes at this commit), or all those left when a member's failure had to roll this
    /// one back. When the transaction itself fails (the connection, the commit), every member fails with it; when the
    /// locks of several tenants fail (a lock timeout, a deadlock), each tenant's members run again on their own.
    ///
    /// The upsert inserts the row of each new tenant or locks the existing one, waiting while another transaction
    /// holds it, and returns the tenant's next transaction identifier as the last holder committed it. It takes the
    /// rows in the order of the tenants' names, as every group does, so two groups never wait for each other's
    /// locks. From then on each statement reads the latest committed data (`READ COMMITTED` takes a snapshot per
    /// statement), and no other transaction of those tenants commits anything until this one ends: the same guarantee
    /// as SQLite's `BEGIN IMMEDIATE`, per tenant instead of per file. (`REPEATABLE READ` would fix the snapshot before
    /// the lock was granted, and miss what the previous holder committed.)
    ///
    /// `BEGIN` and the lock go out with the transaction's first read (or first allocated identifier, or its commit),
    /// and writes with the read or the commit that follows them (see `PostgresPipeline`): a statement sent after the
    /// lock in one batch runs once the lock is granted, so each read still sees the latest commit of the previous
    /// holder and every write before it. The commit sends the written-back counters and the change signals (one
    /// statement when there are both) with `COMMIT`; a group that neither reads, writes nor allocates sends nothing.
    ///
    /// Members run one after the other, each seeing what those before it wrote, exactly as if each had committed on
    /// its own, and each costs only its own statements: a member's writes go out with the next read that needs them,
    /// its rows gathered with the other members' into one insert per table (see `PostgresPipeline`), the rest with
    /// the commit. A member that throws before any of its writes was sent — a refusal, the usual failure — leaves
    /// nothing on the server: its writes and rows are dropped, with the identifiers it allocated, and the others go on.
    /// A member whose statement failed, or that throws after its writes were sent, can only be taken back with the
    /// whole transaction (a savepoint per member would double a member's statements): the transaction is rolled back,
    /// that member fails, and the others run again in a new one; when the failed statement was an insert of several
    /// members' rows, each of them runs again alone (see `Storage` on bodies that run again). Nobody hears of success
    /// before the commit.
    func transaction(origin: UUID, group: ArraySlice<PostgresGroupMember>) -> [PostgresGroupMember] {
        let pipeline = PostgresPipeline(session: self)
        let tenants = Set(group.map(\.tenant)).sorted()
        let writesByTenant = Dictionary(uniqueKeysWithValues: tenants.map { ($0, PostgresWriteState()) })
        /// The member whose statements come first: a failure before it is one of the locks'.
        var firstMember: PostgresPipeline.Mark?
        /// The members whose body succeeded: where their statements start, and what delivers their result.
        var succeeded: [(member: PostgresGroupMember, start: PostgresPipeline.Mark, deliver: @Sendable () -> Void)] = []
        var next = group.startIndex
        /// The member a failure of the server's belongs to: the last to start at or before the failed statement, or,
        /// for a gathered insert, the one whose rows it held; `nil` when its rows were several members'.
        func culprit(_ current: (member: PostgresGroupMember, start: PostgresPipeline.Mark)?) -> PostgresGroupMember? {
            if let owners = pipeline.failedRowOwners {
                guard owners.count == 1 else { return nil }
                if let current, current.start.owner == owners.lowerBound { return current.member }
                return succeeded.first { $0.start.owner == owners.lowerBound }?.member
            }
            if let current, pipeline.failed(atOrAfter: current.start) { return current.member }
            return succeeded.last { pipeline.failed(atOrAfter: $0.start) }?.member
        }
        /// Rolls back, fails `culprit`, and returns the members still waiting for an outcome, to run again. Without a
        /// culprit — a gathered insert of several members' rows failed — runs each of them alone, where a failure is
        /// its own, and returns what those leave to run.
        func runAgain(without culprit: PostgresGroupMember?, _ error: any Error) -> [PostgresGroupMember] {
            rollBack()
            guard let culprit else {
                return group.filter { !$0.isResolved }.flatMap { transaction(origin: origin, group: [$0][...]) }
            }
            culprit.fail(error)
            return group.filter { !$0.isResolved }
        }
        /// Whether a failure in a group can be pinned on one member, or spread by running each alone.
        func canRunAgain(_ current: (member: PostgresGroupMember, start: PostgresPipeline.Mark)?) -> Bool {
            group.count > 1 && (culprit(current) != nil || pipeline.failedRowOwners != nil)
        }
        /// Whether the locks of several tenants failed: one tenant's lock timeout or a deadlock must not fail the
        /// others' members.
        func locksFailed() -> Bool {
            tenants.count > 1 && firstMember.map(pipeline.failed(before:)) == true
        }
        /// Rolls back and runs each tenant's members in a transaction of their own; returns what those leave to run.
        func runEachTenantAlone() -> [PostgresGroupMember] {
            rollBack()
            return tenants.flatMap { tenant in
                transaction(origin: origin, group: group.filter { $0.tenant == tenant && !$0.isResolved }[...])
            }
        }
        do {
            try holdLocks(tenants, in: pipeline, noting: writesByTenant)
            holdReadAhead(group, in: pipeline, noting: writesByTenant)
            while next < group.endIndex {
                let member = group[next]
                let writes = writesByTenant[member.tenant]!
                let start = pipeline.mark()
                if firstMember == nil { firstMember = start }
                let before = writes.memberState
                next += 1
                do {
                    let deliver = try member.run(PostgresTransaction(pipeline: pipeline, tenant: member.tenant, writes: writes))
                    // A statement that failed aborted the transaction on the server, whatever the body made of its error.
                    if let failure = pipeline.failure { throw failure }
                    succeeded.append((member, start, deliver))
                    if writes.deletedTenant { break }
                } catch {
                    if pipeline.failure == nil {
                        // The body's own error: what the server has of it, if anything, only a rollback takes back.
                        guard pipeline.discard(since: start) else {
                            guard group.count > 1 else { throw error }
                            return runAgain(without: member, error)
                        }
                        writes.memberState = before
                        member.fail(error)
                        continue
                    }
                    if locksFailed() { return runEachTenantAlone() }
                    // A failure of the lock of one tenant is the whole transaction's.
                    guard canRunAgain((member, start)) else { throw error }
                    return runAgain(without: culprit((member, start)), error)
                }
            }
            if pipeline.started || writesByTenant.values.contains(where: \.wroteChanges) {
                let closing = pipeline.mark()
                do {
                    try commit(tenants, origin: origin, in: pipeline, noting: writesByTenant)
                } catch {
                    if locksFailed() { return runEachTenantAlone() }
                    // A failure of a member's write, sent with the commit, ended the transaction without committing it;
                    // one of the closing statements or of `COMMIT` itself is the whole transaction's.
                    guard !pipeline.failed(atOrAfter: closing), canRunAgain(nil) else { throw error }
                    return runAgain(without: culprit(nil), error)
                }
            }
        } catch {
            if pipeline.started { rollBack() }
            // Those that did not run yet fail too: the database refused the transaction they would have run in.
            for member in group { member.fail(error) }
            return []
        }
        for success in succeeded { success.member.succeed(success.deliver) }
        return Array(group[next...])
    }

    /// Holds `BEGIN`, the tenants' locks, and the reads every operation makes first.
    private func holdLocks(_ tenants: [String], in pipeline: PostgresPipeline, noting writes: [String: PostgresWriteState]) throws(StoreError) {
        let first = try Int64(checking: TransactionRecord.firstID)
        pipeline.hold("BEGIN ISOLATION LEVEL READ COMMITTED")
        // The rows are locked in the order of the array, the names' order (`WITH ORDINALITY` keeps it).
        pipeline.hold("""
            INSERT INTO tenant (id, next_transaction_id)
            SELECT locked.id, \(first) FROM unnest(\(tenants)::text[]) WITH ORDINALITY AS locked(id, position) ORDER BY locked.position
            ON CONFLICT (id) DO UPDATE SET id = excluded.id
            RETURNING id, next_transaction_id
            """) { [configuration] locked throws(StoreError) in
            for row in locked.rows {
                let (tenant, stored) = try PostgresTransaction.decodeColumns((String, Int64).self, row, on: configuration)
                writes[tenant]?.storedNextID = try UInt64(checking: stored)
            }
        }
        // Every operation reads the clock and the version of the tenant's settings first, asks whether a
        // subscription event is due, and at the end when the next one is: read together behind the lock (so after
        // the last holder's commit), in the lock's exchange, they spare the operation three of its six waits for
        // the database while it holds the lock.
        pipeline.hold("""
            SELECT locked.id,
                   (SELECT clock_offset FROM store_clock WHERE tenant = locked.id),
                   (SELECT time_rate FROM store_clock WHERE tenant = locked.id),
                   (SELECT MIN(next_event_date) FROM subscription WHERE tenant = locked.id),
                   (SELECT version FROM tenant_settings WHERE tenant = locked.id),
                   (SELECT version FROM tenant_catalog WHERE tenant = locked.id),
                   (SELECT stamp FROM notification_destinations WHERE tenant = locked.id)
            FROM unnest(\(tenants)::text[]) AS locked(id)
            """) { [configuration] answer throws(StoreError) in
            for row in answer.rows {
                let (tenant, offset, rate, nextEvent, settingsVersion, catalogVersion, destinationsStamp) = try PostgresTransaction.decodeColumns(
                    (String, Double?, Int64?, Double?, Int64?, Int64?, Int64?).self, row, on: configuration
                )
                writes[tenant]?.stateAtLock = TenantStateAtLock(
                    clock: offset.map { StoreClockState(offset: $0, timeRate: rate.flatMap { TimeRate(rawValue: Int($0)) }) } ?? StoreClockState(),
                    nextSubscriptionEvent: nextEvent.map(Date.init(timeIntervalSince1970:)),
                    settingsVersion: Int(settingsVersion ?? 0), catalogVersion: Int(catalogVersion ?? 0),
                    destinationsStamp: destinationsStamp ?? 0
                )
            }
        }
    }

    /// Holds the read of the accounts the group's members expect to read (``ExpectedReads``), in the lock's exchange:
    /// each member then finds its account without a wait of its own, unless an earlier member wrote it.
    private func holdReadAhead(_ group: ArraySlice<PostgresGroupMember>, in pipeline: PostgresPipeline, noting writes: [String: PostgresWriteState]) {
        var expected: [String: Set<String>] = [:]
        for member in group where !member.expectedReads.accountIDs.isEmpty {
            expected[member.tenant, default: []].formUnion(member.expectedReads.accountIDs)
        }
        guard !expected.isEmpty else { return }
        var tenants: [String] = [], ids: [String] = []
        for (tenant, accounts) in expected {
            writes[tenant]?.expectedAccounts = accounts
            for id in accounts {
                tenants.append(tenant)
                ids.append(id)
            }
        }
        pipeline.hold("""
            SELECT account.tenant, account.id, account.body FROM account
            JOIN unnest(\(tenants)::text[], \(ids)::text[]) AS expected(tenant, id) ON account.tenant = expected.tenant AND account.id = expected.id
            """) { [configuration] answer throws(StoreError) in
            for tenant in expected.keys { writes[tenant]?.accountsReadAhead = [:] }
            for row in answer.rows {
                let (tenant, id, body) = try PostgresTransaction.decodeColumns((String, String, String).self, row, on: configuration)
                writes[tenant]?.accountsReadAhead?[id] = body
            }
        }
    }

    /// Sends what is held, the counters written back and the change signals, and `COMMIT`.
    private func commit(_ tenants: [String], origin: UUID, in pipeline: PostgresPipeline, noting writes: [String: PostgresWriteState]) throws(StoreError) {
        if let failure = pipeline.failure { throw failure }
        var counted: [String] = [], counters: [Int64] = [], changed: [String] = []
        for tenant in tenants {
            guard let state = writes[tenant] else { continue }
            if let next = state.nextID, next != state.storedNextID {
                counted.append(tenant)
                counters.append(try Int64(checking: next))
            }
            if state.wroteChanges { changed.append(tenant) }
        }
        let channel = Self.changeChannel(schema: configuration.schema), origin = origin.uuidString + " "
        // One statement for both when both are due: the counters' update runs to completion though nothing reads it.
        let closing: [PostgresQuery] = switch (counted.isEmpty, changed.isEmpty) {
        case (false, false):
            ["""
            WITH counter AS (
                UPDATE tenant SET next_transaction_id = counted.next
                FROM unnest(\(counted)::text[], \(counters)::bigint[]) AS counted(id, next) WHERE tenant.id = counted.id
            )
            SELECT pg_notify(\(channel), \(origin) || changed.id) FROM unnest(\(changed)::text[]) AS changed(id)
            """]
        case (false, true):
            ["""
            UPDATE tenant SET next_transaction_id = counted.next
            FROM unnest(\(counted)::text[], \(counters)::bigint[]) AS counted(id, next) WHERE tenant.id = counted.id
            """]
        case (true, false): ["SELECT pg_notify(\(channel), \(origin) || changed.id) FROM unnest(\(changed)::text[]) AS changed(id)"]
        case (true, true): []
        }
        _ = try pipeline.send(closing + ["COMMIT"], committing: tenants)
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

/// What a write transaction counts and notes besides its statements. Used on the transaction's thread only.
final class PostgresWriteState {
    /// The tenant's next transaction identifier as its row held it when the lock was granted; `nil` until the
    /// lock's answer arrives.
    var storedNextID: UInt64?
    /// The next identifier to hand out, counted in memory once the transaction allocated one (or erased or restored
    /// the tenant); written back before the commit when it differs from ``storedNextID``.
    var nextID: UInt64?
    /// Whether the transaction wrote anything: only then are other servers told of its commit.
    var wroteChanges: Bool { changesWritten > 0 }
    /// How many changes the members of the group wrote to the tenant: what one member wrote is the growth.
    var changesWritten = 0
    /// Whether the transaction deleted the tenant, whose row goes at the commit: a group commits there.
    var deletedTenant = false
    /// What the tenant's rows held when the lock was granted (read in the same exchange as the lock); `nil` until that
    /// answer arrives.
    var stateAtLock: TenantStateAtLock?
    /// Whether the transaction wrote the tenant's clock: `stateAtLock`'s clock no longer holds.
    var wroteClock = false
    /// Whether the transaction wrote subscriptions: `stateAtLock`'s next event no longer holds.
    private(set) var wroteSubscriptions = false
    /// An account's subscriptions (in an app, or in all) as the transaction read them since it last wrote any.
    var subscriptionsRead: [SubscriptionsKey: [SubscriptionRecord]] = [:]

    /// Whose subscriptions were read: an account's, in one app or (`bundleID` `nil`) in all.
    struct SubscriptionsKey: Hashable {
        let accountID: String
        let bundleID: String?
    }

    /// Notes a write of the subscription table: what was read of it no longer holds.
    func notedSubscriptionWrite() {
        wroteSubscriptions = true
        subscriptionsRead = [:]
    }
    /// Whether the transaction wrote the tenant's settings: `stateAtLock`'s settings version no longer holds.
    var wroteSettings = false
    /// Whether the transaction wrote the tenant's catalog: `stateAtLock`'s catalog version no longer holds.
    var wroteCatalog = false
    /// Whether the transaction wrote the tenant's notification destinations: `stateAtLock`'s stamp no longer holds.
    var wroteDestinations = false
    /// The accounts read ahead for the group's members and not written since: a read of another, or of one written,
    /// goes to the table.
    var expectedAccounts: Set<String> = []
    /// The stored bodies of ``expectedAccounts`` by identifier, once the lock's answer arrived; one missing there is
    /// not stored.
    var accountsReadAhead: [String: String]?

    /// What one member of a group commit changes and takes back when it fails. (What `stateAtLock` no longer holds
    /// stays noted: the tables are read instead, which is always right.)
    var memberState: (nextID: UInt64?, changesWritten: Int, deletedTenant: Bool) {
        get { (nextID, changesWritten, deletedTenant) }
        set { (nextID, changesWritten, deletedTenant) = newValue }
    }
}

/// What a tenant's rows held when a write transaction's lock on it was granted: read in the lock's exchange, so
/// the transaction's reads of them cost no wait of their own.
struct TenantStateAtLock {
    /// The tenant's clock.
    var clock: StoreClockState
    /// When its earliest subscription event is due, if it has any.
    var nextSubscriptionEvent: Date?
    /// The version of its stored settings; 0 when none were stored.
    var settingsVersion: Int
    /// The version of its stored catalog; 0 when none was stored.
    var catalogVersion: Int
    /// The stamp of the last write of its notification destinations; 0 before any.
    var destinationsStamp: Int64
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
