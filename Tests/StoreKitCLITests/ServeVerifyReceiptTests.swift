import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `storekit serve`'s `verifyReceipt` paths, end to end: purchases and a receipt made by other `storekit` commands in
/// the same data directory, verified over HTTP by the running server.
@Suite("storekit serve verifyReceipt", .limitsChildProcesses)
struct ServeVerifyReceiptTests {
    func post(_ body: [String: Any], to url: URL) async throws -> [String: Any] {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("A receipt written by storekit receipt answers 0 with its purchases; --shared-secret makes a wrong password 21004")
    func receiptFromTheStore() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let store = ["--data-dir", dataDirectory.path]
        #expect(try await storekit(["purchase", "com.example.demo.plus.monthly", "--config", demoConfiguration] + store).status == 0)
        #expect(try await storekit(["purchase", "com.example.demo.premium", "--config", demoConfiguration] + store).status == 0)
        let receiptFile = dataDirectory.appendingPathComponent("receipt.der")
        #expect(try await storekit(["receipt", "--out", receiptFile.path] + store).status == 0)
        let receiptData = try Data(contentsOf: receiptFile).base64EncodedString()

        let server = try ChildProcess(
            try ChildProcess.builtExecutable("storekit"),
            ["serve", "--config", demoConfiguration, "--port", "0", "--shared-secret", "com.example.app=0123456789abcdef"] + store
        )
        let line = try await server.waitForLine(containing: "http://127.0.0.1:")
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        let sandbox = URL(string: "http://127.0.0.1:\(port)/sandbox/verifyReceipt")!

        let valid = try await post(["receipt-data": receiptData, "password": "0123456789abcdef"], to: sandbox)
        #expect(valid["status"] as? Int == 0)
        #expect(valid["environment"] as? String == "Sandbox")
        let inApp = (valid["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]] ?? []
        #expect(Set(inApp.compactMap { $0["product_id"] as? String }) == ["com.example.demo.plus.monthly", "com.example.demo.premium"])
        #expect((valid["pending_renewal_info"] as? [[String: Any]])?.first?["auto_renew_status"] as? String == "1")

        let wrongSecret = try await post(["receipt-data": receiptData, "password": "wrong"], to: sandbox)
        #expect(wrongSecret["status"] as? Int == 21004)
        let production = try await post(["receipt-data": receiptData, "password": "0123456789abcdef"], to: URL(string: "http://127.0.0.1:\(port)/verifyReceipt")!)
        #expect(production["status"] as? Int == 21007)
        let garbage = try await post(["receipt-data": "bm90IGEgcmVjZWlwdA=="], to: sandbox)
        #expect(garbage["status"] as? Int == 21002)

        server.terminate()
        _ = try await server.finished()
    }

    @Test("serve refuses a --shared-secret that is not BUNDLE_ID=SECRET")
    func malformedSharedSecret() async throws {
        let run = try await storekit(["serve", "--config", demoConfiguration, "--port", "0", "--data-dir", temporaryDataDirectory().path, "--shared-secret", "com.example.app"])
        #expect(run.status != 0)
        #expect(run.errorOutput.contains("BUNDLE_ID=SECRET"))
    }
}
