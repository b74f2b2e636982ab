import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The refund loop over HTTP against a served store, with the StoreKit 2 example app as the customer's app and an app's
/// server built on Apple's library: a refund request waits, the server hears CONSUMPTION_REQUEST and answers with Send Consumption Information (v1 and v2), the test
/// decides, and a reversal gives the purchase back.
@Suite("Refund loop end to end", .limitsChildProcesses)
struct RefundLoopEndToEndTests {
    let dataDirectory = temporaryDataDirectory()
    let bundleID = "com.example.demo"
    let python = repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python")

    /// A served store whose notifications go to a receiver that verifies each with Apple's `SignedDataVerifier`.
    struct Setup {
        let server: ChildProcess
        let receiver: ChildProcess
        let baseURL: String
        let log: URL
        let keyID: String
        let issuer: String

        func terminate() {
            server.terminate()
            receiver.terminate()
        }

        /// A control API call; the answer's JSON object.
        func control(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> (status: Int, json: [String: Any]) {
            var request = URLRequest(url: try #require(URL(string: baseURL + "/" + path)))
            request.httpMethod = method
            if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
            let (data, response) = try await URLSession.shared.data(for: request)
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(String(decoding: data, as: UTF8.self))")
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, json)
        }

        /// The notifications the receiver verified, once there are `count` of them (or 30 seconds passed).
        func received(count: Int) async throws -> [[String: Any]] {
            let deadline = Date().addingTimeInterval(30)
            var received: [[String: Any]] = []
            while received.count < count, Date() < deadline {
                try await Task.sleep(for: .milliseconds(100))
                received = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                } ?? []
            }
            return received
        }
    }

    func start() async throws -> Setup {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let root = dataDirectory.appendingPathComponent("root.cer")
        #expect(try await storekit(["ca", "export", "--data-dir", dataDirectory.path, "--root", "jws", "--der", "--out", root.path]).status == 0)
        let log = dataDirectory.appendingPathComponent("received.jsonl")
        let receiver = try ChildProcess.tool("python3", [
            python.appendingPathComponent("notification_receiver.py").path, "--root", root.path, "--bundle-id", bundleID,
            "--log", log.path, "--down-flag", dataDirectory.appendingPathComponent("down").path,
        ])
        let receiverPort = try #require(try await receiver.waitForLine(containing: "listening on ").split(separator: " ").last)
        let issuer = "issuer-refunds"
        let keyID = try await storekit(["keys", "create", "--issuer", issuer, "--out", dataDirectory.path, "--data-dir", dataDirectory.path])
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ChildProcess(try ChildProcess.builtExecutable("storekit"), [
            "serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--port", "0",
            "--notification-url", "\(bundleID)=http://127.0.0.1:\(receiverPort)/apple",
        ])
        let listening = try await server.waitForLine(containing: "http://127.0.0.1:")
        let baseURL = try #require(listening.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        return Setup(server: server, receiver: receiver, baseURL: baseURL, log: log, keyID: keyID, issuer: issuer)
    }

    @Test("From the example app's beginRefundRequest over HTTP: a pending request sends CONSUMPTION_REQUEST; Apple's client sends consumption information (v1 and v2), kept with the request; a prorated decision sends REFUND with REFUND_PRORATED and its percentage and the app hears the revocation; a reversal sends REFUND_REVERSED and the app gets the purchase back")
    func proratedRefundAndReversal() async throws {
        let deviceDirectory = temporaryDataDirectory()
        defer {
            try? FileManager.default.removeItem(at: dataDirectory)
            try? FileManager.default.removeItem(at: deviceDirectory)
        }
        let setup = try await start()
        defer { setup.terminate() }
        let settings = try await setup.control("PUT", "control/settings", ["refundRequestsAwaitDecision": true])
        #expect(settings.json["refundRequestsAwaitDecision"] as? Bool == true, "\(settings.json)")

        // The StoreKit 2 example app, its store the served one: it buys, then asks for a refund as a customer does.
        let app = try ChildProcess(try ChildProcess.builtExecutable("ModernStore"), [], environment: [
            "OPENSTOREKIT_SERVER": setup.baseURL, "OPENSTOREKIT_DATA_DIR": deviceDirectory.path, "OPENSTOREKIT_BUNDLE_ID": bundleID,
        ], interactive: true)
        defer { app.terminate() }
        try await app.waitForLine(containing: "ready")
        app.send("buy com.example.demo.coins.100")
        let purchased = try await app.waitForLine(containing: "purchased com.example.demo.coins.100 (transaction ")
        let start = try #require(purchased.range(of: "(transaction ")).upperBound
        let id = String(purchased[start...].prefix { $0.isNumber })
        app.send("refund \(id)")
        try await app.waitForLine(containing: "refund requested for \(id): success")
        let asked = try await setup.control("GET", "control/transactions/\(id)")
        #expect((asked.json["refundRequest"] as? [String: Any])?["status"] as? String == "pending", "\(asked.json)")
        #expect(asked.json["revocationDate"] == nil, "nothing is refunded before a decision")
        var received = try await setup.received(count: 2)
        #expect(received.map { $0["notificationType"] as? String } == ["ONE_TIME_CHARGE", "CONSUMPTION_REQUEST"], "\(received)")
        #expect(received.allSatisfy { $0["status"] as? String == "OK" }, "\(received)")
        #expect(received.last?["consumptionRequestReason"] as? String == "OTHER", "the app's request gives no reason: \(received)")
        #expect(received.last?["transactionId"] as? String == id)

        // The app's server answers, with Apple's client.
        let sent = try await tool("python3", [
            python.appendingPathComponent("send_consumption.py").path, "--base-url", setup.baseURL,
            "--key-file", dataDirectory.appendingPathComponent("SubscriptionKey_\(setup.keyID).p8").path, "--key-id", setup.keyID,
            "--issuer", setup.issuer, "--bundle-id", bundleID, "--transaction-id", id,
        ])
        #expect(sent.status != 3, "Apple's library is missing: pip install app-store-server-library==3.1.2")
        let answers = try #require(try JSONSerialization.jsonObject(with: Data(sent.output.utf8)) as? [String: Any], "\(sent.output)\(sent.errorOutput)")
        #expect(answers["v1"] as? String == "accepted" && answers["v2"] as? String == "accepted", "\(answers)")
        #expect(answers["withoutConsent"] as? Int == 4_000_035)
        let shown = try await setup.control("GET", "control/transactions/\(id)")
        let consumption = (shown.json["refundRequest"] as? [String: Any])?["consumption"] as? [[String: Any]] ?? []
        #expect(consumption.map { $0["version"] as? Int } == [1, 2], "\(shown.json)")
        #expect((consumption.last?["fields"] as? String)?.contains(#""refundPreference":"GRANT_PRORATED""#) == true, "\(consumption)")
        #expect((consumption.last?["fields"] as? String)?.contains(#""consumptionPercentage":40000"#) == true, "\(consumption)")

        // The test decides with the CLI, against the running server.
        let decided = try await storekit(["tx", "decide-refund", id, "--prorated", "50000", "--server", setup.baseURL])
        #expect(decided.status == 0, "\(decided.errorOutput)")
        received = try await setup.received(count: 3)
        let refund = try #require(received.last)
        #expect(refund["notificationType"] as? String == "REFUND", "\(received)")
        #expect(refund["revocationType"] as? String == "REFUND_PRORATED")
        #expect(refund["revocationPercentage"] as? Int == 50_000)
        #expect(refund["revocationDate"] as? Int != nil)
        try await app.waitForLine(containing: "update com.example.demo.coins.100 revoked (transaction \(id), verified)")
        let shownRefund = try await storekit(["tx", "show", id, "--server", setup.baseURL])
        #expect(shownRefund.output.contains("REFUND_PRORATED 50000"), "\(shownRefund.output)")
        #expect(shownRefund.output.contains("refund request: refunded"), "\(shownRefund.output)")

        let reversed = try await setup.control("POST", "control/transactions/\(id)/reverse-refund")
        #expect(reversed.status == 200, "\(reversed.json)")
        #expect(reversed.json["revocationDate"] == nil)
        #expect((reversed.json["refundRequest"] as? [String: Any])?["status"] as? String == "reversed")
        received = try await setup.received(count: 4)
        #expect(received.last?["notificationType"] as? String == "REFUND_REVERSED", "\(received)")
        #expect(received.last?["revocationDate"] is NSNull, "the transaction REFUND_REVERSED carries grants its product again: \(received)")
        try await app.waitForLine(containing: "update com.example.demo.coins.100 purchased (transaction \(id), verified)")
        app.send("quit")
        try app.closeInput()
        #expect(try await app.finished().status == 0)
    }

    @Test("A declined request sends REFUND_DECLINED and the purchase stays; with the setting off a request is decided at once, as before")
    func declineAndDefault() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let setup = try await start()
        defer { setup.terminate() }
        let first = try await setup.control("POST", "control/purchases", ["productId": "com.example.demo.coins.100", "bundleId": bundleID])
        let immediate = try #require(first.json["transactionId"] as? String)
        let refunded = try await storekit(["tx", "request-refund", immediate, "--server", setup.baseURL])
        #expect(refunded.status == 0, "\(refunded.errorOutput)")
        #expect(refunded.output.hasPrefix("refunded"), "the default decides at once: \(refunded.output)")

        let set = try await storekit(["settings", "set", "--refund-requests-await-decision", "on", "--server", setup.baseURL])
        #expect(set.status == 0, "\(set.errorOutput)")
        #expect(set.output.contains("refund requests:        await a decision"), "\(set.output)")
        let second = try await setup.control("POST", "control/purchases", ["productId": "com.example.demo.coins.100", "bundleId": bundleID])
        let id = try #require(second.json["transactionId"] as? String)
        let asked = try await storekit(["tx", "request-refund", id, "--reason", "FULFILLMENT_ISSUE", "--server", setup.baseURL])
        #expect(asked.output.contains("refund request pending"), "\(asked.output)\(asked.errorOutput)")
        let declined = try await setup.control("POST", "control/transactions/\(id)/refund-request/decision", ["decision": "decline"])
        #expect(declined.status == 200, "\(declined.json)")
        #expect(declined.json["revocationDate"] == nil)
        let wrong = try await setup.control("POST", "control/transactions/\(id)/refund-request/decision", ["decision": "decline"])
        #expect(wrong.status == 400, "a decided request is not decided again: \(wrong.json)")

        // Notifications of different purchases may arrive in either order.
        let received = try await setup.received(count: 5)
        #expect(received.compactMap { $0["notificationType"] as? String }.sorted() == [
            "CONSUMPTION_REQUEST", "ONE_TIME_CHARGE", "ONE_TIME_CHARGE", "REFUND", "REFUND_DECLINED",
        ], "\(received)")
        #expect(received.first { $0["notificationType"] as? String == "CONSUMPTION_REQUEST" }?["consumptionRequestReason"] as? String == "FULFILLMENT_ISSUE")
    }
}
