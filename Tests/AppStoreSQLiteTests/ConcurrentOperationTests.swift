import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import Testing

/// Store operations racing each other on one store: from concurrent tasks on one engine, and from several
/// engines on two storage handles (two connection pools on one SQLite file, as two processes have).
@Suite("Concurrent store operations")
struct ConcurrentOperationTests {
    static let catalog = Catalog(products: [
        CatalogProduct(id: "coins", type: .consumable, price: Decimal(string: "0.99")!),
        CatalogProduct(id: "premium", type: .nonConsumable, price: Decimal(string: "4.99")!, isFamilyShareable: true),
    ])
    static let rounds = 5
    static let racers = 8

    /// Engines for one fresh tenant: half on each storage handle, plus each used from several tasks.
    func engines(on kind: StorageKind) throws -> (engines: [StoreEngine], cleanup: @Sendable () -> Void) {
        let (first, second, cleanup) = try kind.makeShared()
        let tenant = UUID().uuidString
        let clock = VirtualClock(start: Date(timeIntervalSince1970: 1_768_478_400))
        let engines = [first, first, second, second].map {
            StoreEngine(tenantID: tenant, catalog: Self.catalog, storage: $0, clock: clock, signer: .ephemeral)
        }
        return (engines, cleanup)
    }

    @Test("Racing purchases of one non-consumable make exactly one owner; the rest are uncharged repurchases", arguments: StorageKind.allCases)
    func oneOwner(kind: StorageKind) async throws {
        for _ in 0..<Self.rounds {
            let (engines, cleanup) = try engines(on: kind)
            defer { cleanup() }
            let bought = try await withThrowingTaskGroup(of: TransactionRecord.self) { group in
                for index in 0..<Self.racers {
                    let engine = engines[index % engines.count]
                    group.addTask { try await engine.purchase(PurchaseRequest(productID: "premium", accountID: "ana", bundleID: "app")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let stored = try await engines[0].transactions()
            #expect(stored.count == Self.racers)
            #expect(Set(stored.map(\.id)).count == Self.racers)
            #expect(stored.filter { $0.origin == .purchase }.count == 1)
            #expect(stored.filter { $0.origin == .repurchase }.count == Self.racers - 1)
            #expect(Set(stored.map(\.originalID)).count == 1)
            #expect(stored.reduce(Decimal(0)) { $0 + $1.amountCharged } == Decimal(string: "4.99")!)
            #expect(Set(bought.map(\.id)) == Set(stored.map(\.id)))
        }
    }

    @Test("Racing refunds of one transaction refund it once; every other attempt is told it is already refunded", arguments: StorageKind.allCases)
    func oneRefund(kind: StorageKind) async throws {
        for _ in 0..<Self.rounds {
            let (engines, cleanup) = try engines(on: kind)
            defer { cleanup() }
            let purchase = try await engines[0].purchase(PurchaseRequest(productID: "coins", accountID: "ana", bundleID: "app"))
            let outcomes = await withTaskGroup(of: Result<[TransactionRecord], StoreError>.self) { group in
                for index in 0..<Self.racers {
                    let engine = engines[index % engines.count]
                    group.addTask {
                        do throws(StoreError) { return .success(try await engine.refund(transactionID: purchase.id)) } catch { return .failure(error) }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let refunds = outcomes.compactMap { try? $0.get() }
            #expect(refunds.count == 1)
            let refused = outcomes.filter { outcome in
                if case .failure(let error) = outcome { error == .invalidTransactionState } else { false }
            }
            #expect(refused.count == Self.racers - 1)
            let stored = try await engines[1].transaction(purchase.id)
            #expect(stored.revocationDate != nil)
            #expect(refunds.first?.first == stored)
        }
    }

    @Test("Racing restores, finishes and purchases of consumables on one account lose nothing", arguments: StorageKind.allCases)
    func mixedOperations(kind: StorageKind) async throws {
        let (engines, cleanup) = try engines(on: kind)
        defer { cleanup() }
        let device = UUID()
        let premium = try await engines[0].purchase(PurchaseRequest(productID: "premium", accountID: "ana", bundleID: "app", deviceID: device))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<Self.racers {
                let engine = engines[index % engines.count]
                group.addTask {
                    let coins = try await engine.purchase(PurchaseRequest(productID: "coins", accountID: "ana", bundleID: "app", deviceID: device))
                    try await engine.finish(transactionID: coins.id, deviceID: device)
                    _ = try await engine.restoreCompletedTransactions(accountID: "ana", bundleID: "app", deviceID: device)
                }
            }
            try await group.waitForAll()
        }
        let stored = try await engines[0].transactions()
        #expect(stored.filter { $0.productID == "coins" }.count == Self.racers)
        #expect(stored.filter { $0.origin == .restore && $0.originalID == premium.id }.count == Self.racers)
        #expect(Set(stored.map(\.id)).count == stored.count)
        let unfinished = try await engines[3].unfinishedTransactions(accountID: "ana", bundleID: "app", deviceID: device)
        #expect(!unfinished.contains { $0.productID == "coins" })
    }

    @Test(
        "A store nobody ran for three months shows every renewal when opened; engines opening it at once renew once",
        arguments: StorageKind.allCases
    )
    func catchUpAfterThreeMonthsClosed(kind: StorageKind) async throws {
        let (first, second, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let start = Date(timeIntervalSince1970: 1_768_478_400)
        let catalog = Catalog(products: [
            CatalogProduct(
                id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
                subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
            ),
        ])
        for round in 0..<Self.rounds {
            let tenant = "catch-up-\(round)"
            let buyer = StoreEngine(tenantID: tenant, catalog: catalog, storage: first, clock: VirtualClock(start: start), signer: .ephemeral)
            let purchase = try await buyer.purchase(PurchaseRequest(productID: "monthly", bundleID: "app"))

            // Three months and a day later, several processes open the store at the same moment.
            let later = Calendar.gregorianUTC.date(byAdding: DateComponents(month: 3, day: 1), to: start)!
            let openers = (0..<Self.racers).map { index in
                StoreEngine(
                    tenantID: tenant, catalog: catalog, storage: index.isMultiple(of: 2) ? first : second,
                    clock: VirtualClock(start: later), signer: .ephemeral
                )
            }
            let seen = try await withThrowingTaskGroup(of: Int.self) { group in
                for opener in openers {
                    group.addTask { try await opener.transactions(TransactionQuery(originalID: purchase.id)).count }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(seen.allSatisfy { $0 == 4 }, "round \(round): each opener saw \(seen) transactions")
            let transactions = try await openers[0].transactions(TransactionQuery(originalID: purchase.id))
            #expect(transactions.map(\.origin) == [.purchase, .renewal, .renewal, .renewal])
            #expect(transactions.dropFirst().map(\.purchaseDate) == (1...3).map { Calendar.gregorianUTC.date(byAdding: .month, value: $0, to: start)! })
        }
    }

    @Test("Senders on several engines and two handles share the outbox: each notification attempted once, in order per original", arguments: StorageKind.allCases)
    func sendersShareTheOutbox(kind: StorageKind) async throws {
        let (first, second, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let start = Date(timeIntervalSince1970: 1_768_478_400)
        let catalog = Catalog(products: Self.catalog.products + [
            CatalogProduct(
                id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
                subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
            ),
        ])
        let tenant = UUID().uuidString
        let clock = VirtualClock(start: start)
        let buyer = StoreEngine(tenantID: tenant, catalog: catalog, storage: first, clock: clock, signer: .ephemeral)
        for index in 0..<6 {
            _ = try await buyer.purchase(PurchaseRequest(productID: "monthly", accountID: "subscriber-\(index)", bundleID: "app"))
            _ = try await buyer.purchase(PurchaseRequest(productID: "coins", accountID: "subscriber-\(index)", bundleID: "app"))
        }
        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 3, to: start)!)
        let written = try await buyer.notifications()
        #expect(written.count == 6 * 5)

        /// Each save, in the order they happened: which sender, which notification.
        actor Deliveries {
            var saved: [(sender: UUID, notification: NotificationRecord)] = []
            func append(_ sender: UUID, _ notification: NotificationRecord) { saved.append((sender, notification)) }
        }
        let deliveries = Deliveries()
        let wallClock = Date(timeIntervalSince1970: 1_800_000_000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<Self.racers {
                let engine = StoreEngine(
                    tenantID: tenant, catalog: catalog, storage: index.isMultiple(of: 2) ? first : second, clock: clock, signer: .ephemeral
                )
                group.addTask {
                    let sender = UUID()
                    while true {
                        let claimed = try await engine.claimDueNotifications(
                            limit: 3, for: sender, until: wallClock.addingTimeInterval(600), at: wallClock
                        )
                        if claimed.isEmpty, try await engine.nextNotificationAttemptDate(for: sender, at: wallClock) == nil { return }
                        for var notification in claimed {
                            notification.delivery.record(.init(date: clock.now(), result: "SUCCESS"))
                            await deliveries.append(sender, notification)
                            #expect(try await engine.saveDelivery(of: notification, by: sender))
                        }
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
        let saved = await deliveries.saved
        #expect(saved.count == written.count, "every notification attempted exactly once")
        #expect(Set(saved.map(\.notification.id)) == Set(written.map(\.id)))
        #expect(Set(saved.map(\.sender)).count > 1, "the senders shared the work")
        let writtenOrder = Dictionary(grouping: written, by: \.originalTransactionID).mapValues { $0.map(\.id) }
        let savedOrder = Dictionary(grouping: saved.map(\.notification), by: \.originalTransactionID).mapValues { $0.map(\.id) }
        #expect(savedOrder == writtenOrder, "each original's notifications went out in the order they were written")
        #expect(try await buyer.notifications().allSatisfy { $0.delivery.state == .delivered && $0.delivery.claim == nil })
    }
}
