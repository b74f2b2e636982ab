@testable import AppStoreEngine
import AppStoreFormats
import AppStoreHosting
@testable import AppStorePostgres
import AppStoreServer
import AppStoreSQLite
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import StoreKitConfiguration
import Testing

/// A server run as services of a `ServiceGroup`: the stores' work (notification senders, metrics) runs for every store
/// the server opens, and a graceful shutdown stops the listeners before the senders, which finish what they started.
@Suite("Store service")
struct StoreServiceTests {
    static let bundleID = "com.example.demo"
    static let catalog = Catalog(products: [CatalogProduct(id: "coins", type: .consumable, price: 1)])

    static func makeEngine(tenant: String = StoreDefaults.tenant) -> StoreEngine {
        StoreEngine(tenantID: tenant, catalog: catalog, storage: InMemoryStorage(), clock: SystemClock(), signer: .ephemeral)
    }

    /// The server's services in a group of the test's own, running; returns the group and the HTTP port.
    static func run(_ server: StoreServer) async throws -> (ServiceGroup, Task<Void, any Error>, port: Int) {
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let services = try await server.services(onListening: { _, port in listening.yield(port) })
        let group = ServiceGroup(services: services, logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return (group, running, port)
    }

    /// The server's tenant opened on the PostgreSQL database at `url` as `storekit serve` opens it: a handle of its
    /// own on the connections every store of the process shares for that URL.
    static func postgresStore(_ url: String, directory: URL) throws -> (StoreEngine, PostgresStorage) {
        let opened = try PostgresDatabase().open(url, in: StoreDataDirectory(url: directory), tenant: StoreDefaults.tenant)
        let storage = try #require(opened.storage as? PostgresStorage)
        return (StoreEngine(catalog: catalog, storage: storage, clock: SystemClock(), signer: .ephemeral), storage)
    }

    static func purchase(port: Int, path: String = "") async throws -> Int {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)/control/purchases")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"productId": "coins", "bundleId": "\#(bundleID)"}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test("A graceful shutdown closes the listeners while a notification attempt is under way, then the attempt finishes and is saved, and nothing is sent afterwards")
    func shutdownOrder() async throws {
        let receiver = try await HeldReceiver.start()
        defer { receiver.stop() }
        let engine = Self.makeEngine()
        let sender = NotificationSender(engine: engine, destinations: NotificationDestinations(defaultURL: receiver.url))
        let server = StoreServer(engine: engine, port: 0, notificationSender: sender)
        let (group, running, port) = try await Self.run(server)

        #expect(try await Self.purchase(port: port) == 200)
        await receiver.waitForRequests(1)
        await group.triggerGracefulShutdown()

        // The attempt is still held, yet the listener no longer accepts: it shut down first.
        var refused = false
        for _ in 0..<100 where !refused {
            refused = (try? await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/health")!)) == nil
            if !refused { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(refused, "the listener still answers while the sender's attempt is held")
        #expect(try await engine.notifications().first?.delivery.attempts.isEmpty == true, "the attempt is not saved before it is answered")

        receiver.release()
        try await running.value
        let delivered = try #require(try await engine.notifications().first)
        #expect(delivered.delivery.state == .delivered)
        #expect(delivered.delivery.attempts.map(\.result) == ["SUCCESS"])

        // The senders stopped with the server: a purchase made afterwards is recorded, and not sent.
        _ = try await engine.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        try await Task.sleep(for: .seconds(NotificationSender.pickupInterval + 1))
        #expect(receiver.requestCount == 1)
        #expect(try await engine.notifications().last?.delivery.attempts.isEmpty == true)
    }

    @Test(
        "A graceful shutdown closes the server's PostgreSQL handles last; another store in the process keeps the shared connections until it closes its own",
        .enabled(if: PostgresTestDatabase.isConfigured, "OPENSTOREKIT_TEST_POSTGRES_URL is unset: run export OPENSTOREKIT_TEST_POSTGRES_URL=$(bash .ci/postgres)")
    )
    func shutdownClosesStorage() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-service-pg-\(UUID().uuidString)")
        defer {
            try? PostgresTestDatabase.dropSchema(of: configuration)
            try? FileManager.default.removeItem(at: directory)
        }
        let url = PostgresTestDatabase.url(of: configuration)
        func store() throws -> (StoreEngine, PostgresStorage) { try Self.postgresStore(url, directory: directory) }
        let (served, servedStorage) = try store()
        let (other, otherStorage) = try store()
        #expect(servedStorage !== otherStorage && servedStorage.connections === otherStorage.connections, "one set of connections per URL, a handle per store")

        let (group, running, port) = try await Self.run(StoreServer(engine: served, port: 0))
        #expect(try await Self.purchase(port: port) == 200)
        await group.triggerGracefulShutdown()
        try await running.value

        await #expect(throws: StoreError.self, "the server closed its store's storage") {
            try await served.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        }
        _ = try await other.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        #expect(try await other.transactions().count == 2, "the other store sees the server's purchase and its own")
        #expect(!otherStorage.connections.isClosed)

        await otherStorage.close()
        #expect(otherStorage.connections.isClosed, "the last handle closed the connections")
        let (reopened, _) = try store()
        #expect(try await reopened.transactions().count == 2, "a store opened afterwards has connections of its own")
    }

    @Test(
        "On PostgreSQL, a store whose sender hears the other servers' commits sends to the destinations it sets itself and to those another server sets, from the next notification on",
        .enabled(if: PostgresTestDatabase.isConfigured, "OPENSTOREKIT_TEST_POSTGRES_URL is unset: run export OPENSTOREKIT_TEST_POSTGRES_URL=$(bash .ci/postgres)"),
        .timeLimit(.minutes(1)) // a notification sent elsewhere leaves its receiver waiting
    )
    func keptDestinationsFollowChanges() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-destinations-pg-\(UUID().uuidString)")
        defer {
            try? PostgresTestDatabase.dropSchema(of: configuration)
            try? FileManager.default.removeItem(at: directory)
        }
        // Two handles on one database, as two servers have; only the first sends.
        func store() throws -> (StoreEngine, PostgresStorage) {
            try Self.postgresStore(PostgresTestDatabase.url(of: configuration), directory: directory)
        }
        let (sending, sendingStorage) = try store()
        let (other, otherStorage) = try store()
        defer { Task { await sendingStorage.close(); await otherStorage.close() } }
        var receivers: [HeldReceiver] = []
        for _ in 0..<3 {
            let receiver = try await HeldReceiver.start()
            receiver.release()
            receivers.append(receiver)
        }
        defer { receivers.forEach { $0.stop() } }
        let sender = NotificationSender(engine: sending, destinations: NotificationDestinations())
        await sender.start()
        defer { Task { await sender.stop() } }

        // The other server's purchase reaches the sender by PostgreSQL's signal: from then on it keeps what it read.
        try await other.setNotificationDestinations(NotificationDestinations(defaultURL: receivers[0].url))
        _ = try await other.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        await receivers[0].waitForRequests(1)
        while await !sending.hearsChangesElsewhere { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await sending.notificationDestinations()?.defaultURL == receivers[0].url)

        try await sender.setDestinations(NotificationDestinations(defaultURL: receivers[1].url))
        _ = try await sending.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        await receivers[1].waitForRequests(1)

        try await other.setNotificationDestinations(NotificationDestinations(defaultURL: receivers[2].url))
        _ = try await sending.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        await receivers[2].waitForRequests(1)
        await sender.stop()
        #expect(receivers.map(\.requestCount) == [1, 1, 1], "each notification went to the destinations in force when it was sent")
        #expect(try await sending.notifications().map(\.delivery.state) == [.delivered, .delivered, .delivered])
    }

    @Test("A graceful shutdown stops waking the server's stores for their renewals")
    func shutdownStopsWakes() async throws {
        let wakeups = StoreWakeups()
        let monthly = CatalogProduct(
            id: "monthly", type: .autoRenewable, price: 2,
            subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
        )
        let engine = StoreEngine(
            catalog: Catalog(products: [monthly]), storage: InMemoryStorage(), clock: SystemClock(), signer: .ephemeral, wakeups: wakeups
        )
        _ = try await engine.purchase(PurchaseRequest(productID: "monthly", bundleID: Self.bundleID))
        #expect(wakeups.waitingStores == 1, "the store waits to renew in a month")

        let (group, running, _) = try await Self.run(StoreServer(engine: engine, port: 0))
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(wakeups.waitingStores == 0)
        _ = try await engine.purchase(PurchaseRequest(productID: "monthly", accountID: "second", bundleID: Self.bundleID))
        #expect(wakeups.waitingStores == 0, "a store of a server that shut down asks for no more wakes")
    }

    @Test("A tenant the server opens while it runs joins its work: its notifications are sent and its purchases counted at /metrics")
    func tenantsJoinTheWork() async throws {
        let receiver = try await HeldReceiver.start()
        defer { receiver.stop() }
        receiver.release()
        let destinations = NotificationDestinations(defaultURL: receiver.url)
        var server = StoreServer(engine: Self.makeEngine(), port: 0)
        server.metrics = StoreMetrics()
        server.tenants = TenantDirectory(serverTenant: StoreDefaults.tenant) { name, _ in
            // The opener only makes the store and its sender: the server starts them.
            let engine = Self.makeEngine(tenant: name)
            return TenantDirectory.Tenant(engine: engine, notificationSender: NotificationSender(engine: engine, destinations: destinations))
        }
        let (group, running, port) = try await Self.run(server)

        #expect(try await Self.purchase(port: port, path: "/t/shop") == 200)
        await receiver.waitForRequests(1)
        let (body, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        let metrics = String(decoding: body, as: UTF8.self)
        #expect(metrics.contains(#"openstorekit_purchases_total{tenant="shop",result="purchased"} 1"#), "\(metrics)")

        await group.triggerGracefulShutdown()
        try await running.value
    }
}

/// A started notification sender on a SQLite data directory, which signals no other process's change.
@Suite("Notification sender without destinations")
struct SenderWithoutDestinationsTests {
    @Test(
        "A sender that found no destination does not read them again for every purchase, yet takes a URL another process stored within its pickup interval, and sends everything waiting",
        .timeLimit(.minutes(1))
    )
    func urlStoredByAnotherProcess() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-sender-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("store.sqlite")
        let receiver = try await HeldReceiver.start()
        defer { receiver.stop() }
        receiver.release()

        let engine = StoreEngine(catalog: StoreServiceTests.catalog, storage: try SQLiteStorage(url: database), clock: SystemClock(), signer: .ephemeral)
        let sender = NotificationSender(engine: engine, destinations: NotificationDestinations())
        await sender.start()
        defer { Task { await sender.stop() } }
        let purchase = PurchaseRequest(productID: "coins", bundleID: StoreServiceTests.bundleID)
        _ = try await engine.purchase(purchase)
        // A pass that found nowhere to send: the notification waits.
        await sender.deliverDue()
        #expect(try await engine.pendingNotificationCount(limit: 10) == 1)

        // Another process stores a URL in the same data directory: nothing tells this one.
        let other = StoreEngine(catalog: StoreServiceTests.catalog, storage: try SQLiteStorage(url: database), clock: SystemClock(), signer: .ephemeral)
        try await other.setNotificationDestinations(NotificationDestinations(defaultURL: receiver.url))

        // The next purchase's pass comes within the interval of the last read, and skips reading; the sender then
        // wakes at the interval's end, reads the URL, and sends both.
        _ = try await engine.purchase(purchase)
        await receiver.waitForRequests(2)
        #expect(receiver.requestCount == 2)
        while try await engine.pendingNotificationCount(limit: 10) > 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await engine.notifications().allSatisfy { $0.delivery.state == .delivered })
    }
}

/// An app server's notification endpoint on loopback that counts what it receives and, until ``release()``, holds
/// each answer: a notification attempt stays under way for as long as the test wants.
final class HeldReceiver: Sendable {
    let url: URL
    private let counter: Counter
    private let gate: Gate
    private let task: Task<Void, any Error>

    private init(url: URL, counter: Counter, gate: Gate, task: Task<Void, any Error>) {
        self.url = url
        self.counter = counter
        self.gate = gate
        self.task = task
    }

    /// Starts a receiver on a free port.
    static func start() async throws -> HeldReceiver {
        let gate = Gate()
        let counter = Counter()
        let router = Router()
        router.post("notifications") { _, _ -> HTTPResponse.Status in
            counter.increment()
            await gate.wait()
            return .ok
        }
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in listening.yield(channel.localAddress?.port ?? 0) },
            logger: Self.quietLogger
        )
        let task = Task { try await application.runService() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        return HeldReceiver(url: URL(string: "http://127.0.0.1:\(port)/notifications")!, counter: counter, gate: gate, task: task)
    }

    /// A logger that reports only what stops the receiver: its cancellation at the end of a test is expected.
    static let quietLogger = {
        var logger = Logger(label: "test.receiver")
        logger.logLevel = .critical
        return logger
    }()

    /// How many notifications arrived.
    var requestCount: Int { counter.value }

    /// Returns once `count` notifications arrived, or when the task is cancelled (a test's time limit).
    func waitForRequests(_ count: Int) async {
        while counter.value < count, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
    }

    /// Answers every held and later notification at once.
    func release() {
        Task { await gate.open() }
    }

    func stop() {
        task.cancel()
    }

    final class Counter: Sendable {
        private let count = Atomic(0)
        var value: Int { count.load(ordering: .relaxed) }
        func increment() { count.add(1, ordering: .relaxed) }
    }

    /// Holds its waiters until opened.
    actor Gate {
        private var isOpen = false
        private var waiters: [CheckedContinuation<Void, Never>] = []

        func wait() async {
            guard !isOpen else { return }
            await withCheckedContinuation { waiters.append($0) }
        }

        func open() {
            isOpen = true
            for waiter in waiters { waiter.resume() }
            waiters.removeAll()
        }
    }
}
