import Foundation
import Testing
import TestProcesses

/// `storekit purchase --billing-plan MONTHLY`, embedded and against a server's control API: a subscription billed
/// monthly with a 12-month commitment, whose signed transaction Apple's library verifies and parses.
@Suite("storekit purchase --billing-plan", .limitsChildProcesses)
struct BillingPlanCommandTests {
    let dataDirectory = temporaryDataDirectory()
    let bundleID = "com.example.demo"
    let yearly = "com.example.demo.plus.yearly"

    /// The commitment of a signed transaction, as Apple's library parses it.
    func appleCommitment(_ token: String, root: URL) async throws -> [String: Any] {
        let tokenFile = dataDirectory.appendingPathComponent("transaction-\(UUID().uuidString).jws")
        try Data(token.utf8).write(to: tokenFile)
        let result = try await tool("python3", [
            repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/verify_signed_data.py").path,
            "transaction", tokenFile.path, "--root", root.path, "--bundle-id", bundleID,
        ])
        let output = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.output)\(result.errorOutput)")
        #expect(output["status"] as? String == "OK", "\(output)")
        let payload = try #require(output["payload"] as? [String: Any])
        #expect(payload["billingPlanType"] as? String == "MONTHLY")
        #expect((payload["price"] as? NSNumber)?.int64Value == 3_500)
        return try #require(payload["commitmentInfo"] as? [String: Any])
    }

    @Test("--billing-plan MONTHLY buys the first monthly instalment of a 12-month commitment, embedded and through a server")
    func monthlyPurchase() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        // The demo configuration's yearly subscription bills 39.99 up front, or 3.50 a month over a 42.00 commitment.
        let config = demoConfiguration
        let root = dataDirectory.appendingPathComponent("root.cer")
        let exported = try await storekit(["ca", "export", "--data-dir", dataDirectory.path, "--root", "jws", "--der", "--out", root.path])
        #expect(exported.status == 0, "\(exported.errorOutput)")

        let bought = try await storekit([
            "purchase", yearly, "--config", config, "--data-dir", dataDirectory.path, "--bundle-id", bundleID,
            "--billing-plan", "monthly", "--json",
        ])
        #expect(bought.status == 0, "\(bought.errorOutput)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bought.output.utf8)) as? [String: Any])
        let commitment = try await appleCommitment(try #require(json["signedTransaction"] as? String), root: root)
        #expect((commitment["billingPeriodNumber"] as? NSNumber)?.intValue == 1)
        #expect((commitment["totalBillingPeriods"] as? NSNumber)?.intValue == 12)
        #expect((commitment["commitmentPrice"] as? NSNumber)?.int64Value == 42_000)

        let refused = try await storekit([
            "purchase", "com.example.demo.plus.monthly", "--config", config, "--data-dir", dataDirectory.path,
            "--bundle-id", bundleID, "--billing-plan", "MONTHLY",
        ])
        #expect(refused.status != 0)
        #expect(refused.errorOutput.contains("no enabled MONTHLY billing plan"), "\(refused.errorOutput)")

        let server = try ChildProcess(try ChildProcess.builtExecutable("storekit"), [
            "serve", "--config", config, "--data-dir", dataDirectory.path, "--port", "0",
        ])
        defer { server.terminate() }
        let line = try await server.waitForLine(containing: "http://127.0.0.1:")
        let baseURL = try #require(line.split(separator: " ").last.map(String.init)?.trimmingCharacters(in: .whitespacesAndNewlines))
        let remote = try await storekit([
            "purchase", yearly, "--server", baseURL, "--account", "bob", "--bundle-id", bundleID, "--billing-plan", "MONTHLY", "--json",
        ])
        #expect(remote.status == 0, "\(remote.errorOutput)")
        let remoteJSON = try #require(try JSONSerialization.jsonObject(with: Data(remote.output.utf8)) as? [String: Any])
        let remoteCommitment = try await appleCommitment(try #require(remoteJSON["signedTransaction"] as? String), root: root)
        #expect((remoteCommitment["billingPeriodNumber"] as? NSNumber)?.intValue == 1)
    }
}
