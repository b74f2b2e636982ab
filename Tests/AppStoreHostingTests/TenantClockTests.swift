import AppStoreEngine
import AppStoreFormats
import AppStoreHosting
import Foundation
import StoreKitConfiguration
import Synchronization
import Testing

/// A base clock that stands still at a fixed date unless the test moves it: "wall time" without the wall.
final class StillClock: StoreClock {
    private let date: Mutex<Date>
    init(_ date: Date) { self.date = Mutex(date) }
    func now() -> Date { date.withLock { $0 } }
    func pass(_ seconds: TimeInterval) { date.withLock { $0.addTimeInterval(seconds) } }
}

/// Stores opened from a data directory run on the tenant's persisted clock.
@Suite("Persisted store clocks")
struct TenantClockTests {
    init() { StoreFactory.registerTestDatabases() }

    /// 2026-01-15T12:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let monthly = "com.example.demo.plus.monthly"

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-clock-\(UUID().uuidString)")
    let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/Demo.storekit")
    let wall = StillClock(TenantClockTests.start)

    func open(tenant: String = StoreDefaults.tenant, configured: Bool = true) throws -> StoreEngine {
        try StoreFactory.open(StoreSpecification(
            location: .dataDirectory(StoreDataDirectory(url: directory)),
            configuration: configured ? try StoreKitConfigurationFile.load(contentsOf: demo) : nil,
            tenant: tenant, clock: wall
        ))
    }

    func months(_ count: Int, after date: Date = TenantClockTests.start) -> Date {
        Calendar.gregorianUTC.date(byAdding: .month, value: count, to: date)!
    }

    /// The Demo monthly plan starts with a one-week free trial; its renewals follow monthly from the trial's end.
    var trialEnd: Date { Self.start.addingTimeInterval(7 * 86_400) }

    func renewals(_ store: StoreEngine) async throws -> [TransactionRecord] {
        try await store.transactions().filter { $0.origin == .renewal }
    }

    @Test("Advancing the clock three months renews a monthly subscription three times, each at its period's end, and a later open sees the moved clock")
    func advanceRenewsAndPersists() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try open()
        #expect(store.clock is TenantClock)
        let bought = try await store.purchase(PurchaseRequest(productID: Self.monthly, bundleID: StoreDefaults.bundleID))
        try await store.advanceClock(to: months(3).addingTimeInterval(60))

        let renewed = try await renewals(store)
        #expect(renewed.map(\.purchaseDate) == [trialEnd, months(1, after: trialEnd), months(2, after: trialEnd)])
        #expect(renewed.allSatisfy { $0.originalID == bought.id })
        #expect(store.clock.now() == months(3).addingTimeInterval(60))

        let reopened = try open()
        #expect(reopened.clock.now() == months(3).addingTimeInterval(60))
        #expect(try await reopened.clockState().offset == months(3).addingTimeInterval(60).timeIntervalSince(Self.start))
        wall.pass(30)
        #expect(reopened.clock.now() == months(3).addingTimeInterval(90), "the clock keeps running with wall time")
        #expect(try await renewals(reopened).count == 3)
    }

    @Test("Advancing by seconds moves the clock relative to its now, and twice adds up")
    func advanceByAddsUp() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try open()
        try await store.advanceClock(by: 86_400)
        try await store.advanceClock(by: 3_600)
        #expect(store.clock.now() == Self.start.addingTimeInterval(90_000))
        #expect(try await open().clockState().offset == 90_000)
    }

    @Test("The clock never goes back: an earlier date or a negative interval throws with a way out, and nothing changes")
    func forwardOnly() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try open()
        try await store.advanceClock(by: 3_600)
        do {
            try await store.advanceClock(to: Self.start)
            Issue.record("went back")
        } catch {
            #expect(error == .clockCannotGoBack)
            #expect(error.message.contains("only moves forward"))
            #expect(error.message.contains("another tenant"))
        }
        await #expect(throws: StoreError.clockCannotGoBack) { try await store.advanceClock(by: -1) }
        #expect(store.clock.now() == Self.start.addingTimeInterval(3_600))
        #expect(try await open().clockState().offset == 3_600)
    }

    @Test("Two tenants of one data directory have independent clocks")
    func tenantsAreIndependent() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try open(tenant: "first")
        try await first.advanceClock(by: 86_400)
        try await first.setTimeRate(.oneRenewalEveryMinute)
        let second = try open(tenant: "second")
        #expect(second.clock.now() == Self.start)
        #expect(try await second.clockState() == StoreClockState())
        #expect(await second.settings.timeRate == .realTime)
        #expect(try open(tenant: "first").clock.now() == Self.start.addingTimeInterval(86_400))
    }

    @Test("A chosen time rate is stored, replaces the configuration's in later opens and shortens new periods")
    func timeRateOverride() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try open()
        try await store.setTimeRate(.oneRenewalEveryTenSeconds)
        #expect(await store.settings.timeRate == .oneRenewalEveryTenSeconds)

        let reopened = try open()
        #expect(await reopened.settings.timeRate == .oneRenewalEveryTenSeconds)
        #expect(try await reopened.clockState().timeRate == .oneRenewalEveryTenSeconds)
        let bought = try await reopened.purchase(PurchaseRequest(productID: Self.monthly, bundleID: StoreDefaults.bundleID))
        #expect(bought.expiresDate == Self.start.addingTimeInterval(10))
        try await reopened.advanceClock(by: 35)
        #expect(try await renewals(reopened).map(\.purchaseDate) == [10, 20, 30].map { Self.start.addingTimeInterval($0) })

        try await reopened.setTimeRate(nil)
        let configuredAgain = try open()
        #expect(await configuredAgain.settings.timeRate == .realTime)
    }

    @Test("A store opened in another process picks up a moved clock at its next operation")
    func runningStoreFollowsStoredClock() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let running = try open()
        let terminal = try open()
        try await terminal.advanceClock(by: 86_400)
        let bought = try await running.purchase(PurchaseRequest(productID: "com.example.demo.coins.100", bundleID: StoreDefaults.bundleID))
        #expect(bought.purchaseDate == Self.start.addingTimeInterval(86_400))
        #expect(running.clock.now() == Self.start.addingTimeInterval(86_400))
    }

    @Test("A store opened without products moves its clock but leaves due renewals for one that knows the products")
    func unconfiguredStoreDefersEvents() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let bought = try await open().purchase(PurchaseRequest(productID: Self.monthly, bundleID: StoreDefaults.bundleID))
        let bare = try open(configured: false)
        try await bare.advanceClock(to: months(2).addingTimeInterval(1))
        let subscriptions = try await bare.subscriptions(accountID: StoreDefaults.accountID)
        #expect(subscriptions.map(\.status) == [.active], "not expired for want of a product")
        #expect(try await renewals(bare).isEmpty)

        let configured = try open()
        #expect(try await configured.subscription(forTransaction: bought.id).renewalCount == 2)
        #expect(try await renewals(configured).map(\.purchaseDate) == [trialEnd, months(1, after: trialEnd)])
    }

    @Test("A store on the bare system clock says it cannot move; a virtual clock moves as before")
    func otherClocks() async throws {
        let bare = StoreEngine(catalog: Catalog(products: []), storage: InMemoryStorage(), clock: SystemClock(), signer: .ephemeral)
        await #expect(throws: StoreError.clockCannotMove) { try await bare.advanceClock(by: 1) }

        let virtual = VirtualClock(start: Self.start)
        let tested = try StoreFactory.open(StoreSpecification(location: .memory, configuration: try StoreKitConfigurationFile.load(contentsOf: demo), clock: virtual))
        #expect(tested.clock is VirtualClock)
        _ = try await tested.purchase(PurchaseRequest(productID: Self.monthly, bundleID: StoreDefaults.bundleID))
        try await tested.advanceClock(to: months(2).addingTimeInterval(1))
        #expect(virtual.now() == months(2).addingTimeInterval(1))
        #expect(try await renewals(tested).count == 2)
    }
}
