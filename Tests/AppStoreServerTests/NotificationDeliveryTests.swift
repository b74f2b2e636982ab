import AppStoreEngine
import AppStoreFormats
import AppStoreServer
import AppStoreSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StoreKitConfiguration
import TestProcesses
import Testing

/// Server Notifications V2 sent to a receiver written with Apple's library: signed payloads it verifies, retries on
/// Apple's schedule measured on the store's clock, order per original transaction, nothing lost across a restart.
@Suite("Notification delivery")
struct NotificationDeliveryTests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let bundleID = "com.example.demo"
    static let catalog = Catalog(products: [
        CatalogProduct(id: "coins", type: .consumable, price: 1),
        CatalogProduct(id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
                       subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))),
    ])

    /// A receiver process: Apple's library behind a tiny HTTP server, its log, and the file that takes it down.
    struct Receiver {
        let process: ChildProcess
        let url: URL
        let log: URL
        let downFlag: URL

        /// The notifications it accepted, in arrival order.
        func received() throws -> [[String: Any]] {
            guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
            return try text.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
        }

        func setDown(_ down: Bool, failing failure: String = "503") throws {
            if down { try Data(failure.utf8).write(to: downFlag) } else { try? FileManager.default.removeItem(at: downFlag) }
        }
    }

    func startReceiver(in directory: URL, trusting engine: StoreEngine) async throws -> Receiver {
        var arguments = [
            ChildProcess.packageRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/notification_receiver.py").path,
            "--bundle-id", Self.bundleID, "--log", directory.appendingPathComponent("received.jsonl").path,
            "--down-flag", directory.appendingPathComponent("down").path,
        ]
        for (index, root) in try engine.signer.certificateAuthority.rootCertificatesDER.enumerated() {
            let file = directory.appendingPathComponent("root\(index).der")
            try root.write(to: file)
            arguments += ["--root", file.path]
        }
        let process = try ChildProcess.tool("python3", arguments)
        let line = try await process.waitForLine(containing: "listening on ")
        let port = try #require(line.split(separator: " ").last.map(String.init))
        return Receiver(
            process: process, url: URL(string: "http://127.0.0.1:\(port)/notifications")!,
            log: directory.appendingPathComponent("received.jsonl"), downFlag: directory.appendingPathComponent("down")
        )
    }

    func openStore(_ database: URL, at date: Date) throws -> (StoreEngine, VirtualClock) {
        let clock = VirtualClock(start: date)
        let engine = StoreEngine(catalog: Self.catalog, storage: try SQLiteStorage(url: database), clock: clock, signer: .ephemeral)
        return (engine, clock)
    }

    @Test("With the receiver down for two virtual days and the server restarted, every notification arrives, in order, verified by Apple's library")
    func retriesSurviveDowntimeAndRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-delivery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("store.sqlite")
        var (engine, clock) = try openStore(database, at: Self.start)
        let receiver = try await startReceiver(in: directory, trusting: engine)
        defer { receiver.process.terminate() }
        try receiver.setDown(true)

        var sender: NotificationSender? = NotificationSender(engine: engine, destinations: NotificationDestinations(defaultURL: receiver.url))
        let subscription = try await engine.purchase(PurchaseRequest(productID: "monthly", bundleID: Self.bundleID))
        let coins = try await engine.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        try await engine.setAutoRenew(subscription: subscription.id, enabled: false)
        await sender?.deliverDue()
        try await clock.advance(by: 2 * 86_400)

        var outbox = try await engine.notifications()
        #expect(outbox.map(\.summary) == ["SUBSCRIBED/INITIAL_BUY", "ONE_TIME_CHARGE", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED"])
        #expect(try receiver.received().isEmpty)
        // Tried at once, then 1, 12 and 24 hours after each previous attempt: 0 h, 1 h, 13 h, 37 h.
        let first = try #require(outbox.first)
        #expect(first.delivery.attempts.map(\.date) == [0, 1, 13, 37].map { Self.start.addingTimeInterval($0 * 3_600) })
        #expect(first.delivery.attempts.allSatisfy { $0.result == "UNSUCCESSFUL_HTTP_RESPONSE_CODE" })
        #expect(first.delivery.nextAttemptDate == Self.start.addingTimeInterval(85 * 3_600))
        // The auto-renew change waits behind the purchase of the same subscription: never tried on its own.
        #expect(outbox[2].delivery.attempts.isEmpty)
        #expect(outbox[2].delivery.nextAttemptDate == first.delivery.nextAttemptDate)

        // The server restarts: a new engine and sender on the same database, at the same time.
        let now = clock.now()
        sender = nil
        (engine, clock) = try openStore(database, at: now)
        let restarted = NotificationSender(engine: engine, destinations: NotificationDestinations(defaultURL: receiver.url))
        try receiver.setDown(false)
        try await clock.advance(to: Self.start.addingTimeInterval(86 * 3_600))

        let received = try receiver.received()
        #expect(received.allSatisfy { $0["status"] as? String == "OK" }, "\(received)")
        #expect(received.map { [$0["notificationType"] as? String, $0["subtype"] as? String].compactMap { $0 }.joined(separator: "/") } == outbox.map(\.summary))
        #expect(received.map { $0["notificationUUID"] as? String } == outbox.map { $0.id.uuidString.lowercased() })
        #expect(received.map { $0["transactionId"] as? String } == [subscription.id, coins.id, subscription.id].map(String.init))
        outbox = try await engine.notifications()
        #expect(outbox.allSatisfy { $0.delivery.state == .delivered && $0.delivery.nextAttemptDate == nil })
        #expect(outbox.first?.delivery.attempts.last?.result == "SUCCESS")

        // Later notifications go at once; delivered ones are never sent again.
        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: Self.start)!)
        #expect(try receiver.received().map { $0["notificationType"] as? String }.last == "EXPIRED")
        #expect(try receiver.received().count == 4)
        _ = restarted
    }

    @Test(
        "A receiver that answers 500, times out or resets the connection gets every notification later, in order",
        arguments: [("500", "UNSUCCESSFUL_HTTP_RESPONSE_CODE"), ("timeout", "TIMED_OUT"), ("reset", "NO_RESPONSE")]
    )
    func faultyReceiver(failure: String, result: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-delivery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (engine, clock) = try openStore(directory.appendingPathComponent("store.sqlite"), at: Self.start)
        let receiver = try await startReceiver(in: directory, trusting: engine)
        defer { receiver.process.terminate() }
        try receiver.setDown(true, failing: failure)
        let sender = NotificationSender(engine: engine, destinations: NotificationDestinations(defaultURL: receiver.url), timeout: 1)

        let subscription = try await engine.purchase(PurchaseRequest(productID: "monthly", bundleID: Self.bundleID))
        let coins = try await engine.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        try await engine.setAutoRenew(subscription: subscription.id, enabled: false)
        await sender.deliverDue()
        let failed = try await engine.notifications()
        // Each original transaction's first notification was tried once and failed as Apple names it; the auto-renew
        // change waits behind its subscription's purchase.
        #expect(failed.map { $0.delivery.attempts.map(\.result) } == [[result], [result], []])
        if failure == "500" { #expect(failed.first?.delivery.attempts.first?.httpStatusCode == 500) }
        #expect(try receiver.received().isEmpty)

        try receiver.setDown(false)
        try await clock.advance(by: 3_600)
        let received = try receiver.received()
        #expect(received.allSatisfy { $0["status"] as? String == "OK" }, "\(received)")
        #expect(received.map { $0["notificationUUID"] as? String } == failed.map { $0.id.uuidString.lowercased() })
        #expect(received.map { $0["transactionId"] as? String } == [subscription.id, coins.id, subscription.id].map(String.init))
        #expect(try await engine.notifications().allSatisfy { $0.delivery.state == .delivered })
        _ = sender
    }

    @Test("A notification for an app with no URL is kept as not sent; apps with one are sent theirs")
    func destinations() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-delivery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (engine, _) = try openStore(directory.appendingPathComponent("store.sqlite"), at: Self.start)
        let receiver = try await startReceiver(in: directory, trusting: engine)
        defer { receiver.process.terminate() }
        let sender = NotificationSender(engine: engine, destinations: NotificationDestinations(urlsByBundleID: [Self.bundleID: receiver.url]))
        _ = try await engine.purchase(PurchaseRequest(productID: "coins", bundleID: "com.example.other"))
        _ = try await engine.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        await sender.deliverDue()
        let outbox = try await engine.notifications()
        #expect(outbox.map(\.delivery.state) == [.notSent, .delivered])
        #expect(try receiver.received().count == 1)
    }

    @Test("PUT /control/notification-url points a running store's notifications at a receiver, the next change reaches it, and the URL is stored: a restart keeps it")
    func notificationURLFromControlAPI() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-delivery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (engine, _) = try openStore(directory.appendingPathComponent("store.sqlite"), at: Self.start)
        let receiver = try await startReceiver(in: directory, trusting: engine)
        defer { receiver.process.terminate() }
        let sender = NotificationSender(engine: engine, destinations: NotificationDestinations())
        let server = StoreServer(engine: engine, port: 0, notificationSender: sender)
        try await server.makeApplication().test(.router) { client in
            let body = #"{"url": "\#(receiver.url.absoluteString)", "bundleId": "\#(Self.bundleID)"}"#
            let status = try await client.execute(uri: "/control/notification-url", method: .put, body: ByteBuffer(string: body)) { $0.status }
            #expect(status == .ok)
            let refused = try await client.execute(uri: "/control/notification-url", method: .put, body: ByteBuffer(string: #"{"url": "ftp://x"}"#)) { $0.status }
            #expect(refused == .badRequest)
        }
        _ = try await engine.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        // The sender was started by the request: the purchase's notification goes out without anyone asking.
        let line = try await receiver.process.waitForLine(containing: "received ")
        #expect(line.contains("ONE_TIME_CHARGE"))
        #expect(try receiver.received().count == 1)
        await sender.stop() // returns once the attempt under way is saved
        #expect(try await engine.notifications().map(\.delivery.state) == [.delivered])
        // A server started again finds the URL the control API set, in storage, over its own default.
        let (reopened, _) = try openStore(directory.appendingPathComponent("store.sqlite"), at: Self.start)
        let restarted = NotificationSender(engine: reopened, destinations: NotificationDestinations(defaultURL: URL(string: "http://127.0.0.1:9/default")))
        #expect(try await restarted.destinations().url(for: Self.bundleID) == receiver.url)
        #expect(try await reopened.notificationDestinations()?.urlsByBundleID == [Self.bundleID: receiver.url])
    }

    @Test("Notification URLs an earlier version kept in tenants/<name>.notification-urls.json are stored once per tenant, over none, and the files renamed *.imported")
    func destinationFilesAreImported() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-url-import-\(UUID().uuidString)")
        let tenants = directory.appendingPathComponent("tenants", isDirectory: true)
        try FileManager.default.createDirectory(at: tenants, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteStorage(url: directory.appendingPathComponent("store.sqlite"))
        let (defaultURL, appURL, keptURL) = (URL(string: "http://127.0.0.1:9000/all")!, URL(string: "http://127.0.0.1:9000/app")!, URL(string: "http://127.0.0.1:9000/kept")!)
        let files: [(String, NotificationDestinations)] = [
            ("default", NotificationDestinations(defaultURL: defaultURL, urlsByBundleID: [Self.bundleID: appURL])),
            ("qa-1", NotificationDestinations(defaultURL: appURL)),
            ("set-since", NotificationDestinations(defaultURL: appURL)),
        ]
        for (tenant, destinations) in files {
            try JSONEncoder().encode(destinations).write(to: tenants.appendingPathComponent("\(tenant).notification-urls.json"))
        }
        try await storage.transaction(tenant: "set-since") { try $0.write(.saveNotificationDestinations(NotificationDestinations(defaultURL: keptURL))) }

        #expect(try await NotificationSender.importDestinationFiles(tenantFolder: tenants, into: storage) == 2)
        for (tenant, destinations) in files.prefix(2) {
            #expect(try await storage.read(tenant: tenant) { try $0.notificationDestinations() } == destinations)
        }
        #expect(try await storage.read(tenant: "set-since") { try $0.notificationDestinations() }?.defaultURL == keptURL, "what storage holds is newer than the file")
        let left = try FileManager.default.contentsOfDirectory(atPath: tenants.path).sorted()
        #expect(left == files.map { "\($0.0).notification-urls.json.imported" }.sorted())
        #expect(try await NotificationSender.importDestinationFiles(tenantFolder: tenants, into: storage) == 0, "read once")

        try Data("not json".utf8).write(to: tenants.appendingPathComponent("broken.notification-urls.json"))
        await #expect(throws: StoreError.self) { try await NotificationSender.importDestinationFiles(tenantFolder: tenants, into: storage) }
        #expect(FileManager.default.fileExists(atPath: tenants.appendingPathComponent("broken.notification-urls.json").path), "kept for the next try")
    }

    @Test("Redelivering sends a notification again: one that gave up after every retry, and one already delivered; the attempts stay on record")
    func redelivery() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-redeliver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (engine, clock) = try openStore(directory.appendingPathComponent("store.sqlite"), at: Self.start)
        let receiver = try await startReceiver(in: directory, trusting: engine)
        defer { receiver.process.terminate() }
        try receiver.setDown(true)
        let sender = NotificationSender(engine: engine, destinations: NotificationDestinations(defaultURL: receiver.url))

        // Down through all five retries (1 + 12 + 24 + 48 + 72 hours): the App Store gives up.
        _ = try await engine.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID))
        await sender.deliverDue()
        try await clock.advance(by: 158 * 3_600)
        let failed = try #require(try await engine.notifications().first)
        #expect(failed.delivery.state == .failed)
        #expect(failed.delivery.attempts.count == 6)
        // What the app's server answered is kept with each attempt.
        #expect(failed.delivery.attempts.allSatisfy { $0.httpStatusCode == 503 })

        // Up again, and redelivered: it arrives, with the six failures still on record.
        try receiver.setDown(false)
        let pending = try await engine.redeliverNotification(id: failed.id)
        #expect(pending.delivery.state == .pending && pending.delivery.nextAttemptDate == clock.now())
        await sender.deliverDue()
        var delivered = try await engine.notification(id: failed.id)
        #expect(delivered.delivery.state == .delivered)
        #expect(delivered.delivery.attempts.map(\.result) == Array(repeating: "UNSUCCESSFUL_HTTP_RESPONSE_CODE", count: 6) + ["SUCCESS"])
        #expect(delivered.delivery.attempts.last?.httpStatusCode == 200)

        // A delivered one goes again, as the same notification: the app's server sees its notificationUUID twice.
        try await engine.redeliverNotification(id: failed.id)
        await sender.deliverDue()
        delivered = try await engine.notification(id: failed.id)
        #expect(delivered.delivery.attempts.suffix(2).map(\.result) == ["SUCCESS", "SUCCESS"])
        #expect(try receiver.received().map { $0["notificationUUID"] as? String } == Array(repeating: failed.id.uuidString.lowercased(), count: 2))

        // A redelivered notification that fails again gets Apple's whole schedule: its first retry an hour later.
        try receiver.setDown(true)
        try await engine.redeliverNotification(id: failed.id)
        await sender.deliverDue()
        let retrying = try await engine.notification(id: failed.id)
        #expect(retrying.delivery.state == .pending)
        #expect(retrying.delivery.nextAttemptDate == clock.now().addingTimeInterval(3_600))

        await #expect(throws: StoreError.unknownNotification) { try await engine.redeliverNotification(id: UUID()) }
    }

    @Test("Passes asked for at once all finish: a waiter never spins on a pass that already ended", .timeLimit(.minutes(1)))
    func overlappingPasses() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-passes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (engine, _) = try openStore(directory.appendingPathComponent("store.sqlite"), at: Self.start)
        // A URL for another app only: this app's notifications are kept as not sent.
        let sender = NotificationSender(
            engine: engine, destinations: NotificationDestinations(urlsByBundleID: ["com.example.other": URL(string: "http://127.0.0.1:9/other")!])
        )
        for _ in 0..<3 { _ = try await engine.purchase(PurchaseRequest(productID: "coins", bundleID: Self.bundleID)) }
        await withDiscardingTaskGroup { group in
            for _ in 0..<20 { group.addTask { await sender.deliverDue() } }
        }
        #expect(try await engine.notifications().allSatisfy { $0.delivery.state == .notSent })
    }
}
