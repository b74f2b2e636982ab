import AppStoreFormats
import AppStoreEngine
import AppStorePostgres
import AppStoreSQLite
import Foundation
import GRDB
import StoreKitConfiguration
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `storekit bench renewals`: how fast the engine renews subscriptions on a virtual clock.
///
/// One subscriber through ten years of monthly renewals in memory (the clock fires each period end in turn); then many
/// monthly subscribers in a SQLite store advanced one year (each period end renews them all in one storage
/// transaction), with a progress bar on a terminal, and the floor of that in the same run: SQLite itself copying the
/// transaction and notification rows the renewals wrote, bodies and all, into a fresh store with the same tables and
/// indexes in one transaction, with the renewals' time as a multiple of it. With a PostgreSQL URL, the same year again
/// in a schema of its own on that database, as a multiple of the SQLite time.
struct RenewalBenchmark {
    let subscribers: Int
    /// The PostgreSQL database to run the year on as well, or `nil`.
    let postgresURL: String?

    static let product = CatalogProduct(
        id: "bench.monthly", type: .autoRenewable, price: Decimal(string: "4.99")!,
        subscription: SubscriptionTerms(groupID: "bench", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
    )
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    /// Purchases made at once while subscribing: enough for the store's group commit to gather them.
    static let concurrentPurchases = 32

    func run() async throws {
        try await oneSubscriberForTenYears()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storeURL = directory.appendingPathComponent("store.sqlite")
        let onSQLite = try await manySubscribersForOneYear(on: try SQLiteStorage(url: storeURL), named: "SQLite")
        let floor = try Self.bareInsert(copyingRenewalsOf: storeURL, into: directory.appendingPathComponent("floor.sqlite"), subscribers: subscribers)
        print(
            "renewals-floor: \(floor.transactions) transaction rows and \(floor.notifications) notification rows inserted in one transaction in \(Self.format(floor.seconds)) s (SQLite copying the renewals' rows into a fresh store); renewals took \(String(format: "%.1f", onSQLite / floor.seconds))x that"
        )
        guard let postgresURL else { return }
        var configuration = try PostgresStorage.Configuration(url: postgresURL)
        configuration.schema = "bench_renewals_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let storage = try PostgresStorage(configuration: configuration)
        let onPostgres: Double
        do {
            onPostgres = try await manySubscribersForOneYear(on: storage, named: "PostgreSQL")
        } catch {
            await storage.close()
            try? PostgresStorage.dropSchema(of: configuration)
            throw error
        }
        await storage.close()
        try PostgresStorage.dropSchema(of: configuration)
        print("renewals-postgres: the year took \(String(format: "%.1f", onPostgres / onSQLite))x the SQLite time (schema \(configuration.schema!), dropped)")
    }

    private func oneSubscriberForTenYears() async throws {
        let clock = VirtualClock(start: Self.start)
        let engine = StoreEngine(catalog: Catalog(products: [Self.product]), storage: InMemoryStorage(), clock: clock, signer: .ephemeral)
        let purchase = try await engine.purchase(PurchaseRequest(productID: Self.product.id, bundleID: "com.example.bench"))
        let elapsed = try await Self.measure {
            try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .year, value: 10, to: Self.start)!)
        }
        let renewals = try await engine.transactions(TransactionQuery(originalID: purchase.id)).count - 1
        guard renewals == 120 else { throw FormatsCLI.failure("Expected 120 renewals in ten years, found \(renewals).") }
        print("renewals-one-subscriber: \(renewals) renewals over 10 years in \(Self.format(elapsed)) s (in memory)")
    }

    /// Subscribes ``subscribers`` accounts in `storage`, advances its clock a year, checks one subscriber's renewals
    /// and notifications, and returns the year's seconds.
    private func manySubscribersForOneYear(on storage: some Storage, named name: String) async throws -> Double {
        let clock = VirtualClock(start: Self.start)
        let engine = StoreEngine(catalog: Catalog(products: [Self.product]), storage: storage, clock: clock, signer: .ephemeral)
        let setup = try await Self.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<subscribers {
                    if index >= Self.concurrentPurchases { try await group.next() }
                    group.addTask {
                        _ = try await engine.purchase(PurchaseRequest(productID: Self.product.id, accountID: "subscriber-\(index)", bundleID: "com.example.bench"))
                    }
                    if (index + 1) % 10_000 == 0 { Self.progress("subscribed \(index + 1) of \(subscribers)") }
                }
                try await group.waitForAll()
            }
        }
        print("renewals-setup: \(subscribers) subscriptions bought in \(Self.format(setup)) s (\(name), \(Self.concurrentPurchases) at once)")
        let target = Calendar.gregorianUTC.date(byAdding: .year, value: 1, to: Self.start)!
        let cpuBefore = Self.processCPUSeconds()
        let progress = Self.showProgress(of: clock, from: Self.start, to: target)
        let elapsed = try await Self.measure { try await clock.advance(to: target) }
        progress.cancel()
        _ = await progress.value
        let cpu = Self.processCPUSeconds() - cpuBefore
        let sample = try await engine.transactions(TransactionQuery(accountID: "subscriber-0"))
        guard sample.count - 1 == 12, let renewal = sample.last, renewal.origin == .renewal else {
            throw FormatsCLI.failure("Expected 12 renewals in a year on \(name), found \(sample.count - 1).")
        }
        let notice = try await engine.notifications(NotificationQuery(startDate: renewal.purchaseDate, limit: 1)).first
        guard let notice, notice.type == .didRenew else {
            throw FormatsCLI.failure("Expected a DID_RENEW notification at \(renewal.purchaseDate) on \(name).")
        }
        let renewals = subscribers * 12
        print("renewals-many-subscribers: \(renewals) renewals of \(subscribers) subscribers over 1 year in \(Self.format(elapsed)) s = \(String(format: "%.0f", Double(renewals) / elapsed))/s (\(name); \(Self.format(cpu)) s of CPU)")
        return elapsed
    }

    /// The floor the renewals are measured against: the transaction and notification rows the year wrote into the
    /// store at `store` — those of transactions after the subscribers' purchases — copied by SQLite alone, in one
    /// transaction, into a fresh store at `url` (the same tables and indexes, the same page cache as the store's
    /// writer). Nothing of the engine or of Swift runs per row: this is what writing those rows costs SQLite.
    private static func bareInsert(copyingRenewalsOf store: URL, into url: URL, subscribers: Int) throws -> (transactions: Int, notifications: Int, seconds: Double) {
        _ = try SQLiteStorage(url: url)
        let database = try DatabaseQueue(path: url.path)
        return try database.writeWithoutTransaction { db in
            try SQLiteStorage.configureWriterCache(db)
            try db.execute(sql: "PRAGMA cache_size = -\(WriterCache.largeKilobytes)")
            try db.execute(sql: "ATTACH DATABASE ? AS renewed", arguments: [store.path])
            let firstRenewal = Int64(TransactionRecord.firstID) + Int64(subscribers)
            // Read once beforehand, so that the copy times SQLite's writing rather than the disk's reading.
            let transactions = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM renewed.storeTransaction WHERE id >= ? AND length(body) > 0", arguments: [firstRenewal]) ?? 0
            let notifications = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM renewed.notification WHERE transactionID >= ? AND length(body) > 0", arguments: [firstRenewal]) ?? 0
            let seconds = try measure {
                try db.inTransaction {
                    try db.execute(sql: """
                        INSERT INTO main.storeTransaction (tenant, id, originalID, accountID, bundleID, productID, idempotencyKey, body)
                        SELECT tenant, id, originalID, accountID, bundleID, productID, idempotencyKey, body FROM renewed.storeTransaction WHERE id >= ?
                        """, arguments: [firstRenewal])
                    try db.execute(sql: """
                        INSERT INTO main.notification (tenant, id, bundleID, transactionID, originalTransactionID, date, nextAttemptDate, body)
                        SELECT tenant, id, bundleID, transactionID, originalTransactionID, date, nextAttemptDate, body FROM renewed.notification
                        WHERE transactionID >= ? ORDER BY sequence
                        """, arguments: [firstRenewal])
                    return .commit
                }
            }
            return (transactions, notifications, seconds)
        }
    }

    /// Redraws a progress bar with the virtual clock's date, on standard error when it is a terminal, until cancelled.
    private static func showProgress(of clock: VirtualClock, from start: Date, to end: Date) -> Task<Void, Never> {
        Task {
            guard isatty(STDERR_FILENO) == 1 else { return }
            let bar = ProgressBar(title: "advancing the clock")
            let span = end.timeIntervalSince(start)
            while !Task.isCancelled {
                let now = clock.now()
                bar.show(fraction: now.timeIntervalSince(start) / span, detail: now.formatted(.iso8601))
                try? await Task.sleep(for: .milliseconds(200))
            }
            bar.show(fraction: clock.now().timeIntervalSince(start) / span, detail: clock.now().formatted(.iso8601))
            bar.finish()
        }
    }

    private static func measure(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        return seconds(since: start)
    }

    private static func measure(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return seconds(since: start)
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// CPU time of the whole process, every thread, user and system: on a shared machine it moves less than the wall
    /// clock, and a figure well below the wall time says the run waited for the disk.
    private static func processCPUSeconds() -> Double {
        Double(clock()) / Double(CLOCKS_PER_SEC)
    }

    private static func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }

    private static func progress(_ message: String) {
        FileHandle.standardError.write(Data("  \(message)\n".utf8))
    }
}
