import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("storekit serve")
struct ServeCommandTests {
    /// Starts `storekit serve` on a free port and returns it with the port it printed once it listens.
    func startServer(dataDirectory: URL) async throws -> (server: ChildProcess, port: Int) {
        let server = try ChildProcess(
            try ChildProcess.builtExecutable("storekit"),
            ["serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--port", "0"]
        )
        let line = try await server.waitForLine(containing: "http://127.0.0.1:")
        let port = line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return (server, try #require(port, "no port in \(line)"))
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

    @Test("serve refuses a bad configuration with the file's errors and exit status 1")
    func badConfiguration() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).storekit")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{ "products": [ { "type": "Consumable", "productID": "a" "#.utf8).write(to: file)
        let run = try storekit(["serve", "--config", file.path, "--port", "0"])
        #expect(run.status != 0)
        #expect(run.errorOutput.contains(file.lastPathComponent))
    }
}
