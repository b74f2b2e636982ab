import AppStorePostgres
import Crypto
import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Several `storekit serve` processes on one PostgreSQL database, as a shared staging App Store runs: purchases
/// taken by either server for the same accounts at the same moment, renewals applied once, each notification sent
/// once, to a receiver built on Apple's library.
@Suite(
    "Servers sharing one PostgreSQL database",
    .enabled(if: PostgresTestDatabase.isConfigured, "OPENSTOREKIT_TEST_POSTGRES_URL is unset; `export OPENSTOREKIT_TEST_POSTGRES_URL=$(bash .ci/postgres)` runs it"),
    .limitsChildProcesses
)
struct SharedDatabaseTests {
    static let bundleID = "com.example.demo"

    /// A running server's base URL.
    struct Server {
        let process: ChildProcess
        let baseURL: String

        /// POSTs JSON to the server's control API and returns the status and the decoded answer.
        func post(_ path: String, _ body: String) async throws -> (status: Int, json: Any?) {
            try await send("POST", path, body)
        }

        /// Sends JSON to the server's control API with `method` and returns the status and the decoded answer.
        func send(_ method: String, _ path: String, _ body: String) async throws -> (status: Int, json: Any?) {
            var request = URLRequest(url: try #require(URL(string: baseURL + path)))
            request.httpMethod = method
            request.httpBody = Data(body.utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONSerialization.jsonObject(with: data))
        }

        /// Sends an App Store Server API request signed with `bearer` and returns the status and the decoded answer.
        func serverAPI(_ method: String, _ path: String, bearer: String, body: String? = nil) async throws -> (status: Int, json: [String: Any]?) {
            var request = URLRequest(url: try #require(URL(string: baseURL + path)))
            request.httpMethod = method
            request.setValue(bearer, forHTTPHeaderField: "Authorization")
            if let body {
                request.httpBody = Data(body.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        /// Makes an App Store Server API key through the control API and returns a bearer token it signs.
        func makeBearer(issuer: String) async throws -> String {
            let (created, made) = try await post("/control/keys", #"{"issuer": "\#(issuer)"}"#)
            #expect(created == 201)
            let answer = try #require(made as? [String: Any])
            return try SharedDatabaseTests.bearer(
                keyID: try #require(answer["keyId"] as? String), issuer: issuer, privateKeyPEM: try #require(answer["privateKey"] as? String)
            )
        }

        /// GETs a control API listing.
        func list(_ path: String) async throws -> [[String: Any]] {
            let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: baseURL + path)))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]], "\(String(decoding: data, as: UTF8.self))")
        }
    }

    /// Two servers on one database, each with a data directory of its own (`first`, `second`) and no notification receiver.
    func startPair(database: String, dataDirectory: URL) async throws -> (Server, Server) {
        let receiver = "http://127.0.0.1:9/unused"
        return (
            try await startServer(database: database, dataDirectory: dataDirectory.appendingPathComponent("first"), receiver: receiver),
            try await startServer(database: database, dataDirectory: dataDirectory.appendingPathComponent("second"), receiver: receiver)
        )
    }

    func startServer(database: String, dataDirectory: URL, receiver: String, options: [String] = []) async throws -> Server {
        let process = try ChildProcess(try ChildProcess.builtExecutable("storekit"), [
            "serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--database", database, "--port", "0",
            "--notification-url", "\(Self.bundleID)=\(receiver)",
        ] + options)
        let line = try await process.waitForLine(containing: "http://127.0.0.1:")
        let address = try #require(line.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        return Server(process: process, baseURL: address)
    }

    @Test("Two servers take purchases for the same accounts at once: no duplicate, none lost, renewals once, each notification delivered once")
    func twoServersOneDatabase() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        defer { try? PostgresTestDatabase.dropSchema(of: configuration) }
        let database = PostgresTestDatabase.url(of: configuration)
        let dataDirectory = temporaryDataDirectory()
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }

        // Each server has a data directory of its own, as on two machines. Both sign with the first one's
        // certificate authority, which the receiver trusts: the second gets it through the database.
        let secondDataDirectory = dataDirectory.appendingPathComponent("second-server")
        let root = dataDirectory.appendingPathComponent("root.cer")
        #expect(try await storekit(["ca", "export", "--data-dir", dataDirectory.path, "--root", "jws", "--der", "--out", root.path]).status == 0)
        let log = dataDirectory.appendingPathComponent("received.jsonl")
        let receiver = try ChildProcess.tool("python3", [
            repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/notification_receiver.py").path,
            "--root", root.path, "--bundle-id", Self.bundleID, "--log", log.path, "--down-flag", dataDirectory.appendingPathComponent("down").path,
        ])
        defer { receiver.terminate() }
        let receiverPort = try #require(try await receiver.waitForLine(containing: "listening on ").split(separator: " ").last)
        let receiverURL = "http://127.0.0.1:\(receiverPort)/apple"
        let first = try await startServer(database: database, dataDirectory: dataDirectory, receiver: receiverURL)
        defer { first.process.terminate() }
        let second = try await startServer(database: database, dataDirectory: secondDataDirectory, receiver: receiverURL)
        defer { second.process.terminate() }
        let servers = [first, second]

        // Every account buys, through both servers at the same moment: a subscription, coins twice, and the premium
        // non-consumable once through each server.
        let accounts = (0..<6).map { "shared-\($0)" }
        var orders: [(server: Server, body: String)] = []
        for account in accounts {
            for (index, product) in ["plus.monthly", "coins.100", "coins.100", "premium", "premium"].enumerated() {
                let body = #"{"productId": "com.example.demo.\#(product)", "account": "\#(account)", "bundleId": "\#(Self.bundleID)"}"#
                orders.append((servers[index % 2], body))
            }
        }
        let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for order in orders {
                group.addTask {
                    let (status, json) = try await order.server.post("/control/purchases", order.body)
                    return (status, (json as? [String: Any])?["transactionId"] as? String)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.0 == 200 }, "\(answers)")
        let acknowledged = answers.compactMap(\.1)
        #expect(Set(acknowledged).count == orders.count, "every acknowledged purchase has its own transaction identifier")

        // Two months later, on the store's clock that both servers read from the database.
        let (moved, _) = try await first.post("/control/clock/advance", #"{"by": "2mo"}"#)
        #expect(moved == 200)

        for server in servers {
            let transactions = try await server.list("/control/transactions")
            #expect(Set(transactions.compactMap { $0["transactionId"] as? String }).isSuperset(of: acknowledged), "no acknowledged purchase is lost")
            for account in accounts {
                let mine = transactions.filter { $0["account"] as? String == account }
                let ofProduct = { (product: String) in mine.filter { $0["productId"] as? String == "com.example.demo.\(product)" } }
                #expect(ofProduct("plus.monthly").count == 3, "\(account): the purchase and two renewals, each once")
                #expect(ofProduct("coins.100").count == 2)
                #expect(ofProduct("premium").count == 2)
                #expect(Set(ofProduct("premium").compactMap { $0["originalTransactionId"] as? String }).count == 1, "\(account) owns premium once")
            }
        }

        // Every notification reaches the receiver once, whichever server sent it.
        let outbox = try await first.list("/control/notifications")
        #expect(outbox.count == accounts.count * 6, "per account: SUBSCRIBED, two DID_RENEW, three ONE_TIME_CHARGE (the repurchase sends none)")
        var received: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(60)
        while received.count < outbox.count, Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            received = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            } ?? []
        }
        // Give a second sender the time to make a duplicate attempt, were it able to: longer than its pickup interval.
        try await Task.sleep(for: .seconds(3))
        received = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(received.allSatisfy { $0["status"] as? String == "OK" }, "Apple's library verified every payload")
        let uuids = received.compactMap { $0["notificationUUID"] as? String }
        #expect(uuids.count == outbox.count, "each notification delivered once: \(uuids.count) deliveries of \(outbox.count)")
        #expect(Set(uuids) == Set(outbox.compactMap { $0["notificationUUID"] as? String }))
        let delivered = try await second.list("/control/notifications")
        #expect(delivered.allSatisfy { $0["delivery"] as? String == "delivered" }, "\(delivered.map { $0["delivery"] ?? "?" })")
        // The second machine's `storekit ca` shows the shared root too.
        let secondRoot = dataDirectory.appendingPathComponent("second-root.cer")
        #expect(try await storekit(["ca", "export", "--data-dir", secondDataDirectory.path, "--root", "jws", "--der", "--out", secondRoot.path]).status == 0)
        #expect(try Data(contentsOf: secondRoot) == Data(contentsOf: root))
    }

    @Test("A device long-polling one server hears at once of a purchase taken by the other (LISTEN/NOTIFY)")
    func changesReachDevicesOfTheOtherServer() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        defer { try? PostgresTestDatabase.dropSchema(of: configuration) }
        let database = PostgresTestDatabase.url(of: configuration)
        let dataDirectory = temporaryDataDirectory()
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let receiver = "http://127.0.0.1:9/unused"
        let seller = try await startServer(database: database, dataDirectory: dataDirectory, receiver: receiver)
        defer { seller.process.terminate() }
        let watched = try await startServer(database: database, dataDirectory: dataDirectory, receiver: receiver)
        defer { watched.process.terminate() }

        func poll(after position: (epoch: String, sequence: Int)?, wait: Int) async throws -> (epoch: String, sequence: Int, changes: Int) {
            var path = "/device/changes?wait=\(wait)"
            if let position { path += "&epoch=\(position.epoch)&after=\(position.sequence)" }
            let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: watched.baseURL + path)))
            let batch = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(String(decoding: data, as: UTF8.self))")
            return (
                try #require(batch["epoch"] as? String), try #require(batch["sequence"] as? Int),
                (batch["changes"] as? [Any])?.count ?? 0
            )
        }
        // The first poll starts the watched server following the store; the second takes the signal that it listens.
        var position = try await poll(after: nil, wait: 0)
        position = try await poll(after: (position.epoch, position.sequence), wait: 5)

        let waiting = Task { try await poll(after: (position.epoch, position.sequence), wait: 30) }
        let (bought, _) = try await seller.post(
            "/control/purchases", #"{"productId": "com.example.demo.premium", "account": "watched", "bundleId": "\#(Self.bundleID)"}"#
        )
        #expect(bought == 200)
        let heard = try await waiting.value
        #expect(heard.changes > 0, "the long poll ended with the purchase, not empty at the end of its 30-second wait")
    }

    /// A bearer token for the App Store Server API, signed as Apple's libraries sign them (ES256, no iat).
    static func bearer(keyID: String, issuer: String, privateKeyPEM: String) throws -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": keyID, "typ": "JWT"], options: .sortedKeys)
        let claims = try JSONSerialization.data(withJSONObject: [
            "iss": issuer, "aud": "appstoreconnect-v1", "bid": bundleID, "exp": Int(Date().timeIntervalSince1970) + 1_200,
        ] as [String: Any], options: .sortedKeys)
        let input = base64URL(header) + "." + base64URL(claims)
        let signature = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM).signature(for: Data(input.utf8))
        return "Bearer " + input + "." + base64URL(signature.rawRepresentation)
    }

    /// The status a server answers a transaction-info request carrying `bearer` at `prefix` (a tenant's `/t/{name}`).
    static func serverAPIStatus(_ server: Server, _ bearer: String, prefix: String = "") async throws -> Int {
        var request = URLRequest(url: try #require(URL(string: server.baseURL + prefix + "/inApps/v1/transactions/2000000000000001")))
        request.setValue(bearer, forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test("A key made through one server's control API signs Server API requests on the other at once; revoked on the other, it is refused on the first; `storekit keys --database` sees and makes the same keys")
    func keysAreSharedByServers() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        defer { try? PostgresTestDatabase.dropSchema(of: configuration) }
        let database = PostgresTestDatabase.url(of: configuration)
        let dataDirectory = temporaryDataDirectory()
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let receiver = "http://127.0.0.1:9/unused"
        // Each server, and the command, with a data directory of its own, as on three machines.
        let first = try await startServer(database: database, dataDirectory: dataDirectory.appendingPathComponent("first"), receiver: receiver)
        defer { first.process.terminate() }
        let second = try await startServer(database: database, dataDirectory: dataDirectory.appendingPathComponent("second"), receiver: receiver)
        defer { second.process.terminate() }

        let (created, made) = try await first.post("/control/keys", #"{"issuer": "issuer-shared"}"#)
        #expect(created == 201)
        let answer = try #require(made as? [String: Any])
        let keyID = try #require(answer["keyId"] as? String)
        let bearer = try Self.bearer(keyID: keyID, issuer: "issuer-shared", privateKeyPEM: try #require(answer["privateKey"] as? String))
        #expect(try await Self.serverAPIStatus(second, bearer) == 404, "accepted at once by the server that did not make it: an unknown transaction")
        #expect(try await Self.serverAPIStatus(first, bearer) == 404)

        #expect(try await second.post("/control/keys/\(keyID)/revoke", "").status == 200)
        #expect(try await Self.serverAPIStatus(first, bearer) == 401, "revoked through the other server: refused at once")
        #expect(try await Self.serverAPIStatus(second, bearer) == 401)

        let machine = dataDirectory.appendingPathComponent("third")
        let listed = try await storekit(["keys", "list", "--data-dir", machine.path, "--database", database])
        #expect(listed.status == 0, "\(listed.errorOutput)")
        #expect(listed.output.contains(keyID) && listed.output.contains("revoked"), "\(listed.output)")
        let made2 = try await storekit(["keys", "create", "--issuer", "issuer-cli", "--out", machine.path, "--data-dir", machine.path, "--database", database])
        #expect(made2.status == 0, "\(made2.errorOutput)")
        let cliKeyID = made2.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let cliPrivateKey = try String(contentsOf: machine.appendingPathComponent("SubscriptionKey_\(cliKeyID).p8"), encoding: .utf8)
        let cliBearer = try Self.bearer(keyID: cliKeyID, issuer: "issuer-cli", privateKeyPEM: cliPrivateKey)
        #expect(try await Self.serverAPIStatus(first, cliBearer) == 404)
        #expect(try await Self.serverAPIStatus(second, cliBearer) == 404)

        // A tenant's own key, made through one server, signs for that tenant on the other, and for no other tenant.
        let (tenantCreated, tenantMade) = try await first.post("/t/alpha/control/keys", #"{"issuer": "issuer-alpha"}"#)
        #expect(tenantCreated == 201)
        let tenantAnswer = try #require(tenantMade as? [String: Any])
        let tenantBearer = try Self.bearer(
            keyID: try #require(tenantAnswer["keyId"] as? String), issuer: "issuer-alpha",
            privateKeyPEM: try #require(tenantAnswer["privateKey"] as? String)
        )
        #expect(try await Self.serverAPIStatus(second, tenantBearer, prefix: "/t/alpha") == 404)
        #expect(try await Self.serverAPIStatus(second, tenantBearer, prefix: "/t/beta") == 401)
        // At Apple's bare paths the tenant's key reaches its tenant, on the other server too.
        #expect(try await Self.serverAPIStatus(second, tenantBearer) == 404)
    }

    @Test("Ask to Buy switched on through one server's control API holds on the other at once (its purchase waits for approval), for another tenant not at all, and on both after both restart; `storekit settings --database` shows it")
    func settingsAreSharedByServers() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        defer { try? PostgresTestDatabase.dropSchema(of: configuration) }
        let database = PostgresTestDatabase.url(of: configuration)
        let dataDirectory = temporaryDataDirectory()
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        func start() async throws -> (Server, Server) { try await startPair(database: database, dataDirectory: dataDirectory) }
        func purchaseState(_ server: Server, account: String, prefix: String = "") async throws -> String? {
            let (status, answer) = try await server.post(
                "\(prefix)/control/purchases", #"{"productId": "com.example.demo.premium", "account": "\#(account)"}"#
            )
            #expect(status == 200, "\(String(describing: answer))")
            return (answer as? [String: Any])?["state"] as? String
        }

        var (first, second) = try await start()
        defer { first.process.terminate(); second.process.terminate() } // the servers running when the test ends
        #expect(try await purchaseState(second, account: "before") == "purchased")
        let (status, answer) = try await first.send("PUT", "/control/settings", #"{"askToBuyEnabled": true, "storefront": "FRA"}"#)
        #expect(status == 200, "\(String(describing: answer))")
        #expect(try await purchaseState(second, account: "ana") == "pending-approval", "in force on the other server at its next purchase")
        #expect(try await purchaseState(second, account: "ana", prefix: "/t/other") == "purchased", "a tenant's settings are its own")

        first.process.terminate()
        second.process.terminate()
        _ = try await first.process.finished()
        _ = try await second.process.finished()
        (first, second) = try await start()
        for server in [first, second] {
            let (_, shown) = try await server.send("GET", "/control/settings", "")
            let settings = try #require(shown as? [String: Any])
            #expect(settings["askToBuyEnabled"] as? Bool == true, "kept over the configuration's after a restart")
            #expect(settings["storefront"] as? String == "FRA")
        }
        #expect(try await purchaseState(first, account: "bo") == "pending-approval")

        let machine = dataDirectory.appendingPathComponent("third")
        let shown = try await storekit(["settings", "--data-dir", machine.path, "--database", database])
        #expect(shown.status == 0, "\(shown.errorOutput)")
        #expect(shown.output.contains("ask to buy:             on"), "\(shown.output)")
    }

    /// A loopback HTTP receiver that answers every POST 200 and appends its body, one line each, to `log`.
    func startLineReceiver(log: URL) async throws -> (process: ChildProcess, url: String) {
        let script = """
            import sys
            from http.server import BaseHTTPRequestHandler, HTTPServer
            class Handler(BaseHTTPRequestHandler):
                def do_POST(self):
                    body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                    with open(sys.argv[1], "ab") as log:
                        log.write(body.replace(b"\\n", b"") + b"\\n")
                    self.send_response(200)
                    self.end_headers()
                def log_message(self, *arguments):
                    pass
            server = HTTPServer(("127.0.0.1", 0), Handler)
            print("listening on", server.server_address[1], flush=True)
            server.serve_forever()
            """
        let process = try ChildProcess.tool("python3", ["-c", script, log.path])
        let port = try #require(try await process.waitForLine(containing: "listening on ").split(separator: " ").last)
        return (process, "http://127.0.0.1:\(port.trimmingCharacters(in: .whitespacesAndNewlines))/notifications")
    }

    @Test("A notification URL set through one server's control API is where the other server's sender delivers, over its --notification-url, and after both restart")
    func notificationURLsAreSharedByServers() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        defer { try? PostgresTestDatabase.dropSchema(of: configuration) }
        let database = PostgresTestDatabase.url(of: configuration)
        let dataDirectory = temporaryDataDirectory()
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let log = dataDirectory.appendingPathComponent("received.lines")
        let receiver = try await startLineReceiver(log: log)
        defer { receiver.process.terminate() }
        func received(atLeast count: Int) async throws -> Int {
            let deadline = Date().addingTimeInterval(90)
            var lines = 0
            repeat {
                lines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("signedPayload") }.count
                if lines >= count { break }
                try await Task.sleep(for: .milliseconds(100))
            } while Date() < deadline
            return lines
        }
        func start(_ name: String) async throws -> Server {
            // A long attempt timeout: on a loaded machine a slow answer must not push the notification to Apple's
            // next retry, an hour later, past the test's wait.
            try await startServer(
                database: database, dataDirectory: dataDirectory.appendingPathComponent(name), receiver: "http://127.0.0.1:9/unused",
                options: ["--notification-timeout", "60"]
            )
        }
        func buy(_ server: Server, _ account: String) async throws {
            let (status, answer) = try await server.post("/control/purchases", #"{"productId": "com.example.demo.premium", "account": "\#(account)"}"#)
            #expect(status == 200, "\(String(describing: answer))")
        }

        var (first, second) = (try await start("first"), try await start("second"))
        defer { first.process.terminate(); second.process.terminate() } // the servers running when the test ends
        let (status, answer) = try await first.send("PUT", "/control/notification-url", #"{"url": "\#(receiver.url)"}"#)
        #expect(status == 200, "\(String(describing: answer))")
        // Only the second server runs now: its sender, which never saw the request, delivers the purchase's notification.
        first.process.terminate()
        _ = try await first.process.finished()
        try await buy(second, "ana")
        #expect(try await received(atLeast: 1) == 1)

        second.process.terminate()
        _ = try await second.process.finished()
        (first, second) = (try await start("first"), try await start("second"))
        for server in [first, second] {
            let (_, shown) = try await server.send("GET", "/control/notification-url", "")
            #expect((shown as? [String: Any])?["defaultURL"] as? String == receiver.url, "stored, over --notification-url: \(String(describing: shown))")
        }
        try await buy(first, "bo")
        #expect(try await received(atLeast: 2) == 2)
    }

    /// A `.storekit` document selling one non-consumable, `productID`.
    static func catalog(selling productID: String) -> String {
        #"{"identifier": "X", "products": [{"displayPrice": "1.99", "familyShareable": false, "internalID": "1", "localizations": [{"description": "d", "displayName": "n", "locale": "en_US"}], "productID": "\#(productID)", "referenceName": "Only", "type": "NonConsumable"}], "settings": {}, "subscriptionGroups": [], "version": {"major": 4, "minor": 0}}"#
    }

    @Test("A tenant created or given a catalog through one server sells it on the other at once, is listed there, and keeps it on both after both restart; a tenants/<name>.storekit file is imported once")
    func catalogsAreSharedByServers() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        defer { try? PostgresTestDatabase.dropSchema(of: configuration) }
        let database = PostgresTestDatabase.url(of: configuration)
        let dataDirectory = temporaryDataDirectory()
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        func start() async throws -> (Server, Server) { try await startPair(database: database, dataDirectory: dataDirectory) }
        func buy(_ server: Server, _ tenant: String, _ productID: String) async throws -> Int {
            try await server.post("/t/\(tenant)/control/purchases", #"{"productId": "\#(productID)", "account": "ana"}"#).status
        }
        func products(_ server: Server, _ tenant: String) async throws -> [String] {
            let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: server.baseURL + "/t/\(tenant)/v1/products")))
            let answer = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return (answer["products"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        func tenants(_ server: Server) async throws -> [String: Bool] {
            let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: server.baseURL + "/control/tenants")))
            let answer = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let entries = try #require(answer["tenants"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: entries.compactMap { entry in
                (entry["name"] as? String).map { ($0, entry["hasOwnCatalog"] as? Bool ?? false) }
            })
        }

        var (first, second) = try await start()
        defer { first.process.terminate(); second.process.terminate() } // the servers running when the test ends
        // The second server has the tenant open, selling the server's catalog, when the first creates it.
        #expect(try await products(second, "shop").contains("com.example.demo.premium"))
        let (created, answer) = try await first.post("/control/tenants", #"{"name": "shop", "configuration": \#(Self.catalog(selling: "com.example.one"))}"#)
        #expect(created == 201, "\(String(describing: answer))")
        #expect(try await buy(second, "shop", "com.example.one") == 200, "in force on the other server at its next purchase")
        #expect(try await buy(second, "shop", "com.example.demo.premium") == 404, "the server's catalog is no longer the tenant's")
        #expect(try await products(second, "shop") == ["com.example.one"])
        #expect(try await tenants(second)["shop"] == true, "listed with a catalog of its own")

        let (replaced, replacedAnswer) = try await second.send("PUT", "/control/tenants/shop/catalog", Self.catalog(selling: "com.example.two"))
        #expect(replaced == 200, "\(String(describing: replacedAnswer))")
        #expect(try await products(first, "shop") == ["com.example.two"])
        #expect(try await buy(first, "shop", "com.example.two") == 200)
        #expect(try await buy(first, "shop", "com.example.one") == 404)
        // A tenant the second server never opened is listed there and sells its own catalog.
        #expect(try await first.post("/control/tenants", #"{"name": "fresh", "configuration": \#(Self.catalog(selling: "com.example.fresh"))}"#).status == 201)
        #expect(try await tenants(second)["fresh"] == true)
        #expect(try await buy(second, "fresh", "com.example.fresh") == 200)

        first.process.terminate()
        second.process.terminate()
        _ = try await first.process.finished()
        _ = try await second.process.finished()
        // A catalog an earlier version kept as a file in the first server's data directory.
        let tenantFolder = dataDirectory.appendingPathComponent("first/tenants")
        try FileManager.default.createDirectory(at: tenantFolder, withIntermediateDirectories: true)
        try Data(Self.catalog(selling: "com.example.legacy").utf8).write(to: tenantFolder.appendingPathComponent("legacy.storekit"))
        (first, second) = try await start()
        for server in [first, second] {
            #expect(try await products(server, "shop") == ["com.example.two"], "kept after a restart")
            #expect(try await buy(server, "fresh", "com.example.fresh") == 200)
            let listed = try await tenants(server)
            #expect(listed["shop"] == true && listed["fresh"] == true)
        }
        #expect(try await buy(second, "legacy", "com.example.legacy") == 200, "the file's catalog is the tenant's on every server")
        #expect(!FileManager.default.fileExists(atPath: tenantFolder.appendingPathComponent("legacy.storekit").path))
        #expect(FileManager.default.fileExists(atPath: tenantFolder.appendingPathComponent("legacy.storekit.imported").path))
    }

    @Test("A Retention Messaging message uploaded through one server is listed by the other at once, its review state set on the other holds on the first, and both keep it after both restart")
    func retentionMessagingIsSharedByServers() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        defer { try? PostgresTestDatabase.dropSchema(of: configuration) }
        let database = PostgresTestDatabase.url(of: configuration)
        let dataDirectory = temporaryDataDirectory()
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        func start() async throws -> (Server, Server) { try await startPair(database: database, dataDirectory: dataDirectory) }
        var (first, second) = try await start()
        defer { first.process.terminate(); second.process.terminate() } // the servers running when the test ends
        let bearer = try await first.makeBearer(issuer: "issuer-retention")
        func messaging(_ server: Server, _ method: String, _ path: String, _ body: String? = nil) async throws -> (status: Int, json: [String: Any]?) {
            try await server.serverAPI(method, "/inApps/v1/messaging/" + path, bearer: bearer, body: body)
        }
        func messages(_ server: Server) async throws -> [[String: String]] {
            try await messaging(server, "GET", "message/list").json?["messageIdentifiers"] as? [[String: String]] ?? []
        }

        let id = "a1000000-0000-4000-8000-000000000001"
        let uploaded = try await messaging(first, "PUT", "message/\(id)", #"{"header": "Stay with us", "body": "Your plan keeps your history."}"#)
        #expect(uploaded.status == 200, "\(String(describing: uploaded.json))")
        #expect(try await messages(second) == [["messageIdentifier": id, "messageState": "APPROVED"]], "listed by the other server at once")
        #expect(try await messaging(second, "PUT", "message/\(id)", #"{"header": "Again", "body": "Twice."}"#).status == 409, "known to the other server")
        let (reviewed, _) = try await second.send("PUT", "/control/retention/\(Self.bundleID)/messages/\(id)/state", #"{"state": "REJECTED"}"#)
        #expect(reviewed == 200)
        #expect(try await messages(first) == [["messageIdentifier": id, "messageState": "REJECTED"]])

        first.process.terminate()
        second.process.terminate()
        _ = try await first.process.finished()
        _ = try await second.process.finished()
        (first, second) = try await start()
        for server in [first, second] {
            #expect(try await messages(server) == [["messageIdentifier": id, "messageState": "REJECTED"]], "kept after a restart")
        }
        #expect(try await messaging(first, "DELETE", "message/\(id)").status == 200)
        #expect(try await messages(second).isEmpty)
    }

    @Test("A mass renewal-date extension requested through one server has its status answered by the other at once, and by both after both restart")
    func massExtensionsAreSharedByServers() async throws {
        let configuration = try PostgresTestDatabase.freshConfiguration()
        defer { try? PostgresTestDatabase.dropSchema(of: configuration) }
        let database = PostgresTestDatabase.url(of: configuration)
        let dataDirectory = temporaryDataDirectory()
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        func start() async throws -> (Server, Server) { try await startPair(database: database, dataDirectory: dataDirectory) }
        var (first, second) = try await start()
        defer { first.process.terminate(); second.process.terminate() } // the servers running when the test ends
        let bearer = try await first.makeBearer(issuer: "issuer-mass")
        func serverAPI(_ server: Server, _ method: String, _ path: String, _ body: String? = nil) async throws -> (status: Int, json: [String: Any]?) {
            try await server.serverAPI(method, "/inApps/v1/subscriptions/extend/mass" + path, bearer: bearer, body: body)
        }
        let product = "com.example.demo.plus.monthly"
        let (bought, purchase) = try await second.post("/control/purchases", #"{"productId": "\#(product)", "account": "ana", "bundleId": "\#(Self.bundleID)"}"#)
        #expect(bought == 200, "\(String(describing: purchase))")
        let requested = try await serverAPI(
            first, "POST", "", #"{"requestIdentifier": "mass-shared", "extendByDays": 3, "extendReasonCode": 1, "productId": "\#(product)"}"#
        )
        #expect(requested.status == 200, "\(String(describing: requested.json))")
        let status = try await serverAPI(second, "GET", "/\(product)/mass-shared")
        #expect(status.status == 200, "\(String(describing: status.json))")
        #expect(status.json?["complete"] as? Bool == true && status.json?["succeededCount"] as? Int == 1, "answered by the other server at once")

        first.process.terminate()
        second.process.terminate()
        _ = try await first.process.finished()
        _ = try await second.process.finished()
        (first, second) = try await start()
        for server in [first, second] {
            let kept = try await serverAPI(server, "GET", "/\(product)/mass-shared")
            #expect(kept.status == 200 && kept.json?["succeededCount"] as? Int == 1, "kept after a restart")
        }
        #expect(try await serverAPI(first, "GET", "/\(product)/mass-unknown").status == 404)
    }
}
