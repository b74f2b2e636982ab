import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("storekit serve", .limitsChildProcesses)
struct ServeCommandTests {
    /// Starts `storekit serve` on a free port and returns it with the port it printed once it listens.
    func startServer(dataDirectory: URL) async throws -> (server: ChildProcess, port: Int) {
        let started = try await startStorekitServe(dataDirectory: dataDirectory)
        return (started.server, started.port)
    }

    @Test("serve answers /health and /v1/products once it printed its address, and exits 0 on SIGTERM")
    func healthAndGracefulShutdown() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, port) = try await startServer(dataDirectory: dataDirectory)
        let health = try await httpGet(URL(string: "http://127.0.0.1:\(port)/health")!)
        #expect(health.status == 200)
        let body = try #require(try JSONSerialization.jsonObject(with: health.body) as? [String: Any])
        #expect(body["status"] as? String == "ok")
        #expect(body["version"] as? String != nil)
        #expect(body["now"] as? String != nil)

        let products = try await httpGet(URL(string: "http://127.0.0.1:\(port)/v1/products")!)
        let catalog = try #require(try JSONSerialization.jsonObject(with: products.body) as? [String: Any])
        let ids = (catalog["products"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        #expect(ids.contains("com.example.demo.premium"))

        server.terminate() // SIGTERM
        let finished = try await server.finished()
        #expect(server.terminationReason == .exit)
        #expect(finished.status == 0)
    }

    @Test("serve --notification-url sends a purchase another process made to a receiver built on Apple's library")
    func sendsNotifications() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let root = dataDirectory.appendingPathComponent("root.cer")
        #expect(try await storekit(["ca", "export", "--data-dir", dataDirectory.path, "--root", "jws", "--der", "--out", root.path]).status == 0)
        let log = dataDirectory.appendingPathComponent("received.jsonl")
        let receiver = try ChildProcess.tool("python3", [
            repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/notification_receiver.py").path,
            "--root", root.path, "--bundle-id", "com.example.demo", "--log", log.path,
            "--down-flag", dataDirectory.appendingPathComponent("down").path,
        ])
        defer { receiver.terminate() }
        let receiverPort = try #require(try await receiver.waitForLine(containing: "listening on ").split(separator: " ").last)

        let issuer = "issuer-1"
        let keyID = try await storekit(["keys", "create", "--issuer", issuer, "--out", dataDirectory.path, "--data-dir", dataDirectory.path])
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ChildProcess(try ChildProcess.builtExecutable("storekit"), [
            "serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--port", "0",
            "--notification-url", "com.example.demo=http://127.0.0.1:\(receiverPort)/apple",
        ])
        defer { server.terminate() }
        let listening = try await server.waitForLine(containing: "http://127.0.0.1:")
        let baseURL = try #require(listening.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })

        // A test notification, asked for with Apple's API client, reaches the receiver; its status says so.
        let test = try await tool("python3", [
            repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/request_test_notification.py").path,
            "--base-url", baseURL, "--key-file", dataDirectory.appendingPathComponent("SubscriptionKey_\(keyID).p8").path,
            "--key-id", keyID, "--issuer", issuer, "--bundle-id", "com.example.demo", "--root", root.path,
        ])
        let testResult = try #require(try JSONSerialization.jsonObject(with: Data(test.output.utf8)) as? [String: Any], "\(test.output)\(test.errorOutput)")
        #expect(testResult["notificationType"] as? String == "TEST")
        #expect(testResult["sendAttempts"] as? [String] == ["SUCCESS"])
        #expect((testResult["token"] as? String)?.hasPrefix(testResult["notificationUUID"] as? String ?? "-") == true)
        let bought = try await storekit(["purchase", "com.example.demo.premium", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--bundle-id", "com.example.demo", "--json"])
        #expect(bought.status == 0, "\(bought.errorOutput)")
        let transactionID = try #require((try JSONSerialization.jsonObject(with: Data(bought.output.utf8)) as? [String: Any])?["transactionId"] as? String)

        // The server picks up what another process recorded within its pickup interval (2 s); allow for a slow machine.
        let deadline = Date().addingTimeInterval(30)
        var received: [[String: Any]] = []
        while received.count < 2, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            received = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            } ?? []
        }
        #expect(received.count == 2)
        #expect(received.allSatisfy { $0["status"] as? String == "OK" }, "\(received)")
        #expect(received.map { $0["notificationType"] as? String } == ["TEST", "ONE_TIME_CHARGE"])
        #expect(received.last?["transactionId"] as? String == transactionID)

        // Reset the server's own store (the page's "Reset store"): it keeps sending what it records afterwards.
        let reset = try await storekit(["tenants", "reset", "default", "--server", baseURL])
        #expect(reset.status == 0, "\(reset.errorOutput)")
        let afterReset = try await storekit(["purchase", "com.example.demo.theme.dark", "--bundle-id", "com.example.demo", "--server", baseURL])
        #expect(afterReset.status == 0, "\(afterReset.errorOutput)")
        let resetDeadline = Date().addingTimeInterval(30)
        while received.count < 3, Date() < resetDeadline {
            try await Task.sleep(for: .milliseconds(100))
            received = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            } ?? []
        }
        #expect(received.map { $0["notificationType"] as? String } == ["TEST", "ONE_TIME_CHARGE", "ONE_TIME_CHARGE"])

        let bad = try await storekit(["serve", "--config", demoConfiguration, "--notification-url", "not a url"])
        #expect(bad.status != 0)
        #expect(bad.errorOutput.contains("is not an http or https URL"), "\(bad.errorOutput)")
    }

    @Test("Each /t/{tenant}/ is an isolated store in the data directory: a purchase there shows in `storekit tx list --tenant`")
    func tenantsOverHTTP() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, port) = try await startServer(dataDirectory: dataDirectory)
        defer { server.terminate() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/t/qa-1/control/purchases")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"productId": "com.example.demo.premium", "bundleId": "com.example.demo"}"#.utf8)
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: body, as: UTF8.self))")
        let bought = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let id = try #require(bought["transactionId"] as? String)

        let inTenant = try await storekit(["tx", "list", "--data-dir", dataDirectory.path, "--tenant", "qa-1", "--json"])
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(inTenant.output.utf8)) as? [[String: Any]])
        #expect(listed.map { $0["transactionId"] as? String } == [id])
        let inDefault = try await storekit(["tx", "list", "--data-dir", dataDirectory.path, "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(inDefault.output.utf8)) as? [Any])?.isEmpty == true)
    }

    @Test("serve has its signing keys before it says it is serving, so the first purchase does not wait for RSA key generation")
    func signingKeysBeforeServing() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, _) = try await startServer(dataDirectory: dataDirectory)
        defer { server.terminate() }
        // Nothing was asked of the server yet: the authority exists because serving waited for it.
        let authority = dataDirectory.appendingPathComponent("ca")
        for name in ["receipt-leaf-key.pem", "jws-leaf-key.pem", "jws-root.pem"] {
            #expect(FileManager.default.fileExists(atPath: authority.appendingPathComponent(name).path), "ca/\(name) is missing")
        }
    }

    @Test("serve refuses a data directory whose signing key is damaged, naming the file, instead of failing every purchase")
    func damagedSigningKey() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let made = try await storekit(["ca", "export", "--data-dir", dataDirectory.path])
        try #require(made.status == 0, "\(made.errorOutput)")
        let key = dataDirectory.appendingPathComponent("ca/jws-leaf-key.pem")
        try Data("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n".utf8).write(to: key)
        let server = try ChildProcess(
            try ChildProcess.builtExecutable("storekit"), ["serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--port", "0"]
        )
        // Should the server serve anyway, stop it, so that the expectations below report it instead of the test hanging.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            server.terminate()
        }
        defer { watchdog.cancel() }
        let run = try await server.finished()
        #expect(run.status != 0)
        #expect(run.errorOutput.contains("jws-leaf-key.pem"), "\(run.errorOutput)")
        #expect(!run.output.contains("serving"))
    }

    @Test("serve refuses a bad configuration with the file's errors and exit status 1")
    func badConfiguration() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).storekit")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{ "products": [ { "type": "Consumable", "productID": "a" "#.utf8).write(to: file)
        let run = try await storekit(["serve", "--config", file.path, "--port", "0"])
        #expect(run.status != 0)
        #expect(run.errorOutput.contains(file.lastPathComponent))
    }
}
