import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The example app as a process of its own, its store a `storekit serve` it reaches with `OPENSTOREKIT_SERVER`.
@Suite("An app process on storekit serve", .limitsChildProcesses)
struct ServedAppTests {
    let serverDirectory = temporaryDataDirectory()
    let deviceDirectory = temporaryDataDirectory()

    func startServer(port: Int = 0) async throws -> (server: ChildProcess, port: Int) {
        let started = try await startStorekitServe(dataDirectory: serverDirectory, port: port)
        return (started.server, started.port)
    }

    /// Buys `productID` for the example app's account with the control API, as a backend test would.
    func buyOutsideTheApp(_ productID: String, port: Int) async throws {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/control/purchases")))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"productId": "\#(productID)", "bundleId": "com.example.demo"}"#.utf8)
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: body, as: UTF8.self))")
    }

    @Test("The app buys through the server, hears of purchases the control API makes, and carries on after the server restarts")
    func appOnServer() async throws {
        defer {
            try? FileManager.default.removeItem(at: serverDirectory)
            try? FileManager.default.removeItem(at: deviceDirectory)
        }
        var (server, port) = try await startServer()
        let app = try ChildProcess(try ChildProcess.builtExecutable("InAppPurchases"), [], environment: [
            "OPENSTOREKIT_SERVER": "http://127.0.0.1:\(port)", "OPENSTOREKIT_DATA_DIR": deviceDirectory.path,
            "OPENSTOREKIT_BUNDLE_ID": "com.example.demo",
        ], interactive: true)
        try await app.waitForLine(containing: "ready")
        app.send("products")
        try await app.waitForLine(containing: "Premium — $9.99 (com.example.demo.premium)")
        app.send("buy com.example.demo.premium")
        try await app.waitForLine(containing: "finished com.example.demo.premium (transaction 2000000000000001)")

        // A backend test buys for the same customer: the server's change feed brings it to the running app.
        try await buyOutsideTheApp("com.example.demo.theme.dark", port: port)
        try await app.waitForLine(containing: "purchased com.example.demo.theme.dark ×1 (transaction 2000000000000002)")

        // The server stops and comes back on the same port; the app reconnects by itself.
        server.terminate()
        #expect(try await server.finished().status == 0)
        (server, port) = try await startServer(port: port)
        defer { server.terminate() }
        try await buyOutsideTheApp("com.example.demo.season.pass", port: port)
        try await app.waitForLine(containing: "purchased com.example.demo.season.pass ×1 (transaction 2000000000000003)")

        app.send("receipt")
        try await app.waitForLine(containing: "receipt: ")
        app.send("quit")
        try app.closeInput()
        #expect(try await app.finished().status == 0)
        // The purchases are the server's: the CLI reads them from its data directory.
        let listed = try await storekit(["tx", "list", "--data-dir", serverDirectory.path])
        #expect(listed.output.contains("com.example.demo.premium"))
        #expect(listed.output.contains("com.example.demo.season.pass"))
    }
}

/// The transaction-manager commands with `--server`: the same commands, acting on a running server's store.
@Suite("storekit commands on a running server", .limitsChildProcesses)
struct ServerCommandTests {
    @Test("purchase, tx list, refund, auto-renew, renew, delete and clear act on the server's store (and its tenant's with --tenant)")
    func commandsOnServer() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, _, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        // No --config and no data directory: the server has both.
        let elsewhere = temporaryDataDirectory().path
        func run(_ arguments: [String]) async throws -> String {
            let result = try await storekit(arguments + ["--server", address, "--data-dir", elsewhere])
            #expect(result.status == 0, "storekit \(arguments): \(result.errorOutput)")
            return result.output
        }

        #expect(try await run(["purchase", "com.example.demo.premium", "--bundle-id", "com.example.demo"]).contains("2000000000000001  com.example.demo.premium  purchased"))
        let bought = try await run(["purchase", "com.example.demo.plus.monthly", "--bundle-id", "com.example.demo", "--json"])
        let monthly = try #require(try JSONSerialization.jsonObject(with: Data(bought.utf8)) as? [String: Any])
        #expect((monthly["signedTransaction"] as? String)?.split(separator: ".").count == 3)
        #expect(try await run(["tx", "auto-renew", "2000000000000002", "off"]).contains("auto-renew off"))
        #expect(try await run(["subscriptions"]).contains("com.example.demo.plus.monthly"))
        #expect(try await run(["tx", "renew", "2000000000000002"]).contains("com.example.demo.plus.monthly  purchased"))
        #expect(try await run(["tx", "refund", "2000000000000001", "--reason", "app-issue"]).contains("refunded 2000000000000001"))
        let listed = try await run(["tx", "list"])
        #expect(listed.contains("2000000000000001  com.example.demo.premium") && listed.contains("refunded"))
        #expect(try await run(["tx", "delete", "2000000000000001"]).contains("deleted 2000000000000001"))

        // --tenant picks one of the server's isolated stores.
        #expect(try await run(["purchase", "com.example.demo.premium", "--tenant", "checkout"]).contains("2000000000000001"))
        #expect(try await run(["tx", "list", "--tenant", "checkout"]).split(separator: "\n").count == 1)
        _ = try await run(["tx", "clear"])
        #expect(try await run(["tx", "list"]).contains("No transactions in the server at"))
        #expect(try await run(["tx", "list", "--tenant", "checkout"]).contains("com.example.demo.premium"))

        // An offer code and a promoted purchase, as customers do them outside the app.
        #expect(try await run(["redeem", "Launch code", "--bundle-id", "com.example.demo", "--account", "carol"]).contains("offer Launch code"))
        #expect(try await run(["promote", "com.example.demo.theme.dark", "--bundle-id", "com.example.demo"]).contains("promoted com.example.demo.theme.dark"))

        // A refusal says what the server said; the data directory was never touched.
        let refused = try await storekit(["tx", "approve", "2000000000000009", "--server", address, "--data-dir", elsewhere])
        #expect(refused.status != 0)
        #expect(refused.errorOutput.contains("2000000000000009"))
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
    }
}

extension ServerCommandTests {
    @Test("storekit clock advance, set, rate and show act on a running server's clock with --server")
    func clockOnServer() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, _, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        let monthly = try await storekit(["purchase", "com.example.demo.plus.monthly", "--server", address, "--tenant", "clocked"])
        #expect(monthly.output.contains("2000000000000001"))
        #expect(try await storekit(["clock", "set", "2040-01-01", "--server", address, "--tenant", "clocked"]).output.contains("now 2040-01-01T00:00:00Z"))
        // The clock runs on from wall time between the two commands: a day later, give or take the seconds between them.
        #expect(try await storekit(["clock", "advance", "1d", "--server", address, "--tenant", "clocked"]).output.contains("now 2040-01-02T00:0"))
        #expect(try await storekit(["clock", "rate", "oneMinuteIsOneDay", "--server", address, "--tenant", "clocked"]).output.contains("time rate oneMinuteIsOneDay"))
        #expect(try await storekit(["clock", "show", "--server", address, "--tenant", "clocked"]).output.contains("2040-01-02"))
        // The server renewed the subscription on the way, as its own clock moved.
        let renewals = try await storekit(["tx", "list", "--server", address, "--tenant", "clocked"]).output.split(separator: "\n")
        #expect(renewals.count > 100)
    }
}
