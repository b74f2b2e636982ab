import Foundation
import Testing
import TestProcesses

/// The Retention Messaging API of `storekit serve`, driven by Apple's `AppStoreServerAPIClient` (Python): every method
/// of the client, and a performance test against a Get Retention Message endpoint on loopback that verifies what it
/// receives with Apple's `SignedDataVerifier`.
@Suite("Apple's client drives the Retention Messaging API", .limitsChildProcesses)
struct RetentionMessagingEndToEndTests {
    let dataDirectory = temporaryDataDirectory()
    let bundleID = "com.example.demo"
    let subscriptionProduct = "com.example.demo.plus.monthly"

    @Test("All fourteen Retention Messaging methods of Apple's client succeed against storekit serve; refusals carry Apple's error codes")
    func retentionMessaging() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let root = dataDirectory.appendingPathComponent("root.cer")
        let exported = try await storekit(["ca", "export", "--data-dir", dataDirectory.path, "--root", "jws", "--der", "--out", root.path])
        #expect(exported.status == 0, "\(exported.errorOutput)")
        let issuer = "57246542-96fe-1a63-e053-0824d011072a"
        let created = try await storekit(["keys", "create", "--issuer", issuer, "--out", dataDirectory.path, "--data-dir", dataDirectory.path])
        #expect(created.status == 0, "\(created.errorOutput)")
        let keyID = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let bought = try await storekit(["purchase", subscriptionProduct, "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--bundle-id", bundleID, "--json"])
        #expect(bought.status == 0, "\(bought.errorOutput)")
        let purchase = try #require(try JSONSerialization.jsonObject(with: Data(bought.output.utf8)) as? [String: Any])
        let subscriptionID = try #require(purchase["transactionId"] as? String)

        let server = try ChildProcess(try ChildProcess.builtExecutable("storekit"), [
            "serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--port", "0",
        ])
        defer { server.terminate() }
        let line = try await server.waitForLine(containing: "http://127.0.0.1:")
        let baseURL = try #require(line.split(separator: " ").last.map(String.init)?.trimmingCharacters(in: .whitespacesAndNewlines))

        let script = repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/retention_messaging_client.py")
        let run = try await tool("python3", [
            script.path, "--base-url", baseURL, "--key-file", dataDirectory.appendingPathComponent("SubscriptionKey_\(keyID).p8").path,
            "--key-id", keyID, "--issuer", issuer, "--bundle-id", bundleID, "--root", root.path,
            "--transaction-id", subscriptionID, "--product-id", subscriptionProduct, "--locale", "en-US",
        ])
        #expect(run.status != 3, "Apple's library is missing: pip install app-store-server-library==3.1.2")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)\(run.errorOutput)")

        let image = try #require(result["image"] as? String), icon = try #require(result["icon"] as? String)
        let message = try #require(result["message"] as? String), plain = try #require(result["plain"] as? String)
        #expect(result["images"] as? [[String: String]] == [
            ["id": image, "state": "APPROVED", "size": "FULL_SIZE"], ["id": icon, "state": "APPROVED", "size": "BULLET_POINT"],
        ])
        #expect(result["messages"] as? [[String: String]] == [["id": message, "state": "APPROVED"], ["id": plain, "state": "APPROVED"]])
        #expect(result["duplicateImage"] as? Int == 4_090_000)
        #expect(result["notAPNG"] as? Int == 4_000_161)
        #expect(result["duplicateMessage"] as? Int == 4_090_001)
        #expect(result["imageInUse"] as? Int == 4_030_019)
        #expect(result["defaultMessage"] as? String == message)
        #expect(result["unknownDefault"] as? Int == 4_040_015)
        #expect(result["badLocale"] as? Int == 4_000_164)
        #expect(result["noTestWithoutURL"] as? Int == 4_040_021)
        let endpoint = try #require(result["endpoint"] as? String)
        #expect(result["realtimeURL"] as? String == endpoint)

        let config = try #require(result["performanceTestConfig"] as? [String: Int])
        let totalRequests = try #require(config["totalRequests"])
        #expect(config["responseTimeThreshold"] == 700)
        let test = try #require(result["performanceTest"] as? [String: Any])
        #expect(test["result"] as? String == "PASS", "\(test) \(result["endpointRequests"] ?? "")")
        #expect(test["successRate"] as? Int == 100)
        #expect(test["numPending"] as? Int == 0)
        #expect(test["target"] as? String == endpoint)
        #expect((test["failures"] as? [String: Int])?.isEmpty ?? true)
        let times = try #require(test["responseTimes"] as? [String: Int])
        #expect(try #require(times["p99"]) <= 700)
        #expect(result["unknownTestRun"] as? Int == 4_040_018)

        // The endpoint verified every request with Apple's SignedDataVerifier.
        #expect((result["endpointFailures"] as? [String])?.isEmpty == true, "\(result["endpointFailures"] ?? "")")
        let requests = try #require(result["endpointRequests"] as? [[String: Any]])
        #expect(requests.count == totalRequests)
        #expect(Set(requests.compactMap { $0["requestIdentifier"] as? String }).count == totalRequests)
        for request in requests {
            #expect(request["originalTransactionId"] as? String == subscriptionID)
            #expect(request["productId"] as? String == subscriptionProduct)
            #expect(request["environment"] as? String == "Sandbox")
            #expect((request["appAppleId"] as? Int ?? 0) > 0)
        }

        #expect(result["deletedDefault"] as? Int == 4_040_020)
        #expect(result["deletedRealtimeURL"] as? Int == 4_040_021)
        #expect(result["deletedMessage"] as? Int == 4_040_015)
        #expect(result["deletedImage"] as? Int == 4_040_014)
        #expect(result["imagesAfter"] as? Int == 0)
        #expect(result["messagesAfter"] as? Int == 0)
    }
}
