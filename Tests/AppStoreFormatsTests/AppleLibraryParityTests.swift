import Foundation
import Testing

@testable import AppStoreFormats

/// What we sign, verified by code we did not write: Apple's app-store-server-library 3.1.2 (Python) with
/// `SignedDataVerifier(roots, enable_online_checks=False, Environment.SANDBOX, bundle_id)` and
/// `ReceiptUtility`. These tests fail, rather than skip, when python3 or the library is missing.
@Suite("Parity with Apple's app-store-server-library")
struct AppleLibraryParityTests {
    let authority = TestAuthority.shared
    var signer: JWSSigner { JWSSigner(certificateAuthority: authority) }

    /// Runs verify_signed_data.py on `token` and returns its JSON output.
    func appleVerify(_ kind: String, _ token: String, bundleID: String = Samples.bundleID) async throws -> [String: Any] {
        try await Fixtures.withTemporaryDirectory { directory in
            let tokenFile = directory.appendingPathComponent("token.jws")
            try Data(token.utf8).write(to: tokenFile)
            var arguments = [kind, tokenFile.path]
            for (index, root) in authority.rootCertificatesDER.enumerated() {
                let rootFile = directory.appendingPathComponent("root\(index).der")
                try root.write(to: rootFile)
                arguments += ["--root", rootFile.path]
            }
            arguments += ["--bundle-id", bundleID, "--environment", "SANDBOX"]
            return try await ExternalTools.python("verify_signed_data.py", arguments)
        }
    }

    @Test(arguments: ProductType.allCases)
    func appleLibraryAcceptsOurTransactionOfEveryProductType(type: ProductType) async throws {
        let payload = Samples.transaction(type)
        let output = try await appleVerify("transaction", try signer.sign(payload))
        #expect(output["status"] as? String == "OK", "\(output)")
        let decoded = try #require(output["payload"] as? [String: Any])
        #expect(decoded["transactionId"] as? String == payload.transactionId)
        #expect(decoded["type"] as? String == type.rawValue)
        #expect(decoded["appAccountToken"] as? String == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect((decoded["signedDate"] as? NSNumber)?.int64Value == 1_748_775_600_000)
        #expect((decoded["price"] as? NSNumber)?.int64Value == 9990)
    }

    @Test func appleLibraryAcceptsOurRenewalInfo() async throws {
        let output = try await appleVerify("renewal-info", try signer.sign(Samples.renewalInfo()))
        #expect(output["status"] as? String == "OK", "\(output)")
        let decoded = try #require(output["payload"] as? [String: Any])
        #expect((decoded["autoRenewStatus"] as? NSNumber)?.intValue == 1)
    }

    @Test func appleLibraryAcceptsOurAppTransaction() async throws {
        let output = try await appleVerify("app-transaction", try signer.sign(Samples.appTransaction()))
        #expect(output["status"] as? String == "OK", "\(output)")
        let decoded = try #require(output["payload"] as? [String: Any])
        #expect(decoded["receiptType"] as? String == "Sandbox")
        #expect(decoded["originalPlatform"] as? String == "iOS")
    }

    @Test func appleLibraryAcceptsOurNotification() async throws {
        let output = try await appleVerify("notification", try signer.sign(try Samples.notification(signer: signer)))
        #expect(output["status"] as? String == "OK", "\(output)")
        let decoded = try #require(output["payload"] as? [String: Any])
        #expect(decoded["notificationType"] as? String == "SUBSCRIBED")
        #expect(decoded["subtype"] as? String == "INITIAL_BUY")
        let data = try #require(decoded["data"] as? [String: Any])
        // The nested transaction is itself acceptable to Apple's library.
        let nested = try #require(data["signedTransactionInfo"] as? String)
        #expect(try await appleVerify("transaction", nested)["status"] as? String == "OK")
    }

    @Test(arguments: [1, 2])
    func appleLibraryRejectsOneChangedCharacter(segment: Int) async throws {
        let token = Fixtures.tamperingJWS(try signer.sign(Samples.transaction(.consumable)), segment: segment)
        let output = try await appleVerify("transaction", token)
        #expect(output["status"] as? String == "VERIFICATION_FAILURE", "\(output)")
    }

    @Test func appleLibraryRejectsAnotherAppsTransaction() async throws {
        let output = try await appleVerify("transaction", try signer.sign(Samples.transaction(.consumable)), bundleID: "com.example.other")
        #expect(output["status"] as? String == "INVALID_APP_IDENTIFIER", "\(output)")
    }

    @Test func appleReceiptUtilityReadsOurReceiptsTransactionID() async throws {
        let receipt = Samples.receipt(purchases: [.autoRenewable])
        let data = try ReceiptSigner(certificateAuthority: authority).sign(receipt)
        try await Fixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("receipt.b64")
            try Data(data.base64EncodedString().utf8).write(to: file)
            let output = try await ExternalTools.python("extract_transaction_id.py", [file.path])
            #expect(output["transactionId"] as? String == receipt.inAppPurchases[0].transactionID, "\(output)")
        }
    }
}

/// OpenSSL's CMS verifier accepts our receipts and rejects tampered ones.
@Suite("Parity with OpenSSL")
struct OpenSSLParityTests {
    let authority = TestAuthority.shared

    func opensslVerify(_ receipt: Data) async throws -> ExternalTools.Output {
        try await Fixtures.withTemporaryDirectory { directory in
            let receiptFile = directory.appendingPathComponent("receipt.der")
            let rootFile = directory.appendingPathComponent("root.pem")
            let payloadFile = directory.appendingPathComponent("payload.der")
            try receipt.write(to: receiptFile)
            try Data(authority.rootCertificatesPEM.utf8).write(to: rootFile)
            let output = try await ExternalTools.openssl([
                "cms", "-verify", "-inform", "DER", "-in", receiptFile.path, "-CAfile", rootFile.path,
                "-purpose", "any", "-binary", "-out", payloadFile.path,
            ])
            if output.status == 0 {
                #expect(try Data(contentsOf: payloadFile) == Samples.receipt().derEncoded)
            }
            return output
        }
    }

    @Test func opensslAcceptsOurReceipt() async throws {
        let receipt = try ReceiptSigner(certificateAuthority: authority).sign(Samples.receipt())
        let output = try await opensslVerify(receipt)
        #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
    }

    @Test func opensslRejectsAReceiptWithOneChangedByte() async throws {
        let receipt = try ReceiptSigner(certificateAuthority: authority).sign(Samples.receipt())
        let payloadOffset = 120
        let output = try await opensslVerify(Fixtures.flippingByte(of: receipt, at: payloadOffset))
        #expect(output.status != 0)
    }

    /// Receipts made by `openssl cms -sign` exercise the verifier's other paths: the legacy SHA-1 digest and
    /// signed attributes (message digest) that Apple's receipts do not use.
    @Test(arguments: [["-md", "sha1", "-noattr"], ["-md", "sha256"]])
    func receiptsSignedByOpenSSLVerify(options: [String]) async throws {
        let payload = Samples.receipt().derEncoded
        let signed = try await Fixtures.withTemporaryDirectory { directory -> Data in
            try authority.write(to: directory)
            let payloadFile = directory.appendingPathComponent("payload.der")
            let chainFile = directory.appendingPathComponent("chain.pem")
            let outFile = directory.appendingPathComponent("receipt.der")
            try payload.write(to: payloadFile)
            let chain = try ["receipt-intermediate.pem", "receipt-root.pem"]
                .map { try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8) }.joined()
            try Data(chain.utf8).write(to: chainFile)
            let output = try await ExternalTools.openssl(
                ["cms", "-sign", "-binary", "-nodetach", "-outform", "DER", "-in", payloadFile.path,
                 "-signer", directory.appendingPathComponent("receipt-leaf.pem").path,
                 "-inkey", directory.appendingPathComponent("receipt-leaf-key.pem").path,
                 "-certfile", chainFile.path, "-out", outFile.path] + options
            )
            #expect(output.status == 0, "\(output.standardError)")
            return try Data(contentsOf: outFile)
        }
        let envelope = try SignedReceipt(data: signed)
        #expect((envelope.signedAttributes != nil) == !options.contains("-noattr"))
        let verifier = try ReceiptVerifier(rootCertificates: authority.rootCertificatesDER)
        let receipt = try requireSuccess(await verifier.verify(signed, deviceIdentifier: Samples.device))
        #expect(receipt.bundleID == Samples.bundleID)
        let tampered = Fixtures.flippingByte(of: signed, at: -20)
        #expect(try requireFailure(await verifier.verify(tampered)) == .invalidSignature)
    }
}
