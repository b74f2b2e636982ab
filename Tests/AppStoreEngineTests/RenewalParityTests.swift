import AppStoreEngine
import AppStoreFormats
import Foundation
import TestProcesses
import Testing

/// Renewals signed by the engine, verified by code we did not write: Apple's app-store-server-library (Python).
/// Fails, rather than skips, when python3 or the library is missing.
@Suite("Renewals verified by Apple's library")
struct RenewalParityTests {
    @Test("Apple's SignedDataVerifier accepts a renewal the store made on its clock, with RENEWAL and the original transaction")
    func appleLibraryAcceptsRenewal() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart)!)
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: purchase.id)).last)
        #expect(renewal.origin == .renewal)
        let token = try await store.signedTransaction(renewal)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("renewal-parity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("token.jws")
        try Data(token.utf8).write(to: tokenFile)
        var arguments = [
            ChildProcess.packageRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/verify_signed_data.py").path,
            "transaction", tokenFile.path, "--bundle-id", app, "--environment", "SANDBOX",
        ]
        for (index, root) in try store.signer.certificateAuthority.rootCertificatesDER.enumerated() {
            let rootFile = directory.appendingPathComponent("root\(index).der")
            try root.write(to: rootFile)
            arguments += ["--root", rootFile.path]
        }
        let result = try await ChildProcess.tool("python3", arguments).finished()
        #expect(result.status == 0, "\(result.errorOutput)")
        let line = try #require(result.output.split(separator: "\n").last.map(String.init))
        let output = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(output["status"] as? String == "OK", "\(output). Install Apple's library: pip install app-store-server-library==3.1.2")
        let payload = try #require(output["payload"] as? [String: Any])
        #expect(payload["transactionId"] as? String == String(renewal.id))
        #expect(payload["originalTransactionId"] as? String == String(purchase.id))
        #expect(payload["transactionReason"] as? String == "RENEWAL")
        let expires = try #require(renewal.expiresDate)
        #expect((payload["expiresDate"] as? NSNumber)?.int64Value == Int64(expires.timeIntervalSince1970 * 1000))
    }
}
