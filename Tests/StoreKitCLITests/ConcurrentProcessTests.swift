import Foundation
import Testing
import TestProcesses

/// `storekit` processes racing on one data directory, as an app, a server and a terminal do on one machine.
@Suite("Processes racing on one store", .limitsChildProcesses)
struct ConcurrentProcessTests {
    static let racers = 6
    static let rounds = 3

    func listed(_ dataDirectory: URL) async throws -> [[String: Any]] {
        let run = try await storekit(["tx", "list", "--data-dir", dataDirectory.path, "--json"])
        #expect(run.status == 0, "\(run.errorOutput)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]])
    }

    @Test("Processes refunding one transaction at the same moment: exactly one refunds it, the others are told it already is")
    func oneRefund() async throws {
        for _ in 0..<Self.rounds {
            let dataDirectory = temporaryDataDirectory()
            defer { try? FileManager.default.removeItem(at: dataDirectory) }
            let bought = try await storekit(["purchase", "com.example.demo.coins.100", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--json"])
            #expect(bought.status == 0, "\(bought.errorOutput)")
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(bought.output.utf8)) as? [String: Any])
            let id = try #require(payload["transactionId"] as? String)

            let runs = try await storekitConcurrently(Array(repeating: ["tx", "refund", id, "--data-dir", dataDirectory.path], count: Self.racers))
            #expect(runs.filter { $0.status == 0 }.count == 1, "\(runs.map(\.errorOutput))")
            #expect(runs.filter { $0.status != 0 && $0.errorOutput.contains("already refunded") }.count == Self.racers - 1)
            let all = try await listed(dataDirectory)
            #expect(all.count == 1)
            #expect(all.first?["revocationDate"] != nil)
        }
    }

    @Test("Processes buying one non-consumable at the same moment make one owner; the others are uncharged repurchases")
    func oneOwner() async throws {
        for _ in 0..<Self.rounds {
            let dataDirectory = temporaryDataDirectory()
            defer { try? FileManager.default.removeItem(at: dataDirectory) }
            let purchase = ["purchase", "com.example.demo.premium", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--account", "ana"]
            let runs = try await storekitConcurrently(Array(repeating: purchase, count: Self.racers))
            #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.errorOutput))")
            let all = try await listed(dataDirectory)
            #expect(all.count == Self.racers)
            #expect(Set(all.compactMap { $0["transactionId"] as? String }).count == Self.racers)
            #expect(Set(all.compactMap { $0["originalTransactionId"] as? String }).count == 1)
            #expect(all.filter { $0["origin"] as? String == "purchase" }.count == 1, "\(all)")
        }
    }
}
