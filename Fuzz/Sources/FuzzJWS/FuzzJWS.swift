import AppStoreFormats
import Foundation
import FuzzSupport

// Fuzzes the JWS decoder and verifier: compact tokens read with `CompactJWS` and verified as each App Store payload
// type. An input that starts with `{` is also signed as a payload with the fuzzing authority, so the payload
// decoders and the date, bundle ID and environment checks run behind a valid signature.

let verifiers: [JWSVerifier] = {
    do {
        let roots = fuzzAuthority.rootCertificatesDER + extraTrustedRoots
        return [
            try JWSVerifier(rootCertificates: roots),
            try JWSVerifier(rootCertificates: roots, bundleID: "com.example.app", environment: .sandbox),
        ]
    } catch {
        fatalError("The JWS verifiers could not be made: \(error)")
    }
}()

let signer = JWSSigner(certificateAuthority: fuzzAuthority)

/// The failures that do not depend on the payload type or on a verifier's bundle ID and environment.
let headerFailures: [JWSVerificationFailure] = [
    .malformedToken, .unsupportedAlgorithm, .invalidChainLength, .untrustedChain, .missingAppleExtension, .invalidSignature,
]

/// Payloads of each kind, as Apple's JSON.
let payloads: [String: String] = [
    "transaction": """
        {"transactionId":"2000000000000001","originalTransactionId":"2000000000000001","webOrderLineItemId":"2000000000000002",\
        "bundleId":"com.example.app","productId":"com.example.monthly","subscriptionGroupIdentifier":"21000001",\
        "purchaseDate":1748779200000,"originalPurchaseDate":1748779200000,"expiresDate":1751371200000,"quantity":1,\
        "type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","signedDate":1748779200000,\
        "environment":"Sandbox","transactionReason":"PURCHASE","storefront":"USA","storefrontId":"143441",\
        "price":9990,"currency":"USD","offerType":1,"offerDiscountType":"FREE_TRIAL","appTransactionId":"704289572311812345"}
        """,
    "renewal": """
        {"originalTransactionId":"2000000000000001","autoRenewProductId":"com.example.monthly","productId":"com.example.monthly",\
        "autoRenewStatus":1,"signedDate":1748779200000,"environment":"Sandbox","recentSubscriptionStartDate":1748779200000,\
        "renewalDate":1751371200000,"renewalPrice":9990,"currency":"USD","expirationIntent":1,"isInBillingRetryPeriod":false,\
        "eligibleWinBackOfferIds":["winback1"]}
        """,
    "app-transaction": """
        {"receiptType":"Sandbox","appAppleId":1234567890,"bundleId":"com.example.app","applicationVersion":"1",\
        "versionExternalIdentifier":0,"receiptCreationDate":1748779200000,"requestDate":1748779200000,\
        "originalApplicationVersion":"1","originalPurchaseDate":1748779200000,"deviceVerification":"AAAA",\
        "deviceVerificationNonce":"3a1f1e2c-1d1f-4a4b-9c9c-1d1f1e2c3a4b","appTransactionId":"704289572311812345",\
        "originalPlatform":"iOS"}
        """,
    "notification": """
        {"notificationType":"SUBSCRIBED","subtype":"INITIAL_BUY","notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1a8a3e0e1",\
        "version":"2.0","signedDate":1748779200000,"data":{"appAppleId":1234567890,"bundleId":"com.example.app",\
        "bundleVersion":"1","environment":"Sandbox","signedTransactionInfo":"a.b.c","signedRenewalInfo":"a.b.c","status":1}}
        """,
]

/// Tokens signed with this repository's signer, and their bare payloads.
func seeds() throws -> [String: Data] {
    var seeds: [String: Data] = [:]
    for (name, json) in payloads {
        seeds["own-\(name).json"] = Data(json.utf8)
        seeds["own-\(name).jws"] = Data(try signer.sign(payloadJSON: Data(json.utf8)).utf8)
    }
    return seeds
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutableRawPointer) -> CInt {
    writeSeedsIfAsked(seeds)
    _ = verifiers
    return 0
}

/// Decodes `token` without verifying, then verifies it as every payload type.
func check(_ token: String) {
    if let jws = try? CompactJWS(token) {
        _ = jws.readableHeader
        _ = (try? jws.payloadJSON)?.expandingSignedFields()
        _ = try? jws.certificates
        _ = try? jws.decodePayload(as: JWSTransactionDecodedPayload.self)
    }
    runBlocking {
        // A token refused before its payload is read (its header, chain or signature) is refused the same way as
        // every payload type and by both verifiers, which trust the same roots: verify it once.
        if case .failure(let failure) = await verifiers[0].verifyTransaction(token), headerFailures.contains(failure) { return }
        for verifier in verifiers {
            _ = await verifier.verifyTransaction(token)
            _ = await verifier.verifyRenewalInfo(token)
            _ = await verifier.verifyAppTransaction(token)
            _ = await verifier.verifyNotification(token)
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = fuzzInput(bytes, size)
    check(String(decoding: data, as: UTF8.self))
    if data.first == UInt8(ascii: "{"), let token = try? signer.sign(payloadJSON: data) {
        check(token)
    }
    return 0
}

/// The `main` SwiftPM gives this executable calls this: libFuzzer takes over with ``fuzz(_:_:)``.
@_cdecl("FuzzJWS_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}
