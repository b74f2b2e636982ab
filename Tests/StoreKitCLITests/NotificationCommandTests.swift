import AppStoreEngine
import AppStoreSQLite
import Foundation
import Testing
import TestProcesses

/// `storekit notifications list|show|redeliver`: the outbox, on the data directory's store and on a running server;
/// `storekit notifications url`: where a running server sends it.
@Suite("storekit notifications", .limitsChildProcesses)
struct NotificationCommandTests {
    let dataDirectory = temporaryDataDirectory()

    func run(_ arguments: [String]) async throws -> StorekitRun {
        try await storekit(arguments + ["--data-dir", dataDirectory.path])
    }

    func entries(_ arguments: [String] = []) async throws -> [[String: Any]] {
        try #require(try jsonOutput(try await run(["notifications", "list", "--json"] + arguments)) as? [[String: Any]])
    }

    func entry(_ id: String, _ arguments: [String] = []) async throws -> [String: Any] {
        try #require(try jsonOutput(try await run(["notifications", "show", id, "--json"] + arguments)) as? [String: Any])
    }

    /// Buys a product in the data directory and returns the notification it wrote.
    func buyAndNotify(_ productID: String) async throws -> (transactionID: String, notificationID: String) {
        let bought = try #require(try jsonOutput(try await run(["purchase", productID, "--config", demoConfiguration, "--bundle-id", "com.example.demo", "--json"])) as? [String: Any])
        let transactionID = try #require(bought["transactionId"] as? String)
        let notification = try #require(try await entries().last { $0["transactionId"] as? String == transactionID })
        return (transactionID, try #require(notification["notificationUUID"] as? String))
    }

    /// Records that every notification of the store was sent once and its app's server answered 200, as
    /// `storekit serve --notification-url` records it. No server runs meanwhile, so the state is written directly.
    func markAllDelivered() async throws {
        let storage = try SQLiteStorage(url: dataDirectory.appendingPathComponent("store.sqlite"))
        try await storage.transaction(tenant: StoreDefaults.tenant) { transaction in
            for var notification in try transaction.notifications(matching: NotificationQuery()) {
                notification.delivery.record(NotificationDelivery.Attempt(date: notification.date, result: "SUCCESS", httpStatusCode: 200))
                try transaction.write(.updateNotification(notification))
            }
        }
    }

    @Test("`notifications list` shows each notification's UUID, type and delivery; `show` decodes the payload an app server receives")
    func listAndShow() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (transactionID, notificationID) = try await buyAndNotify("com.example.demo.plus.monthly")
        let listed = try await entries()
        #expect(listed.count == 1)
        #expect(listed.first?["notificationType"] as? String == "SUBSCRIBED")
        #expect(listed.first?["delivery"] as? String == "pending")
        #expect((listed.first?["attempts"] as? [Any])?.isEmpty == true)
        #expect(listed.first?["signedPayload"] == nil)

        let text = try await run(["notifications"]).output // list, the default
        #expect(text.contains("\(notificationID)  "), "\(text)")
        #expect(text.contains("SUBSCRIBED/INITIAL_BUY  transaction \(transactionID)  com.example.demo"))
        #expect(text.contains("pending, 0 attempts"))

        let shown = try await entry(notificationID)
        #expect(shown["notificationUUID"] as? String == notificationID)
        #expect((shown["signedPayload"] as? String)?.split(separator: ".").count == 3)
        let details = try await run(["notifications", "show", notificationID.uppercased()])
        #expect(details.status == 0, "\(details.errorOutput)")
        #expect(details.output.contains("notification \(notificationID)\n"))
        #expect(details.output.contains("delivery:     pending, 0 attempts"), "\(details.output)")
        #expect(details.output.contains("payload:\n{"))
        #expect(details.output.contains(#""notificationUUID": "\#(notificationID)""#), "\(details.output)")
        // The JWS it carries are shown decoded in place, not as their text.
        #expect(details.output.contains(#""signedTransactionInfo": {"#), "\(details.output)")
        #expect(details.output.contains(#""transactionId": "\#(transactionID)""#))
        #expect(details.output.contains(#""signedRenewalInfo": {"#))
    }

    @Test("`notifications redeliver` makes a delivered notification pending again from now and keeps its attempts")
    func redeliver() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (_, notificationID) = try await buyAndNotify("com.example.demo.premium")
        try await markAllDelivered()
        let delivered = try await entry(notificationID)
        #expect(delivered["delivery"] as? String == "delivered")
        #expect(delivered["nextAttemptDate"] == nil)
        #expect(try await run(["notifications", "list"]).output.contains("ONE_TIME_CHARGE  "))
        #expect(try await run(["notifications", "list"]).output.contains("delivered, 1 attempt"))

        let redelivered = try #require(try jsonOutput(try await run(["notifications", "redeliver", notificationID, "--json"])) as? [String: Any])
        #expect(redelivered["delivery"] as? String == "pending")
        #expect(redelivered["nextAttemptDate"] as? String != nil)
        #expect((redelivered["attempts"] as? [[String: Any]])?.map { $0["result"] as? String } == ["SUCCESS"])

        // The change is stored: another process sees it pending, the attempt kept.
        let stored = try await entry(notificationID)
        #expect(stored["delivery"] as? String == "pending")
        #expect((stored["attempts"] as? [Any])?.count == 1)
        let text = try await run(["notifications", "redeliver", notificationID])
        #expect(text.status == 0, "\(text.errorOutput)")
        #expect(text.output.contains("\(notificationID)  ONE_TIME_CHARGE  pending again, next attempt "), "\(text.output)")
        #expect(text.output.contains("1 earlier attempt kept"))
    }

    @Test("A malformed or unknown notification identifier is refused with what to do")
    func mistakes() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        for command in ["show", "redeliver"] {
            let malformed = try await run(["notifications", command, "2000000000000001"])
            #expect(malformed.status != 0)
            #expect(malformed.errorOutput.contains(#""2000000000000001" is not a notification identifier. Use the notificationUUID `storekit notifications list` prints"#), "\(malformed.errorOutput)")
        }
        let unknownID = UUID().uuidString.lowercased()
        for command in ["show", "redeliver"] {
            let unknown = try await run(["notifications", command, unknownID])
            #expect(unknown.status == 1)
            #expect(unknown.errorOutput.contains("This store's outbox holds no notification \(unknownID)"), "\(unknown.errorOutput)")
        }
        let since = try await run(["notifications", "--since", "yesterday"])
        #expect(since.status != 0)
        #expect(since.errorOutput.contains("--since \"yesterday\" is not an ISO 8601 date"))
    }

    @Test("`notifications list`, `show` and `redeliver` act on a running server's outbox with --server, as GET /control/notifications shows")
    func onServer() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (transactionID, notificationID) = try await buyAndNotify("com.example.demo.premium")
        try await markAllDelivered()
        let (server, port, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        let remote = ["--server", address]

        let listed = try #require(try jsonOutput(try await storekit(["notifications", "list", "--json"] + remote)) as? [[String: Any]])
        #expect(listed.map { $0["notificationUUID"] as? String } == [notificationID])
        #expect(listed.first?["delivery"] as? String == "delivered")
        let signed = try #require(try jsonOutput(try await storekit(["notifications", "--signed", "--bundle-id", "com.example.demo"] + remote)) as? [[String: Any]])
        #expect((signed.first?["signedPayload"] as? String)?.split(separator: ".").count == 3)

        let redelivered = try #require(try jsonOutput(try await storekit(["notifications", "redeliver", notificationID, "--json"] + remote)) as? [String: Any])
        #expect(redelivered["delivery"] as? String == "pending")
        #expect((redelivered["attempts"] as? [Any])?.count == 1)
        let seen = try await httpGet(URL(string: "http://127.0.0.1:\(port)/control/notifications/\(notificationID)")!)
        let stored = try #require(try JSONSerialization.jsonObject(with: seen.body) as? [String: Any])
        #expect(stored["delivery"] as? String == "pending")
        #expect((stored["attempts"] as? [[String: Any]])?.first?["result"] as? String == "SUCCESS")

        let details = try await storekit(["notifications", "show", notificationID] + remote)
        #expect(details.status == 0, "\(details.errorOutput)")
        #expect(details.output.contains("delivery:     pending, 1 attempt, next attempt "), "\(details.output)")
        #expect(details.output.contains(#""transactionId": "\#(transactionID)""#))

        let unknownID = UUID().uuidString.lowercased()
        let unknown = try await storekit(["notifications", "redeliver", unknownID] + remote)
        #expect(unknown.status != 0)
        #expect(unknown.errorOutput.contains("(404)"), "\(unknown.errorOutput)")
        #expect(unknown.errorOutput.contains("holds no notification \(unknownID)"))
    }

    /// The notification URLs `notifications url --json` prints for `place`.
    func destinations(_ command: [String], _ place: [String]) async throws -> (defaultURL: String?, byApp: [String: String]) {
        let object = try #require(try jsonOutput(try await storekit(["notifications", "url"] + command + ["--json"] + place)) as? [String: Any])
        return (object["defaultURL"] as? String, object["urlsByBundleID"] as? [String: String] ?? [:])
    }

    @Test("`notifications url set` changes where a running server sends notifications, as GET /control/notification-url shows; a restart keeps it; `clear` removes it")
    func notificationURL() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, port, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        let remote = ["--server", address, "--tenant", "hooks"]

        let initial = try await storekit(["notifications", "url"] + remote) // show, the default
        #expect(initial.status == 0, "\(initial.errorOutput)")
        #expect(initial.output.contains(#"(store "hooks" on the server at \#(address))"#), "\(initial.output)")
        #expect(initial.output.contains("every app:  none"), "\(initial.output)")

        let everyApp = try await destinations(["set", "http://127.0.0.1:9/apple"], remote)
        #expect(everyApp.defaultURL == "http://127.0.0.1:9/apple")
        #expect(everyApp.byApp.isEmpty)
        let oneApp = try await destinations(["set", "https://example.com/apple", "--bundle-id", "com.example.demo"], remote)
        #expect(oneApp.defaultURL == "http://127.0.0.1:9/apple", "every app's URL stays")
        #expect(oneApp.byApp == ["com.example.demo": "https://example.com/apple"])

        let seen = try await httpGet(URL(string: "http://127.0.0.1:\(port)/t/hooks/control/notification-url")!)
        let served = try #require(try JSONSerialization.jsonObject(with: seen.body) as? [String: Any])
        #expect(served["defaultURL"] as? String == "http://127.0.0.1:9/apple")
        #expect(served["urlsByBundleID"] as? [String: String] == ["com.example.demo": "https://example.com/apple"])
        let shown = try await storekit(["notifications", "url", "show"] + remote)
        #expect(shown.output.contains("every app:  http://127.0.0.1:9/apple\n"), "\(shown.output)")
        #expect(shown.output.contains("com.example.demo:  https://example.com/apple\n"))
        #expect(try await destinations([], ["--server", address]).defaultURL == nil, "a tenant's URLs are its own")

        // A restarted server sends where it was told, not only where --notification-url says.
        server.terminate()
        #expect(try await server.finished().status == 0)
        let (restarted, _, newAddress) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { restarted.terminate() }
        let again = ["--server", newAddress, "--tenant", "hooks"]
        let kept = try await destinations([], again)
        #expect(kept.defaultURL == "http://127.0.0.1:9/apple")
        #expect(kept.byApp == ["com.example.demo": "https://example.com/apple"])

        let appCleared = try await destinations(["clear", "--bundle-id", "com.example.demo"], again)
        #expect(appCleared.defaultURL == "http://127.0.0.1:9/apple")
        #expect(appCleared.byApp.isEmpty)
        let cleared = try await storekit(["notifications", "url", "clear"] + again)
        #expect(cleared.status == 0, "\(cleared.errorOutput)")
        #expect(cleared.output.contains("Every app's URL is removed"), "\(cleared.output)")
        #expect(cleared.output.contains("every app:  none"))
        #expect(try await destinations([], again).defaultURL == nil)
    }

    @Test("Without --server, `notifications url` sets the URLs in the data directory's storage, and a server started on it sends there")
    func notificationURLInStorage() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let place = ["--data-dir", dataDirectory.path, "--tenant", "hooks"]
        let initial = try await storekit(["notifications", "url"] + place)
        #expect(initial.status == 0, "\(initial.errorOutput)")
        #expect(initial.output.contains("every app:  none"), "\(initial.output)")
        #expect(initial.output.contains(#"(store "hooks" on \#(dataDirectory.path))"#), "\(initial.output)")

        let set = try await destinations(["set", "http://127.0.0.1:9/apple"], place)
        #expect(set.defaultURL == "http://127.0.0.1:9/apple")
        let oneApp = try await destinations(["set", "https://example.com/apple", "--bundle-id", "com.example.demo"], place)
        #expect(oneApp.byApp == ["com.example.demo": "https://example.com/apple"])
        #expect(try await destinations([], ["--data-dir", dataDirectory.path]).defaultURL == nil, "a tenant's URLs are its own")

        // A server started on the data directory sends where the storage says.
        let (server, port, _) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        let seen = try await httpGet(URL(string: "http://127.0.0.1:\(port)/t/hooks/control/notification-url")!)
        let served = try #require(try JSONSerialization.jsonObject(with: seen.body) as? [String: Any])
        #expect(served["defaultURL"] as? String == "http://127.0.0.1:9/apple")
        #expect(served["urlsByBundleID"] as? [String: String] == ["com.example.demo": "https://example.com/apple"])

        let cleared = try await destinations(["clear", "--bundle-id", "com.example.demo"], place)
        #expect(cleared.byApp.isEmpty)
        #expect(cleared.defaultURL == "http://127.0.0.1:9/apple")
    }

    @Test("`notifications url set` needs an http or https URL with a host, and says so")
    func notificationURLMistakes() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        // Nothing listens here: each refusal comes before any request.
        let remote = ["--server", "http://127.0.0.1:9"]
        for url in ["ftp://example.com/apple", "example.com/apple", "http://", "not a url"] {
            let refused = try await storekit(["notifications", "url", "set", url] + remote)
            #expect(refused.status != 0)
            #expect(refused.errorOutput.contains("\"\(url)\" is not an http or https URL with a host. Write it like http://127.0.0.1:9000/notifications."), "\(url): \(refused.errorOutput)")
        }
        let emptyApp = try await storekit(["notifications", "url", "clear", "--bundle-id", ""] + remote)
        #expect(emptyApp.errorOutput.contains("--bundle-id is empty"), "\(emptyApp.errorOutput)")
    }
}
