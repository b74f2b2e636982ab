import AppStoreFormats
import AppStoreEngine
import AppStoreSQLite
import Foundation
import StoreKitConfiguration
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `storekit bench renewals`: how fast the engine renews subscriptions on a virtual clock.
///
/// Three figures: one subscriber through ten years of monthly renewals in memory (the clock fires each period end
/// in turn); many monthly subscribers in a SQLite store advanced one year (each period end renews them all in one
/// storage transaction), with a progress bar on a terminal; and the floor of that in the same run — as many
/// transaction and notification rows as the renewals wrote, inserted in one transaction into a fresh store — with
/// the renewals' time as a multiple of it.
struct RenewalBenchmark {
    let subscribers: Int

    static let product = CatalogProduct(
        id: "bench.monthly", type: .autoRenewable, price: Decimal(string: "4.99")!,
        subscription: SubscriptionTerms(groupID: "bench", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
    )
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    func run() async throws {
        try await oneSubscriberForTenYears()
        try await manySubscribersForOneYear()
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

    private func manySubscribersForOneYear() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = VirtualClock(start: Self.start)
        let engine = StoreEngine(
            catalog: Catalog(products: [Self.product]), storage: try SQLiteStorage(url: directory.appendingPathComponent("store.sqlite")),
            clock: clock, signer: .ephemeral
        )
        let setup = try await Self.measure {
            for index in 0..<subscribers {
                _ = try await engine.purchase(PurchaseRequest(productID: Self.product.id, accountID: "subscriber-\(index)", bundleID: "com.example.bench"))
                if (index + 1) % 10_000 == 0 { Self.progress("subscribed \(index + 1) of \(subscribers)") }
            }
        }
        print("renewals-setup: \(subscribers) subscriptions bought in \(Self.format(setup)) s (SQLite)")
        let target = Calendar.gregorianUTC.date(byAdding: .year, value: 1, to: Self.start)!
        let cpuBefore = Self.processCPUSeconds()
        let progress = Self.showProgress(of: clock, from: Self.start, to: target)
        let elapsed = try await Self.measure { try await clock.advance(to: target) }
        progress.cancel()
        _ = await progress.value
        let cpu = Self.processCPUSeconds() - cpuBefore
        let sample = try await engine.transactions(TransactionQuery(accountID: "subscriber-0"))
        guard sample.count - 1 == 12, let renewal = sample.last, renewal.origin == .renewal else {
            throw FormatsCLI.failure("Expected 12 renewals in a year, found \(sample.count - 1).")
        }
        let renewals = subscribers * 12
        print("renewals-many-subscribers: \(renewals) renewals of \(subscribers) subscribers over 1 year in \(Self.format(elapsed)) s = \(String(format: "%.0f", Double(renewals) / elapsed))/s (SQLite; \(Self.format(cpu)) s of CPU)")
        let notice = try await engine.notifications(NotificationQuery(startDate: renewal.purchaseDate, limit: 1)).first
        guard let notice, notice.type == .didRenew else { throw FormatsCLI.failure("Expected a DID_RENEW notification at \(renewal.purchaseDate).") }
        let floor = try await Self.bareInsert(renewals: renewals, like: renewal, notice, in: directory.appendingPathComponent("floor.sqlite"))
        print("renewals-floor: \(renewals) transaction rows and \(renewals) notification rows inserted in one transaction in \(Self.format(floor)) s (SQLite, a fresh store); renewals took \(String(format: "%.1f", elapsed / floor))x that")
    }

    /// The floor the renewals are measured against: as many transaction and notification rows as they wrote, each like
    /// `renewal` and `notice` (the first renewal's rows) but for its own subscriber and period, written through the
    /// storage's own transaction — so encoded as it encodes them — in one transaction into a fresh store.
    private static func bareInsert(renewals: Int, like renewal: TransactionRecord, _ notice: NotificationRecord, in url: URL) async throws -> Double {
        let storage = try SQLiteStorage(url: url)
        let subscribers = renewals / 12
        let firstID = TransactionRecord.firstID + UInt64(subscribers)
        let periodEnds = (1...13).map { Calendar.gregorianUTC.date(byAdding: .month, value: $0, to: start)! }
        return try await measure {
            try await storage.transaction(tenant: "floor") { transaction in
                for index in 0..<renewals {
                    let (period, subscriber) = index.quotientAndRemainder(dividingBy: subscribers)
                    var row = renewal
                    row.id = firstID + UInt64(index)
                    row.originalID = TransactionRecord.firstID + UInt64(subscriber)
                    row.accountID = "subscriber-\(subscriber)"
                    row.purchaseDate = periodEnds[period]
                    row.expiresDate = periodEnds[period + 1]
                    var subscription = notice.subscription
                    subscription?.id = row.originalID
                    subscription?.accountID = row.accountID
                    subscription?.latestTransactionID = row.id
                    subscription?.periodStartDate = row.purchaseDate
                    subscription?.expiresDate = periodEnds[period + 1]
                    try transaction.write(.saveTransaction(row))
                    try transaction.write(.saveNotification(NotificationRecord(
                        type: notice.type, date: row.purchaseDate, accountID: row.accountID, bundleID: row.bundleID,
                        transactionID: row.id, originalTransactionID: row.originalID, subscription: subscription
                    )))
                }
            }
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
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        let elapsed = start.duration(to: clock.now)
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
