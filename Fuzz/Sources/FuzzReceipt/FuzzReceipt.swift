import AppStoreFormats
import Foundation
import FuzzSupport

// Fuzzes the app receipt decoder and verifier: PKCS #7 envelopes (DER, BER or base64 text), their receipt payloads,
// and the legacy transaction receipts of iOS 6. An input that starts like a receipt payload (an ASN.1 SET, 0x31) is
// also signed with the fuzzing authority and verified, so the payload reader runs behind a valid signature.

/// Trusts the fuzzing authority's receipt root and the shared vectors' roots.
let verifier: ReceiptVerifier = {
    do {
        return try ReceiptVerifier(rootCertificates: fuzzAuthority.rootCertificatesDER + extraTrustedRoots)
    } catch {
        fatalError("The receipt verifier could not be made: \(error)")
    }
}()

let signer = ReceiptSigner(certificateAuthority: fuzzAuthority)

/// Receipts made with this repository's signer: a full one, the same as base64 text, and its bare payload.
func seeds() throws -> [String: Data] {
    let purchases = [
        InAppPurchaseReceipt(
            productID: "com.example.coins", transactionID: "2000000000000001", purchaseDate: fuzzNow, productType: .consumable),
        InAppPurchaseReceipt(
            productID: "com.example.monthly", transactionID: "2000000000000002", originalTransactionID: "2000000000000002",
            purchaseDate: fuzzNow, productType: .autoRenewable, expiresDate: fuzzNow.addingTimeInterval(2_592_000),
            webOrderLineItemID: 2_000_000_000_000_003, isTrialPeriod: true),
    ]
    let receipt = AppReceipt(
        bundleID: "com.example.app", appVersion: "1.0", opaqueValue: Data(repeating: 7, count: 16), creationDate: fuzzNow,
        originalPurchaseDate: fuzzNow, originalAppVersion: "1.0", inAppPurchases: purchases)
    let signed = try signer.sign(receipt)
    let empty = try signer.sign(AppReceipt(bundleID: "com.example.app", appVersion: "2", opaqueValue: Data(), creationDate: fuzzNow))
    return [
        "own-receipt.der": signed,
        "own-receipt.b64": Data(signed.base64EncodedString().utf8),
        "own-receipt-empty.der": empty,
        "own-payload.der": receipt.derEncoded,
    ]
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutableRawPointer) -> CInt {
    writeSeedsIfAsked(seeds)
    _ = verifier
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzInput(bytes, size)
    if let signed = try? SignedReceipt(data: data) {
        _ = try? signed.decodeReceipt()
    }
    _ = try? AppReceipt(receiptData: data)
    _ = try? AppReceipt(payload: data)
    if let text = String(data: data, encoding: .utf8) {
        _ = try? LegacyTransactionReceipt(text)
    }
    _ = runBlocking { await verifier.verify(data, deviceIdentifierBytes: Data(repeating: 1, count: 16)) }
    if data.first == 0x31, let envelope = try? signer.sign(payload: data) {
        _ = runBlocking { await verifier.verify(envelope) }
    }
    return 0
}

/// The `main` SwiftPM gives this executable calls this: libFuzzer takes over with ``fuzz(_:_:)``.
@_cdecl("FuzzReceipt_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
