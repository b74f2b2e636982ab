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
/// Two figures: one subscriber through ten years of monthly renewals in memory (the clock fires each period end
/// in turn), and many monthly subscribers in a SQLite store advanced one year (each period end renews them all
/// in one storage transaction).
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
        let cpuBefore = Self.processCPUSeconds()
        let elapsed = try await Self.measure {
            try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .year, value: 1, to: Self.start)!)
        }
        let cpu = Self.processCPUSeconds() - cpuBefore
        let sample = try await engine.transactions(TransactionQuery(accountID: "subscriber-0")).count - 1
        guard sample == 12 else { throw FormatsCLI.failure("Expected 12 renewals in a year, found \(sample).") }
        let renewals = subscribers * 12
        print("renewals-many-subscribers: \(renewals) renewals of \(subscribers) subscribers over 1 year in \(Self.format(elapsed)) s = \(String(format: "%.0f", Double(renewals) / elapsed))/s (SQLite; \(Self.format(cpu)) s of CPU)")
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
