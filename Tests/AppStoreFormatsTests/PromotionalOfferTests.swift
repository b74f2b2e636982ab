import Crypto
import Foundation
import Testing

@testable import AppStoreFormats

@Suite("Promotional offer signatures")
struct PromotionalOfferTests {
    /// The `.storekit` key pair of RevenueCat's sample configurations in ../shared/corpus/storekit.
    static let storeKitKeyID = "C815358F"
    static let storeKitPrivateKey =
        "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgMpw0LScUC+8o+WsEAM20KOMzZOMSWKFjUixtwDidPMugCgYIKoZIzj0DAQehRANCAAQIMw4YEVZrDPrk/1dx5WV3hpkuy8enQs+yDAuJRtsrOnzRH6EFgTyiydprKlgUOHW6xBocrRNTMZXioCBQtchg"
    static let nonce = UUID(uuidString: "20FBA8A0-2B80-4A7D-A17F-85C1854727F8")!
    static let timestamp: Int64 = 1_748_779_200_000  // Fixtures.now

    var signer: PromotionalOfferSigner {
        get throws {
            try PromotionalOfferSigner(storeKitPrivateKey: Self.storeKitPrivateKey, keyID: Self.storeKitKeyID, bundleID: "com.example")
        }
    }

    var verifier: PromotionalOfferVerifier {
        get throws {
            PromotionalOfferVerifier(keys: [try PromotionalOfferKey(keyID: Self.storeKitKeyID, storeKitPrivateKey: Self.storeKitPrivateKey)])
        }
    }

    @Test func signedStringMatchesTheWorkedExampleInFormatsDoc() {
        let payload = PromotionalOfferSignatureV1.payload(
            bundleID: "com.example", keyID: "KEYID12345", productID: "com.example.monthly", offerID: "promo1",
            appAccountToken: "", nonce: Self.nonce, timestamp: 1_698_148_900_000
        )
        #expect(payload.count == 113)
        let digest = SHA256.hash(data: payload).map { String(format: "%02x", $0) }.joined()
        #expect(digest == "0bd6137554d98b71b863f5778b4dc6977705e8cc74febbd5eaebc0b89ff1e403")
    }

    @Test func v1SignatureFromTheStoreKitFileKeyVerifies() throws {
        let offer = try signer.signV1(productID: "com.example.monthly", offerID: "promo1", appAccountToken: "ABC-Token", nonce: Self.nonce, timestamp: Self.timestamp)
        try requireSuccess(try verifier.verifyV1(offer, now: Fixtures.now))
        try requireSuccess(try verifier.verifyV1(offer, now: Fixtures.now.addingTimeInterval(86_000)))
    }

    @Test func v1SignatureIsRejectedWhenAnyFieldChanges() throws {
        let offer = try signer.signV1(productID: "com.example.monthly", offerID: "promo1", nonce: Self.nonce, timestamp: Self.timestamp)
        let changes: [(inout PromotionalOfferSignatureV1) -> Void] = [
            { $0.productID = "com.example.yearly" }, { $0.offerID = "promo2" }, { $0.bundleID = "com.example.other" },
            { $0.appAccountToken = "someone" }, { $0.nonce = UUID(uuidString: "00000000-0000-0000-0000-000000000001")! },
            { $0.timestamp += 1 },
        ]
        for change in changes {
            var forged = offer
            change(&forged)
            #expect(try requireFailure(try verifier.verifyV1(forged, now: Fixtures.now)) == .invalidSignature)
        }
    }

    @Test func v1SignatureExpiresAfter24HoursAndNeedsAKnownKey() throws {
        let offer = try signer.signV1(productID: "p", offerID: "o", nonce: Self.nonce, timestamp: Self.timestamp)
        #expect(try requireFailure(try verifier.verifyV1(offer, now: Fixtures.now.addingTimeInterval(86_401))) == .timestampOutOfRange)
        var unknown = offer
        unknown.keyID = "OTHERKEY"
        #expect(try requireFailure(try verifier.verifyV1(unknown, now: Fixtures.now)) == .unknownKey)
        var garbage = offer
        garbage.signature = "not base64!"
        #expect(try requireFailure(try verifier.verifyV1(garbage, now: Fixtures.now)) == .malformedSignature)
    }

    @Test func pemKeysRegisterTheSamePublicKey() throws {
        let privateKey = try PromotionalOfferKey.privateKey(fromStoreKit: Self.storeKitPrivateKey)
        let fromPrivate = try PromotionalOfferKey(keyID: "K", pem: privateKey.pemRepresentation)
        let fromPublic = try PromotionalOfferKey(keyID: "K", pem: privateKey.publicKey.pemRepresentation)
        #expect(fromPrivate.publicKey.rawRepresentation == fromPublic.publicKey.rawRepresentation)
        #expect(throws: FormatError.malformedKey) { try PromotionalOfferKey(keyID: "K", pem: "nope") }
    }

    @Test func v2SignatureVerifiesAndChecksAppProductOfferAndTime() throws {
        let token = try signer.signV2(
            productID: "com.example.monthly", offerID: "promo1", transactionID: "2000000000000001",
            issuerID: "57246542-96fe-1a63-e053-0824d011072a", nonce: Self.nonce, issuedAt: Self.timestamp / 1000
        )
        let jws = try CompactJWS(token)
        #expect(jws.keyID == Self.storeKitKeyID)
        #expect(jws.header["typ"] == .string("JWT"))
        let claims = try requireSuccess(
            try verifier.verifyV2(token, bundleID: "com.example", productID: "com.example.monthly", offerID: "promo1", now: Fixtures.now)
        )
        #expect(claims.transactionID == "2000000000000001")
        #expect(claims.nonce == "20fba8a0-2b80-4a7d-a17f-85c1854727f8")
        #expect(try requireFailure(try verifier.verifyV2(token, bundleID: "com.other", now: Fixtures.now)) == .wrongBundleID)
        #expect(try requireFailure(try verifier.verifyV2(token, bundleID: "com.example", productID: "x", now: Fixtures.now)) == .wrongProduct)
        #expect(try requireFailure(try verifier.verifyV2(token, bundleID: "com.example", offerID: "x", now: Fixtures.now)) == .wrongOffer)
        #expect(try requireFailure(try verifier.verifyV2(token, bundleID: "com.example", now: Fixtures.now.addingTimeInterval(90_000))) == .timestampOutOfRange)
        #expect(try requireFailure(try verifier.verifyV2(Fixtures.tamperingJWS(token, segment: 1), bundleID: "com.example", now: Fixtures.now)) == .invalidSignature)
    }

    @Test func appleLibrarySignaturesVerify() async throws {
        let privateKey = try PromotionalOfferKey.privateKey(fromStoreKit: Self.storeKitPrivateKey)
        try await Fixtures.withTemporaryDirectory { directory in
            let keyFile = directory.appendingPathComponent("key.pem")
            try Data(privateKey.pemRepresentation.utf8).write(to: keyFile)
            let output = try await ExternalTools.python("create_offer_signatures.py", [
                keyFile.path, Self.storeKitKeyID, "com.example", "com.example.monthly", "promo1", "7E3FB20B-4CDB-47CC-936D-99D65F608138",
                Self.nonce.uuidString, String(Self.timestamp),
            ])
            let v1 = try #require(output["v1"] as? String)
            let v2 = try #require(output["v2"] as? String)
            let offer = PromotionalOfferSignatureV1(
                bundleID: "com.example", keyID: Self.storeKitKeyID, productID: "com.example.monthly", offerID: "promo1",
                appAccountToken: "7E3FB20B-4CDB-47CC-936D-99D65F608138", nonce: Self.nonce, timestamp: Self.timestamp, signature: v1
            )
            try requireSuccess(try verifier.verifyV1(offer, now: Fixtures.now))
            let claims = try requireSuccess(
                try verifier.verifyV2(v2, bundleID: "com.example", productID: "com.example.monthly", offerID: "promo1", now: Fixtures.now)
            )
            #expect(claims.issuedAt == Self.timestamp / 1000)
        }
    }
}
