import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The example app as a process of its own, its store a `storekit serve` it reaches with `OPENSTOREKIT_SERVER`.
@Suite("An app process on storekit serve")
struct ServedAppTests {
    let serverDirectory = temporaryDataDirectory()
    let deviceDirectory = temporaryDataDirectory()

    func startServer(port: Int = 0) async throws -> (server: ChildProcess, port: Int) {
        let server = try ChildProcess(
            try ChildProcess.builtExecutable("storekit"),
            ["serve", "--config", demoConfiguration, "--data-dir", serverDirectory.path, "--port", String(port)]
        )
        let line = try await server.waitForLine(containing: "http://127.0.0.1:")
        let bound = line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return (server, try #require(bound, "no port in \(line)"))
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
        let listed = try storekit(["transactions", "--data-dir", serverDirectory.path])
        #expect(listed.output.contains("com.example.demo.premium"))
        #expect(listed.output.contains("com.example.demo.season.pass"))
    }
}
