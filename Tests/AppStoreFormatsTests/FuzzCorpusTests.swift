import Foundation
import Testing

@testable import AppStoreFormats

/// What the libFuzzer targets `FuzzReceipt` and `FuzzJWS` (in `Fuzz/`) do with an input, run here over their seeds
/// and simple mutations of them, so every test run exercises those inputs without libFuzzer. Inputs that fuzzing
/// found to crash are regression tests below, each fed to the same API.
@Suite("Fuzz corpus")
struct FuzzCorpusTests {
    static let receiptVerifier: ReceiptVerifier = try! ReceiptVerifier(
        rootCertificates: TestAuthority.shared.rootCertificatesDER + appleRoots)
    static let jwsVerifier: JWSVerifier = try! JWSVerifier(rootCertificates: TestAuthority.shared.rootCertificatesDER + appleRoots)
    static var appleRoots: [Data] {
        ["cert-AppleRootCA-G3.cer", "cert-AppleIncRootCertificate.cer", "cert-StoreKitTestCertificate.cer"].compactMap { try? Fixtures.vector($0) }
    }

    /// The input, its prefixes and copies with one byte changed at evenly spaced places.
    static func mutations(of data: Data) -> [Data] {
        let bytes = Array(data)
        var variants = [data, Data(), Data(bytes.prefix(1)), Data(bytes.prefix(bytes.count / 2)), Data(bytes.dropLast())]
        for step in 1...16 where !bytes.isEmpty {
            var changed = bytes
            let index = bytes.count * step / 17
            changed[index] = changed[index] &+ 0x41
            variants.append(Data(changed))
        }
        return variants
    }

    /// What `FuzzReceipt` does with an input.
    static func exerciseReceipt(_ data: Data) async {
        if let signed = try? SignedReceipt(data: data) { _ = try? signed.decodeReceipt() }
        _ = try? AppReceipt(receiptData: data)
        _ = try? AppReceipt(payload: data)
        if let text = String(data: data, encoding: .utf8) { _ = try? LegacyTransactionReceipt(text) }
        _ = await receiptVerifier.verify(data, deviceIdentifierBytes: Data(repeating: 1, count: 16))
    }

    /// What `FuzzJWS` does with an input.
    static func exerciseJWS(_ token: String) async {
        if let jws = try? CompactJWS(token) {
            _ = jws.readableHeader
            _ = (try? jws.payloadJSON)?.expandingSignedFields()
            _ = try? jws.certificates
            _ = try? jws.decodePayload(as: JWSTransactionDecodedPayload.self)
        }
        _ = await jwsVerifier.verifyTransaction(token)
        _ = await jwsVerifier.verifyRenewalInfo(token)
        _ = await jwsVerifier.verifyAppTransaction(token)
        _ = await jwsVerifier.verifyNotification(token)
    }

    static func vectors(matching suffix: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: Fixtures.vectors, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasSuffix(suffix) }.sorted { $0.path < $1.path }
    }

    @Test("Receipts — Apple's, Xcode's, ours, as DER and base64 — and mutations of them are refused or read, never a trap")
    func receiptSeeds() async throws {
        let signer = ReceiptSigner(certificateAuthority: TestAuthority.shared)
        let ours = AppReceipt(
            bundleID: "com.example.app", appVersion: "1.0", opaqueValue: Data(repeating: 7, count: 16), creationDate: Fixtures.now,
            inAppPurchases: [InAppPurchaseReceipt(productID: "coins", transactionID: "1", purchaseDate: Fixtures.now, productType: .consumable)])
        var seeds = [try signer.sign(ours), ours.derEncoded]
        for url in try Self.vectors(matching: ".b64") {
            let text = try String(contentsOf: url, encoding: .utf8)
            seeds.append(Data(text.utf8))
            if let der = Data(base64Encoded: text.filter { !$0.isWhitespace }) { seeds.append(der) }
        }
        #expect(seeds.count >= 8)
        for seed in seeds {
            for input in Self.mutations(of: seed) { await Self.exerciseReceipt(input) }
        }
    }

    @Test("Tokens — Apple's, Xcode's, ours — and mutations of them are refused or read, never a trap")
    func jwsSeeds() async throws {
        let signer = JWSSigner(certificateAuthority: TestAuthority.shared)
        let payload = #"{"transactionId":"1","originalTransactionId":"1","bundleId":"com.example.app","productId":"coins","purchaseDate":1748779200000,"signedDate":1748779200000,"environment":"Sandbox","type":"Consumable","inAppOwnershipType":"PURCHASED","quantity":1}"#
        var seeds = [try signer.sign(payloadJSON: Data(payload.utf8))]
        for url in try Self.vectors(matching: ".jws") {
            seeds.append(try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(seeds.count >= 5)
        for seed in seeds {
            for input in Self.mutations(of: Data(seed.utf8)) { await Self.exerciseJWS(String(decoding: input, as: UTF8.self)) }
        }
    }
}
