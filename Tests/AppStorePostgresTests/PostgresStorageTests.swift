@testable import AppStoreEngine
import AppStoreFormats
import AppStorePostgres
import Dispatch
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// What PostgreSQL storage guarantees beyond the storage conformance suite (which runs on it too): migrations, the
/// tenant lock, snapshots, and errors that say what to do. Each test works in a schema of its own.
// Skipped, visibly, without a server: `.ci/run` starts one and sets the variable.
@Suite(
    "PostgreSQL storage",
    .enabled(
        if: PostgresTestDatabase.isConfigured,
        "OPENSTOREKIT_TEST_POSTGRES_URL is unset, so PostgreSQL storage is not tested. Run: export OPENSTOREKIT_TEST_POSTGRES_URL=$(bash .ci/postgres)"
    )
)
struct PostgresStorageTests {
    let date = Date(timeIntervalSince1970: 1_768_478_400)

    func record(_ id: UInt64) -> TransactionRecord {
        TransactionRecord(
            id: id, originalID: id, accountID: "a", bundleID: "app", productID: "premium",
            productType: .nonConsumable, quantity: 1, purchaseDate: date, originalPurchaseDate: date,
            storefront: Storefront.named("USA")!, unitPrice: 1, amountCharged: 1, origin: .purchase, state: .purchased
        )
    }

    /// Runs `body` with a fresh schema's configuration, and drops the schema afterwards.
    func withSchema<Result>(
        maximumConnections: Int = 4, _ body: (PostgresStorage.Configuration) async throws -> Result
    ) async throws -> Result {
        let configuration = try PostgresTestDatabase.freshConfiguration(maximumConnections: maximumConnections)
        defer { try? PostgresTestDatabase.dropSchema(of: configuration) }
        return try await body(configuration)
    }

    /// A connection of the test's own, beside the storage's: another process, as PostgreSQL sees it.
    func withConnection<Result>(
        _ configuration: PostgresStorage.Configuration, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await PostgresConnection.connect(
            configuration: try configuration.connectionConfiguration, id: 1, logger: PostgresStorage.silentLogger
        )
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Runs `count` transactions of tenant "t" at once while another connection, as another server would, holds the
    /// tenant's lock: the first waits for the lock, the others queue in this process behind it and run as one group
    /// once it is released. Returns each one's outcome by index.
    func queuedTransactions<Value: Sendable>(
        _ count: Int, on storage: PostgresStorage, _ configuration: PostgresStorage.Configuration,
        _ body: @escaping @Sendable (Int, any StorageTransaction) throws -> Value
    ) async throws -> [Int: Swift.Result<Value, StoreError>] {
        try await withConnection(configuration) { holder in
            try await holder.query("BEGIN", logger: PostgresStorage.silentLogger)
            try await holder.query("SELECT * FROM tenant WHERE id = 't' FOR UPDATE", logger: PostgresStorage.silentLogger)
            return try await withThrowingTaskGroup(of: (Int, Swift.Result<Value, StoreError>).self) { group in
                for index in 0..<count {
                    group.addTask {
                        do {
                            return (index, .success(try await storage.transaction(tenant: "t") { try body(index, $0) }))
                        } catch {
                            return (index, .failure(error as? StoreError ?? .storageFailure("\(error)")))
                        }
                    }
                }
                while storage.waitingTransactions(tenant: "t") < count - 1 { try await Task.sleep(for: .milliseconds(10)) }
                try await holder.query("ROLLBACK", logger: PostgresStorage.silentLogger)
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
        }
    }

    @Test("Opening creates the named schema and records each migration by version and name, once")
    func migrationsAreRecorded() async throws {
        try await withSchema { configuration in
            _ = try PostgresStorage(configuration: configuration)
            _ = try PostgresStorage(configuration: configuration)
            let applied = try await withConnection(configuration) { connection in
                try await connection.query("SELECT version, name FROM openstorekit_migration ORDER BY version", logger: PostgresStorage.silentLogger)
                    .collect().map { try $0.decode((Int32, String).self) }
            }
            #expect(applied.map(\.0) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
            #expect(applied.first?.1.hasPrefix("v1: tenants, accounts, transactions") == true)
            #expect(applied.map(\.1).dropFirst() == [
                "v2: notifications by original transaction", "v3: the certificate authority every server on the database signs with",
                "v4: transactions by idempotency key", "v5: App Store Server API keys", "v6: tenant settings",
                "v7: notification destinations",
                "v8: tenant catalogs",
                "v9: retention messaging",
                "v10: mass extensions",
                "v11: external purchases",
                "v12: notification destination stamps",
            ])
        }
    }

    @Test("Processes opening a new database at the same moment migrate it once, one after the other")
    func concurrentOpeningMigratesOnce() async throws {
        try await withSchema { configuration in
            // Opening blocks its thread until PostgreSQL answers: each opener gets a thread of its own, as each
            // process would.
            let failures = Failures()
            let openers = DispatchGroup()
            for _ in 0..<6 {
                openers.enter()
                Thread {
                    defer { openers.leave() }
                    do throws(StoreError) { _ = try PostgresStorage(configuration: configuration) } catch { failures.add(error.message) }
                }.start()
            }
            await withCheckedContinuation { continuation in openers.notify(queue: .global()) { continuation.resume() } }
            #expect(failures.messages.isEmpty)
            let versions = try await withConnection(configuration) { connection in
                try await connection.query("SELECT count(*) FROM openstorekit_migration", logger: PostgresStorage.silentLogger)
                    .collect().map { try $0.decode(Int64.self) }
            }
            #expect(versions == [12])
        }
    }

    @Test("A database of the first version gets its notifications indexed by original transaction, from their bodies")
    func notificationsByOriginalAreBackfilled() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            let date = Date(timeIntervalSince1970: 1_768_478_400)
            let written = (0..<3).map { index in
                NotificationRecord(
                    type: .didRenew, date: date.addingTimeInterval(Double(index)), accountID: "a", bundleID: "app",
                    transactionID: 2_000_000_000_000_010 + UInt64(index), originalTransactionID: 2_000_000_000_000_001
                )
            }
            try await storage.transaction(tenant: "t") { try $0.write(written.map(StorageChange.saveNotification)) }
            // Back to the schema as version 1 left it: no column, no index, no record of version 2.
            try await withConnection(configuration) { connection in
                for statement in [
                    "DROP INDEX notification_by_original", "ALTER TABLE notification DROP COLUMN original_transaction_id",
                    "DELETE FROM openstorekit_migration WHERE version = 2",
                ] {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresStorage.silentLogger)
                }
            }
            let reopened = try PostgresStorage(configuration: configuration)
            let pending = try await reopened.read(tenant: "t") { try $0.pendingNotifications(originalTransactionID: 2_000_000_000_000_001) }
            #expect(pending.map(\.id) == written.map(\.id))
        }
    }

    @Test("A database of version 3 gets its transactions indexed by idempotency key, from their bodies")
    func idempotencyKeysAreBackfilled() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            let records = (0..<3).map { index in
                var record = record(2_000_000_000_000_001 + UInt64(index))
                record.idempotencyKey = index == 1 ? nil : "order-\(index)"
                return record
            }
            try await storage.transaction(tenant: "t") { try $0.write(records.map(StorageChange.saveTransaction)) }
            // Back to the schema as version 3 left it: no column, no index, no record of version 4.
            try await withConnection(configuration) { connection in
                for statement in [
                    "DROP INDEX store_transaction_by_idempotency_key", "ALTER TABLE store_transaction DROP COLUMN idempotency_key",
                    "DELETE FROM openstorekit_migration WHERE version = 4",
                ] {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresStorage.silentLogger)
                }
            }
            let reopened = try PostgresStorage(configuration: configuration)
            let found = try await reopened.read(tenant: "t") { reader in
                try ["order-0", "order-1", "order-2"].map { key in
                    try reader.transactions(matching: TransactionQuery(accountID: "a", bundleID: records[0].bundleID, idempotencyKey: key)).map(\.id)
                }
            }
            #expect(found == [[records[0].id], [], [records[2].id]])
        }
    }

    /// Where the handle that writes in ``commitsSignalOtherHandles(writer:)`` comes from.
    enum Writer: String, CaseIterable, CustomTestStringConvertible {
        /// Connections of its own: another process or server, told by PostgreSQL's signal.
        case otherConnections = "another process's handle"
        /// The watcher's connections, whose origin PostgreSQL's signal names: told in the process.
        case sameConnections = "another handle on the same connections"
        var testDescription: String { rawValue }
    }

    @Test(
        "A commit with changes signals the other handles that follow its tenant; their own commits and other tenants do not",
        .timeLimit(.minutes(1)), // a signal that never comes
        arguments: Writer.allCases
    )
    func commitsSignalOtherHandles(writer kind: Writer) async throws {
        try await withSchema { configuration in
            let watcher = try PostgresStorage(configuration: configuration)
            let writer = switch kind {
            case .otherConnections: try PostgresStorage(configuration: configuration)
            case .sameConnections: try #require(PostgresStorage(sharing: watcher), "the watcher's connections are open")
            }
            let (heard, heardContinuation) = AsyncStream.makeStream(of: String.self)
            var followers: [Task<Void, Never>] = []
            for tenant in ["t", "u"] {
                let signals = watcher.changesByOthers(tenant: tenant)
                followers.append(Task {
                    for await _ in signals { heardContinuation.yield(tenant) }
                })
            }
            defer { followers.forEach { $0.cancel() } }
            var arrivals = heard.makeAsyncIterator()
            // One signal per stream once it is heard: until then a commit may go unheard.
            #expect(Set([await arrivals.next(), await arrivals.next()]) == ["t", "u"])

            try await watcher.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "own", storefront: "USA"))) }
            try await writer.transaction(tenant: "t") { _ = try $0.account(id: "nothing written") }
            _ = try await writer.read(tenant: "t") { try $0.accounts() }
            try await writer.transaction(tenant: "u") { try $0.write(.saveAccount(Account(id: "b", storefront: "USA"))) }
            try await writer.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "a", storefront: "USA"))) }
            // Signals come in commit order: had the watcher's own commit or the writer's commits without changes
            // been announced, "t" would have been heard before "u".
            #expect(await [arrivals.next(), arrivals.next()] == ["u", "t"])
            await writer.close()
            await watcher.close()
        }
    }

    @Test("A store that keeps its notification destinations takes another server's new ones, or their deletion, at its next transaction, whether or not that server's signal arrived")
    func keptDestinationsFollowStamps() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            let engine = StoreEngine(tenantID: "t", catalog: Catalog(products: [CatalogProduct(id: "coins", type: .consumable, price: 1)]), storage: storage, clock: SystemClock(), signer: .ephemeral)
            let following = Task { for await _ in await engine.outboxUpdates().signals {} }
            defer { following.cancel() }
            while await !engine.hearsChangesElsewhere { try await Task.sleep(for: .milliseconds(20)) }
            let first = NotificationDestinations(defaultURL: URL(string: "http://127.0.0.1:9/first"))
            try await engine.setNotificationDestinations(first)
            #expect(try await engine.notificationDestinations() == first)

            // Another server's write, as PostgreSQL sees it, whose signal never comes.
            try await withConnection(configuration) { connection in
                _ = try await connection.query(#"""
                    UPDATE notification_destinations SET body = '{"defaultURL": "http://127.0.0.1:9/second", "urlsByBundleID": {}}',
                        stamp = nextval('notification_destinations_stamp') WHERE tenant = 't'
                    """#, logger: PostgresStorage.silentLogger)
            }
            #expect(try await engine.notificationDestinations() == first, "kept: nothing told the store yet")
            _ = try await engine.purchase(PurchaseRequest(productID: "coins", bundleID: "app"))
            #expect(try await engine.notificationDestinations()?.defaultURL?.path == "/second", "the purchase's transaction read the new stamp behind the lock")

            // The row gone, as when another server deletes the tenant: no stamp is no later, yet another.
            try await withConnection(configuration) { connection in
                _ = try await connection.query("DELETE FROM notification_destinations WHERE tenant = 't'", logger: PostgresStorage.silentLogger)
            }
            _ = try await engine.purchase(PurchaseRequest(productID: "coins", bundleID: "app"))
            #expect(try await engine.notificationDestinations() == nil)
            await storage.close()
        }
    }

    @Test("Closing a storage ends the streams that follow it, whether they were read or not")
    func closingEndsChangeStreams() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            let read = storage.changesByOthers(tenant: "t")
            let unread = storage.changesByOthers(tenant: "u")
            var signals = read.makeAsyncIterator()
            #expect(await signals.next() != nil, "the signal that it listens")
            // Finishing a stream runs its termination handler, which once took the lock the storage held here.
            await storage.close()
            #expect(await signals.next() == nil)
            var rest = unread.makeAsyncIterator()
            while await rest.next() != nil {}
        }
    }

    @Test("A database migrated by a newer OpenStoreKit is refused, naming the version it has")
    func newerDatabaseIsRefused() async throws {
        try await withSchema { configuration in
            _ = try PostgresStorage(configuration: configuration)
            try await withConnection(configuration) { connection in
                _ = try await connection.query(
                    "INSERT INTO openstorekit_migration (version, name) VALUES (99, 'v99: from the future')", logger: PostgresStorage.silentLogger
                )
            }
            #expect {
                _ = try PostgresStorage(configuration: configuration)
            } throws: { error in
                (error as? StoreError)?.message.contains("v99: from the future") == true
            }
        }
    }

    @Test("A transaction waits for its tenant's lock, held by another connection, and fails cleanly after the lock timeout")
    func lockTimeout() async throws {
        try await withSchema { base in
            var configuration = base
            configuration.lockTimeout = .milliseconds(300)
            let storage = try PostgresStorage(configuration: configuration)
            try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "a", storefront: "USA"))) }
            try await withConnection(configuration) { holder in
                // Another server, in the middle of an operation on tenant "t".
                try await holder.query("BEGIN", logger: PostgresStorage.silentLogger)
                try await holder.query("SELECT * FROM tenant WHERE id = 't' FOR UPDATE", logger: PostgresStorage.silentLogger)
                await #expect {
                    try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "b", storefront: "FRA"))) }
                } throws: { error in
                    let message = (error as? StoreError)?.message ?? ""
                    return message.contains("waited more than") && message.contains("lock") && message.contains("Nothing was changed")
                }
                // Other tenants are not held up, and readers of the held tenant are not either.
                try await storage.transaction(tenant: "u") { try $0.write(.saveAccount(Account(id: "c", storefront: "JPN"))) }
                #expect(try await storage.read(tenant: "t") { try $0.accounts().map(\.id) } == ["a"])
                try await holder.query("ROLLBACK", logger: PostgresStorage.silentLogger)
            }
            try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "b", storefront: "FRA"))) }
            #expect(try await storage.read(tenant: "t") { try $0.accounts().map(\.id) } == ["a", "b"])
        }
    }

    @Test("A transaction in which a statement failed is not committed, even when its body caught the error and went on")
    func failedStatementIsNeverCommitted() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            await #expect {
                try await storage.transaction(tenant: "t") { transaction in
                    try transaction.write(.saveAccount(Account(id: "kept?", storefront: "USA")))
                    // PostgreSQL refuses a NUL in text; writes go out with the next read, whose error the body ignores.
                    try transaction.write(.saveAccount(Account(id: "nul\u{0}", storefront: "USA")))
                    _ = try? transaction.accounts()
                    try transaction.write(.saveAccount(Account(id: "after", storefront: "USA")))
                }
            } throws: { error in
                ((error as? StoreError)?.message ?? "").contains("Nothing was changed")
            }
            #expect(try await storage.read(tenant: "t") { try $0.accounts() }.isEmpty)
            // The connection went back to the pool usable.
            try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "a", storefront: "USA"))) }
            #expect(try await storage.read(tenant: "t") { try $0.accounts().map(\.id) } == ["a"])
        }
    }

    @Test("Transactions of a tenant that arrive while it is locked commit together, in one PostgreSQL transaction; one that throws and those whose statements fail leave nothing, identifiers included, and the others commit")
    func transactionsArrivingTogetherCommitTogether() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "a", storefront: "USA"))) }
            // Each PostgreSQL transaction that writes announces its commit once: counting them counts the commits.
            let commits = Atomic(0)
            // The bodies in the order they ran, a body that ran again twice.
            let runs = RunOrder()
            let listening = AsyncStream.makeStream(of: Void.self)
            let listener = Task {
                try await withConnection(configuration) { connection in
                    try await connection.listen(on: storage.changeChannel) { notifications in
                        listening.continuation.yield()
                        for try await notification in notifications where notification.payload.hasSuffix(" t") {
                            commits.add(1, ordering: .relaxed)
                        }
                    }
                }
            }
            defer { listener.cancel() }
            for await _ in listening.stream { break }
            let outcomes = try await queuedTransactions(12, on: storage, configuration) { index, transaction in
                runs.indices.withLock { $0.append(index) }
                // Each reads first, as a purchase reads its account: what the one before wrote goes with it.
                _ = try transaction.account(id: "a")
                let id = try transaction.allocateTransactionID()
                try transaction.write(.saveTransaction(record(id)))
                if index == 4 { throw StoreError.invalidTransactionState("refused by its body") }
                if index == 7 {
                    // PostgreSQL refuses a NUL in text: the read that sends the write fails.
                    try transaction.write(.saveAccount(Account(id: "nul\u{0}", storefront: "USA")))
                    _ = try transaction.accounts()
                }
                if index == 9 {
                    // This one's write fails with the next one's first read, or before the commit.
                    try transaction.write(.saveAccount(Account(id: "nul\u{0}", storefront: "USA")))
                }
                return id
            }
            #expect(throws: StoreError.invalidTransactionState("refused by its body")) { try outcomes[4]!.get() }
            #expect(throws: StoreError.self) { try outcomes[7]!.get() }
            #expect(throws: StoreError.self) { try outcomes[9]!.get() }
            let committed = outcomes.filter { ![4, 7, 9].contains($0.key) }.map { try? $0.value.get() }
            // The failed ones' identifiers went back: the nine others have the nine next.
            #expect(Set(committed) == Set((0..<9).map { TransactionRecord.firstID + UInt64($0) }))
            let ids = try await storage.read(tenant: "t") { try $0.transactions(matching: TransactionQuery()).map(\.id) }
            #expect(ids == (0..<9).map { TransactionRecord.firstID + UInt64($0) })
            #expect(try await storage.read(tenant: "t") { try $0.accounts().map(\.id) } == ["a"])
            // The one that threw before sending anything ran once; the failed writes rolled the group's transaction
            // back, and the others ran again.
            let order = runs.indices.withLock { $0 }
            #expect(order.filter { $0 == 4 }.count == 1)
            #expect(Set(order) == Set(0..<12))
            // The leader's transaction (unless it failed), then one for the eleven that waited, however many times
            // they had to run (a late announcement has a second to arrive).
            let expected = [4, 7, 9].contains(order[0]) ? 1 : 2
            let deadline = ContinuousClock.now + .seconds(1)
            while commits.load(ordering: .relaxed) <= expected, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(commits.load(ordering: .relaxed) == expected)
            // The counter committed is the group's: the next transaction continues it.
            #expect(try await storage.transaction(tenant: "t") { try $0.allocateTransactionID() } == TransactionRecord.firstID + 9)
        }
    }

    @Test("A group's transactions go out as one insert for all of them; when it fails, each runs again alone: the one whose row PostgreSQL refused fails, and the others commit")
    func gatheredInsertOfSeveralFailsAlone() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "a", storefront: "USA"))) }
            let runs = RunOrder()
            let outcomes = try await queuedTransactions(8, on: storage, configuration) { index, transaction in
                runs.indices.withLock { $0.append(index) }
                // A purchase's account read: the transactions before it go on gathering.
                _ = try transaction.account(id: "a")
                let id = try transaction.allocateTransactionID()
                var row = record(id)
                // PostgreSQL refuses a NUL in text: the insert holding this row fails, at the commit.
                if index == 5 { row.accountID = "nul\u{0}" }
                try transaction.write(.saveTransaction(row))
                return id
            }
            #expect(throws: StoreError.self) { try outcomes[5]!.get() }
            let committed = outcomes.filter { $0.key != 5 }.compactMap { try? $0.value.get() }
            #expect(committed.count == 7)
            let stored = try await storage.read(tenant: "t") { try $0.transactions(matching: TransactionQuery()) }
            #expect(Set(stored.map(\.id)) == Set(committed))
            #expect(stored.allSatisfy { $0.accountID == "a" })
            // The leader ran alone, once; the seven waiting ran together, and when their insert failed, each again alone.
            let order = runs.indices.withLock { $0 }
            if let leader = order.first, leader != 5 {
                #expect(order.filter { $0 == leader }.count == 1)
                #expect(Set(order).subtracting([leader]).allSatisfy { index in order.filter { $0 == index }.count == 2 }, "\(order)")
            }
            // Identifiers handed out in the rolled-back group were handed out again: none is skipped.
            #expect(try await storage.transaction(tenant: "t") { try $0.allocateTransactionID() } == TransactionRecord.firstID + 7)
        }
    }

    /// Starts a transaction of each tenant in `tenants`, in order, on `storage` (of one connection): the first alone,
    /// waiting for its lock, which `holder` holds until the others queued behind it for want of a connection. Each
    /// writes a transaction record and returns its identifier. Returns each one's outcome by index.
    func transactionsQueuedBehindALock(
        _ tenants: [String], on storage: PostgresStorage, holder: PostgresConnection
    ) async throws -> [Int: Swift.Result<UInt64, StoreError>] {
        try await transactionsQueuedBehindALock(tenants, on: storage, holder: holder) { [record] _, transaction in
            let id = try transaction.allocateTransactionID()
            try transaction.write(.saveTransaction(record(id)))
            return id
        }
    }

    /// Runs `body` in a transaction for each of `tenants`, in order, while `holder` holds the first tenant's lock:
    /// the first waits for it, and the others queue behind the first (see the overload above). `expecting` names what
    /// each will read; `holderCommits`, when given, is written by the holder and committed before it lets go.
    func transactionsQueuedBehindALock<Value: Sendable>(
        _ tenants: [String], on storage: PostgresStorage, holder: PostgresConnection,
        expecting: @escaping @Sendable (Int) -> ExpectedReads = { _ in .nothing }, holderCommits: PostgresQuery? = nil,
        _ body: @escaping @Sendable (Int, any StorageTransaction) throws -> Value
    ) async throws -> [Int: Swift.Result<Value, StoreError>] {
        let logger = PostgresStorage.silentLogger
        let holderProcess = try await holder.query("SELECT pg_backend_pid()", logger: logger).collect().first!.decode(Int32.self)
        try await holder.query("BEGIN", logger: logger)
        try await holder.query("SELECT * FROM tenant WHERE id = \(tenants[0]) FOR UPDATE", logger: logger)
        /// Waits for `condition`, for at most half a minute.
        func waitFor(_ what: String, _ condition: () async throws -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while try await !condition() {
                guard ContinuousClock.now < deadline else { throw StoreError.storageFailure("The test waited half a minute for \(what).") }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        return try await withThrowingTaskGroup(of: (Int, Swift.Result<Value, StoreError>).self) { group in
            for (index, tenant) in tenants.enumerated() {
                group.addTask {
                    do {
                        return (index, .success(try await storage.transaction(tenant: tenant, expecting: expecting(index)) { try body(index, $0) }))
                    } catch {
                        return (index, .failure(error as? StoreError ?? .storageFailure("\(error)")))
                    }
                }
                if index == 0 {
                    try await waitFor("the first transaction to wait for the lock") {
                        try await holder.query(
                            "SELECT count(*) FROM pg_stat_activity WHERE \(holderProcess) = ANY(pg_blocking_pids(pid))", logger: logger
                        ).collect().first!.decode(Int64.self) > 0
                    }
                } else {
                    try await waitFor("the transactions to queue") {
                        Set(tenants[1...index]).map { storage.waitingTransactions(tenant: $0) }.reduce(0, +) == index
                    }
                }
            }
            if let holderCommits {
                try await holder.query(holderCommits, logger: logger)
                try await holder.query("COMMIT", logger: logger)
            } else {
                try await holder.query("ROLLBACK", logger: logger)
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }

    @Test("The accounts a group's transactions expect are read with the locks: each reads the last holder's commit, and what an earlier transaction of its group wrote")
    func expectedAccountsAreReadAhead() async throws {
        try await withSchema(maximumConnections: 1) { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "a", storefront: "USA"))) }
            let moved = String(decoding: try JSONEncoder().encode(Account(id: "a", storefront: "DEU")), as: UTF8.self)
            let results = try await withConnection(configuration) { holder in
                // The first transaction waits for the holder's lock; the other two wait for the connection, and then
                // run together, the first of them writing the account the second reads.
                try await transactionsQueuedBehindALock(
                    ["t", "t", "t"], on: storage, holder: holder,
                    expecting: { $0 == 2 ? ExpectedReads(accountIDs: ["a", "b"]) : ExpectedReads(accountIDs: ["a"]) },
                    holderCommits: "UPDATE account SET body = \(moved) WHERE tenant = 't' AND id = 'a'"
                ) { index, transaction in
                    let read = [try transaction.account(id: "a")?.storefront ?? "none", try transaction.account(id: "b")?.storefront ?? "none"]
                    if index == 1 { try transaction.write(.saveAccount(Account(id: "a", storefront: "FRA"))) }
                    return read
                }
            }
            #expect(try results[0]?.get() == ["DEU", "none"], "read once the holder committed and let go")
            #expect(try results[1]?.get() == ["DEU", "none"])
            #expect(try results[2]?.get() == ["FRA", "none"], "the earlier transaction's write, not what was read ahead")
            #expect(try await storage.read(tenant: "t") { try $0.account(id: "a")?.storefront } == "FRA")
            await storage.close()
        }
    }

    @Test("Transactions of several tenants that waited together commit in one PostgreSQL transaction, each tenant's identifiers its own")
    func tenantsCommitTogether() async throws {
        try await withSchema(maximumConnections: 1) { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            for tenant in ["a", "b", "c", "d"] { try await storage.transaction(tenant: tenant) { try $0.write(.saveAccount(Account(id: tenant, storefront: "USA"))) } }
            let outcomes = try await withConnection(configuration) { holder in
                try await transactionsQueuedBehindALock(["a", "d", "b", "c", "b"], on: storage, holder: holder)
            }
            let first = TransactionRecord.firstID
            #expect(outcomes.mapValues { try? $0.get() } == [0: first, 1: first, 2: first, 3: first, 4: first + 1])
            // Rows written by one PostgreSQL transaction carry its identifier (xmin).
            let writers = try await withConnection(configuration) { connection in
                try await connection.query("SELECT tenant, xmin::text FROM store_transaction ORDER BY tenant, id", logger: PostgresStorage.silentLogger)
                    .collect().map { try $0.decode((String, String).self) }
            }
            #expect(writers.map(\.0) == ["a", "b", "b", "c", "d"])
            let byTenant = Dictionary(writers.map { ($0.0, [$0.1]) }, uniquingKeysWith: +)
            #expect(Set(byTenant["b"]! + byTenant["c"]! + byTenant["d"]!).count == 1, "the four that waited committed together: \(writers)")
            #expect(byTenant["a"] != byTenant["b"].map { [$0[0]] })
            // Each tenant's counter was written back: its next transaction continues it.
            for (tenant, next) in [("a", first + 1), ("b", first + 2), ("c", first + 1), ("d", first + 1)] {
                #expect(try await storage.transaction(tenant: tenant) { try $0.allocateTransactionID() } == next)
            }
        }
    }

    @Test("When one tenant's lock times out in a group of several tenants, only its transactions fail: the others' commit")
    func lockTimeoutFailsOnlyItsTenant() async throws {
        try await withSchema(maximumConnections: 1) { base in
            var configuration = base
            configuration.lockTimeout = .seconds(2)
            let storage = try PostgresStorage(configuration: configuration)
            for tenant in ["a", "b", "x"] { try await storage.transaction(tenant: tenant) { try $0.write(.saveAccount(Account(id: tenant, storefront: "USA"))) } }
            let logger = PostgresStorage.silentLogger
            let outcomes = try await withConnection(configuration) { other in
                // Another server holds "a" throughout: the group of "a" and "b" that waited behind "x" waits for it.
                try await other.query("BEGIN", logger: logger)
                try await other.query("SELECT * FROM tenant WHERE id = 'a' FOR UPDATE", logger: logger)
                let outcomes = try await withConnection(configuration) { holder in
                    try await transactionsQueuedBehindALock(["x", "a", "b"], on: storage, holder: holder)
                }
                try await other.query("ROLLBACK", logger: logger)
                return outcomes
            }
            #expect(try outcomes[0]!.get() == TransactionRecord.firstID)
            #expect(throws: StoreError.self) { try outcomes[1]!.get() }
            #expect(try outcomes[2]!.get() == TransactionRecord.firstID)
            #expect(try await storage.read(tenant: "b") { try $0.transactions(matching: TransactionQuery()).map(\.id) } == [TransactionRecord.firstID])
            #expect(try await storage.read(tenant: "a") { try $0.transactions(matching: TransactionQuery()) }.isEmpty)
        }
    }

    @Test("A refusal after a read that sent the rows of the transactions before it leaves those rows, and nobody runs again")
    func refusalAfterSendingOthersRows() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "a", storefront: "USA"))) }
            let runs = RunOrder()
            let outcomes = try await queuedTransactions(6, on: storage, configuration) { index, transaction in
                runs.indices.withLock { $0.append(index) }
                // Reading the transactions sends those the ones before wrote, still gathering.
                let seen = try transaction.transactions(matching: TransactionQuery()).count
                try transaction.write(.saveTransaction(record(try transaction.allocateTransactionID())))
                if index == 3 { throw StoreError.invalidTransactionState("refused by its body") }
                return seen
            }
            #expect(throws: StoreError.invalidTransactionState("refused by its body")) { try outcomes[3]!.get() }
            // Each saw the transactions of those that ran before it and committed, in the order they ran.
            let order = runs.indices.withLock { $0 }
            #expect(order.count == 6, "nobody ran twice: \(order)")
            let committedBefore = order.map { index in order.prefix { $0 != index }.filter { $0 != 3 }.count }
            #expect(order.indices.filter { order[$0] != 3 }.allSatisfy { (try? outcomes[order[$0]]?.get()) == committedBefore[$0] }, "\(order) \(outcomes)")
            let stored = try await storage.read(tenant: "t") { try $0.transactions(matching: TransactionQuery()).map(\.id) }
            #expect(stored == (0..<5).map { TransactionRecord.firstID + UInt64($0) })
        }
    }

    @Test("A read ends its transaction without waiting for the COMMIT: on one connection, reads and writes alternate, each read sees the write before it, and no transaction is left open")
    func readsEndTheirTransactions() async throws {
        try await withSchema(maximumConnections: 1) { configuration in
            var configuration = configuration
            // Other tests' connections, which may be in a transaction, are told apart by name.
            configuration.applicationName = "reads-end-" + UUID().uuidString.prefix(8)
            let storage = try PostgresStorage(configuration: configuration)
            for index in 0..<30 {
                try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "a\(index)", storefront: "USA"))) }
                #expect(try await storage.read(tenant: "t") { try $0.accounts().count } == index + 1)
            }
            // The storage's one connection is idle, not idle in a transaction, once the last COMMIT is answered.
            let deadline = ContinuousClock.now + .seconds(10)
            var open = -1
            while open != 0, ContinuousClock.now < deadline {
                open = try await withConnection(configuration) { connection in
                    try await connection.query(
                        "SELECT count(*)::int FROM pg_stat_activity WHERE application_name = \(configuration.applicationName) AND state LIKE 'idle in transaction%'",
                        logger: PostgresStorage.silentLogger
                    ).collect().first?.decode(Int.self) ?? -1
                }
                if open != 0 { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(open == 0)
            await storage.close()
        }
    }

    @Test("Erasing a tenant before reading anything restarts its identifiers, and writers that allocate without reading take turns")
    func writesBeforeAnyReadKeepTheCount() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            #expect(try await storage.transaction(tenant: "t") { try $0.allocateTransactionID() } == TransactionRecord.firstID)
            let (first, second) = try await storage.transaction(tenant: "t") { transaction in
                try transaction.write(.eraseTenant)
                return (try transaction.allocateTransactionID(), try transaction.allocateTransactionID())
            }
            #expect([first, second] == [TransactionRecord.firstID, TransactionRecord.firstID + 1])
            // Writers on two handles, none reading: each waits for the lock, so the counter goes up by one each time.
            let other = try PostgresStorage(configuration: configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    let handle = index.isMultiple(of: 2) ? storage : other
                    group.addTask {
                        try await handle.transaction(tenant: "t") { transaction in
                            try transaction.write(.saveTransaction(record(try transaction.allocateTransactionID())))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let ids = try await other.read(tenant: "t") { try $0.transactions(matching: TransactionQuery()).map(\.id) }
            #expect(ids == Array(TransactionRecord.firstID + 2...TransactionRecord.firstID + 21))
        }
    }

    @Test("A read sees one snapshot: what another connection commits while it runs stays out of it")
    func readsSeeOneSnapshot() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            try await storage.transaction(tenant: "t") { try $0.write(.saveTransaction(record(1))) }
            let body = try RowJSONEncoder().encode(record(2))
            let (before, after) = try await withConnection(configuration) { writer in
                try await storage.read(tenant: "t") { reader in
                    let before = try reader.transactions(matching: TransactionQuery()).map(\.id)
                    // Another server commits a transaction between two reads of this one (the read runs on a storage
                    // thread, where waiting for an answer is allowed).
                    _ = try writer.query(
                        "INSERT INTO store_transaction (tenant, id, original_id, account_id, bundle_id, product_id, body) VALUES ('t', 2, 2, 'a', 'app', 'premium', \(body))",
                        logger: PostgresStorage.silentLogger
                    ).wait()
                    return (before, try reader.transactions(matching: TransactionQuery()).map(\.id))
                }
            }
            #expect(before == [1])
            #expect(after == [1])
            #expect(try await storage.read(tenant: "t") { try $0.transactions(matching: TransactionQuery()).map(\.id) } == [1, 2])
        }
    }

    @Test("Identifiers come from the tenant's row: a storage opened later, as another server, continues the count")
    func identifiersContinueAcrossStorages() async throws {
        try await withSchema { configuration in
            let first = try PostgresStorage(configuration: configuration)
            let allocated = try await first.transaction(tenant: "t") { transaction in
                [try transaction.allocateTransactionID(), try transaction.allocateTransactionID()]
            }
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await first.transaction(tenant: "t") { transaction in
                    _ = try transaction.allocateTransactionID()
                    throw Refused()
                }
            }
            await first.close()
            let second = try PostgresStorage(configuration: configuration)
            #expect(allocated == [TransactionRecord.firstID, TransactionRecord.firstID + 1])
            #expect(try await second.transaction(tenant: "t") { try $0.allocateTransactionID() } == TransactionRecord.firstID + 2)
            #expect(try await second.read(tenant: "t") { try $0.snapshot().nextTransactionID } == TransactionRecord.firstID + 3)
        }
    }

    @Test("A closed storage refuses operations with a message saying so")
    func closedStorage() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            try await storage.transaction(tenant: "t") { try $0.write(.saveAccount(Account(id: "a", storefront: "USA"))) }
            await storage.close()
            await #expect {
                try await storage.read(tenant: "t") { try $0.accounts() }
            } throws: { error in
                ((error as? StoreError)?.message ?? "").contains("was closed")
            }
        }
    }

    @Test("Reads cannot write or allocate identifiers")
    func readsAreReadOnly() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            await #expect(throws: StoreError.self) {
                try await storage.read(tenant: "t") { reader in try (reader as? any StorageTransaction)?.allocateTransactionID() }
            }
            await #expect(throws: StoreError.self) {
                try await storage.read(tenant: "t") { reader in try (reader as? any StorageTransaction)?.write(.eraseTenant) }
            }
        }
    }

    @Test("The clock state is read synchronously, for a store being opened")
    func clockStateIsReadSynchronously() async throws {
        try await withSchema { configuration in
            let storage = try PostgresStorage(configuration: configuration)
            #expect(try storage.clockState(tenant: "t") == StoreClockState())
            try await storage.transaction(tenant: "t") { try $0.write(.saveClockState(StoreClockState(offset: 42, timeRate: .oneRenewalEveryTenSeconds))) }
            #expect(try storage.clockState(tenant: "t") == StoreClockState(offset: 42, timeRate: .oneRenewalEveryTenSeconds))
        }
    }

    @Test("A wrong password is refused with the user to check, and the password appears nowhere")
    func wrongPassword() throws {
        var configuration = try PostgresTestDatabase.freshConfiguration()
        configuration.password = "not-the-password"
        #expect {
            _ = try PostgresStorage(configuration: configuration)
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return message.contains("refused the login of \(configuration.username)") && message.contains("password") && !message.contains("not-the-password")
        }
    }

    @Test("A database that does not exist is named, with the command that creates it")
    func missingDatabase() throws {
        var configuration = try PostgresTestDatabase.freshConfiguration()
        configuration.database = "no_such_database"
        #expect {
            _ = try PostgresStorage(configuration: configuration)
        } throws: { error in
            ((error as? StoreError)?.message ?? "").contains("createdb -O \(configuration.username) no_such_database")
        }
    }

    @Test("A server that does not answer is named, with how to check it")
    func unreachableServer() throws {
        var configuration = try PostgresTestDatabase.freshConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 1
        #expect {
            _ = try PostgresStorage(configuration: configuration)
        } throws: { error in
            let message = (error as? StoreError)?.message ?? ""
            return message.contains("Cannot reach PostgreSQL") && message.contains("pg_isready -h 127.0.0.1 -p 1")
        }
    }
}

/// Errors collected from several threads.
final class Failures: Sendable {
    private let list = Mutex<[String]>([])

    func add(_ message: String) { list.withLock { $0.append(message) } }

    var messages: [String] { list.withLock { $0 } }
}

/// The indices of transaction bodies in the order they ran, shared by the tasks that run them.
private final class RunOrder: Sendable {
    let indices = Mutex<[Int]>([])
}
