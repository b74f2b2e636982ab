import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("storekit serve")
struct ServeCommandTests {
    /// A running `storekit serve` and the port it printed.
    struct RunningServer {
        let process: Process
        let port: Int
    }

    func startServer(dataDirectory: URL) async throws -> RunningServer {
        let process = Process()
        process.executableURL = storekitExecutable
        process.arguments = ["serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.environment = ChildProcess.environment([:])
        try process.run()
        // The server prints its address once it listens.
        let port = try await Task.detached { () -> Int? in
            var buffer = ""
            while let chunk = try output.fileHandleForReading.read(upToCount: 1), !chunk.isEmpty {
                buffer += String(decoding: chunk, as: UTF8.self)
                if buffer.hasSuffix("\n"), let range = buffer.range(of: #"http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                    return Int(buffer[range].split(separator: ":").last!)
                }
            }
            return nil
        }.value
        return RunningServer(process: process, port: try #require(port, "storekit serve never printed its address"))
    }

    @Test("serve answers /health and /v1/products once it printed its address, and exits 0 on SIGTERM")
    func healthAndGracefulShutdown() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let server = try await startServer(dataDirectory: dataDirectory)
        let health = try await httpGet(URL(string: "http://127.0.0.1:\(server.port)/health")!)
        #expect(health.status == 200)
        let body = try #require(try JSONSerialization.jsonObject(with: health.body) as? [String: Any])
        #expect(body["status"] as? String == "ok")
        #expect(body["version"] as? String != nil)
        #expect(body["now"] as? String != nil)

        let products = try await httpGet(URL(string: "http://127.0.0.1:\(server.port)/v1/products")!)
        let catalog = try #require(try JSONSerialization.jsonObject(with: products.body) as? [String: Any])
        let ids = (catalog["products"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        #expect(ids.contains("com.example.demo.premium"))

        server.process.terminate() // SIGTERM
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .exit)
        #expect(server.process.terminationStatus == 0)
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
