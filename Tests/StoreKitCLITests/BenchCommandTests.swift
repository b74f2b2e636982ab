import Foundation
import TestProcesses
import Testing

/// `storekit bench http` against a real `storekit serve` on loopback: each workload's requests are answered, and the
/// report gives the count, the rate and the latency percentiles. (Speed targets live in the benchmark's own runs,
/// never in tests.)
@Suite("storekit bench http", .limitsChildProcesses)
struct BenchCommandTests {
    @Test("Each workload drives a running server and reports requests, failures and latency percentiles", arguments: ["purchases", "transaction-info", "verify-receipt"])
    func workloads(workload: String) async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let issuer = "bench-issuer"
        let keyID = try await storekit(["keys", "create", "--issuer", issuer, "--out", dataDirectory.path, "--data-dir", dataDirectory.path])
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
        let (server, _, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }

        // No --seconds: --requests decides (at 20/s, the 60 requests of verify-receipt take longer than the 2 s the
        // other benchmarks default to).
        var arguments = ["bench", "http", "--server", address, "--workload", workload, "--requests", "60"]
        if workload == "transaction-info" {
            arguments += ["--key-file", dataDirectory.appendingPathComponent("SubscriptionKey_\(keyID).p8").path, "--key-id", keyID, "--issuer", issuer]
        }
        if workload == "verify-receipt" { arguments += ["--rate", "20"] }
        let run = try await storekit(arguments)
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output.contains("60 requests in "), "\(run.output)")
        #expect(run.output.contains("; 0 failed"), "\(run.output)")
        #expect(run.output.contains("latency ms: p50 "), "\(run.output)")
        if workload == "purchases" {
            let listed = try await storekit(["tx", "list", "--server", address, "--json"])
            let purchases = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
            #expect(purchases.count == 60, "every request bought once")
        }
    }

    @Test("transaction-info without an API key, and a server that is not there, are refused with what to do")
    func refusals() async throws {
        let noKey = try await storekit(["bench", "http", "--server", "http://127.0.0.1:9", "--workload", "transaction-info"])
        #expect(noKey.status != 0)
        #expect(noKey.errorOutput.contains("--key-file, --key-id and --issuer"), "\(noKey.errorOutput)")
        let badWorkload = try await storekit(["bench", "http", "--workload", "everything"])
        #expect(badWorkload.status != 0)
        #expect(badWorkload.errorOutput.contains("purchases, transaction-info, verify-receipt"), "\(badWorkload.errorOutput)")
        let noServer = try await storekit(["bench", "http", "--server", "http://127.0.0.1:9", "--requests", "5"])
        #expect(noServer.status != 0)
        #expect(noServer.errorOutput.contains("Cannot connect to 127.0.0.1:9"), "\(noServer.errorOutput)")
        #expect(noServer.errorOutput.contains("Is `storekit serve` running there?"), "\(noServer.errorOutput)")
    }

    @Test("Requests the server refuses are counted as failed, with the first refusal shown, in both loops", arguments: [[], ["--rate", "50"]])
    func refusedRequestsAreFailures(pacing: [String]) async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, _, address) = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { server.terminate() }
        let run = try await storekit(["bench", "http", "--server", address, "--product", "no.such.product", "--requests", "20", "--connections", "3"] + pacing)
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output.contains("20 requests in "), "\(run.output)")
        #expect(run.output.contains("; 20 failed"), "\(run.output)")
        #expect(run.output.contains("first failure: HTTP 404"), "\(run.output)")
        #expect(run.output.contains("no.such.product"), "the refusal's message is shown: \(run.output)")
    }
}
