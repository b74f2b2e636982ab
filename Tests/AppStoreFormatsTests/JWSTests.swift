import Crypto
import Foundation
import Testing
import X509

@testable import AppStoreFormats
import SwiftASN1

@Suite("JWS signing and verification")
struct JWSTests {
    let authority = TestAuthority.shared
    var signer: JWSSigner { JWSSigner(certificateAuthority: authority) }

    func verifier(bundleID: String? = Samples.bundleID, environment: AppStoreEnvironment? = .sandbox) throws -> JWSVerifier {
        try JWSVerifier(rootCertificates: authority.rootCertificatesDER, bundleID: bundleID, environment: environment)
    }

    @Test func headerIsExactlyApplesAlgAndX5cWithStandardBase64() throws {
        let token = try signer.sign(Samples.transaction(.consumable))
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        #expect(!token.contains("="))
        let header = try #require(Base64.decode(parts[0].utf8))
        let x5c = authority.jwsChain.derEncoded.map { "\"\($0.base64EncodedString())\"" }.joined(separator: ",")
        #expect(String(decoding: header, as: UTF8.self) == "{\"alg\":\"ES256\",\"x5c\":[\(x5c)]}")
        #expect(try #require(Base64.decode(parts[2].utf8)).count == 64)
    }

    @Test func payloadIsCompactJSONInApplesOrderWithIntegerMillisecondDates() throws {
        var payload = Samples.transaction(.consumable)
        payload.appAccountToken = Samples.appAccountToken
        let token = try signer.sign(payload)
        let json = String(decoding: try CompactJWS(token).payload, as: UTF8.self)
        #expect(json == """
            {"transactionId":"2000000000000001","originalTransactionId":"2000000000000001","bundleId":"com.example.openstorekit",\
            "productId":"com.example.openstorekit.1","purchaseDate":1748772000000,"originalPurchaseDate":1748772000000,\
            "quantity":1,"type":"Consumable","appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138",\
            "inAppOwnershipType":"PURCHASED","signedDate":1748775600000,"environment":"Sandbox",\
            "transactionReason":"PURCHASE","storefront":"USA","storefrontId":"143441","price":9990,"currency":"USD",\
            "appTransactionId":"704289572311000001"}
            """)
        #expect(!json.contains("null"))
        #expect(!json.contains("\"\""))
    }

    @Test(arguments: ProductType.allCases)
    func ourTransactionsVerifyAndRoundTrip(type: ProductType) async throws {
        let payload = Samples.transaction(type)
        let decoded = try requireSuccess(await verifier().verifyTransaction(try signer.sign(payload)))
        #expect(decoded == payload)
        #expect(decoded.type == type)
    }

    @Test func ourRenewalInfoAppTransactionAndNotificationVerify() async throws {
        let verifier = try verifier()
        let renewal = Samples.renewalInfo()
        #expect(try requireSuccess(await verifier.verifyRenewalInfo(try signer.sign(renewal))) == renewal)
        let app = Samples.appTransaction()
        #expect(try requireSuccess(await verifier.verifyAppTransaction(try signer.sign(app))) == app)
        let notification = try Samples.notification(signer: signer)
        let decoded = try requireSuccess(await verifier.verifyNotification(try signer.sign(notification)))
        #expect(decoded == notification)
        let nested = try #require(decoded.data?.signedTransactionInfo)
        #expect(try requireSuccess(await verifier.verifyTransaction(nested)).type == .autoRenewable)
    }

    @Test(arguments: [0, 1, 2])
    func oneChangedCharacterIsRejected(segment: Int) async throws {
        let verifier = try verifier()
        let token = try signer.sign(Samples.transaction(.nonConsumable))
        try requireSuccess(await verifier.verifyTransaction(token))  // warms the chain cache
        let failure = try requireFailure(await verifier.verifyTransaction(Fixtures.tamperingJWS(token, segment: segment)))
        if segment != 0 { #expect(failure == .invalidSignature) }
    }

    @Test func everyFlippedPayloadByteIsRejected() async throws {
        let verifier = try verifier()
        let token = try signer.sign(Samples.transaction(.consumable))
        let parts = token.split(separator: ".").map(String.init)
        let payload = try #require(Base64.decode(parts[1].utf8))
        for index in stride(from: 0, to: payload.count, by: 7) {
            var changed = payload
            changed[index] ^= 0x20
            let forged = [parts[0], Base64.urlEncoded(changed), parts[2]].joined(separator: ".")
            #expect(try requireFailure(await verifier.verifyTransaction(forged)) == .invalidSignature)
        }
    }

    @Test func wrongBundleIDIsRejected() async throws {
        var payload = Samples.transaction(.consumable)
        payload.bundleId = "com.example.other"
        #expect(try requireFailure(await verifier().verifyTransaction(try signer.sign(payload))) == .wrongBundleID)
    }

    @Test func renewalInfoIsNotCheckedForBundleID() async throws {
        let verifier = try verifier(bundleID: "com.example.other")
        try requireSuccess(await verifier.verifyRenewalInfo(try signer.sign(Samples.renewalInfo())))
    }

    @Test func wrongEnvironmentIsRejected() async throws {
        var payload = Samples.transaction(.consumable)
        payload.environment = .production
        #expect(try requireFailure(await verifier().verifyTransaction(try signer.sign(payload))) == .wrongEnvironment)
        var app = Samples.appTransaction()
        app.receiptType = .xcode
        #expect(try requireFailure(await verifier().verifyAppTransaction(try signer.sign(app))) == .wrongEnvironment)
    }

    @Test func signingDateOutsideTheCertificatesIsRejectedEvenWhenTheChainIsCached() async throws {
        let verifier = try verifier()
        try requireSuccess(await verifier.verifyTransaction(try signer.sign(Samples.transaction(.consumable))))
        var early = Samples.transaction(.consumable)
        early.signedDate = Date(timeIntervalSince1970: 915_148_800)  // 1999-01-01
        #expect(try requireFailure(await verifier.verifyTransaction(try signer.sign(early))) == .certificateNotValidAtSigningDate)
        var late = Samples.transaction(.consumable)
        late.signedDate = Date(timeIntervalSince1970: 4_102_444_800)  // 2100-01-01
        #expect(try requireFailure(await verifier.verifyTransaction(try signer.sign(late))) == .certificateNotValidAtSigningDate)
        var missing = Samples.transaction(.consumable)
        missing.signedDate = nil
        #expect(try requireFailure(await verifier.verifyTransaction(try signer.sign(missing))) == .missingSigningDate)
    }

    @Test func appTransactionIsCheckedAtItsReceiptCreationDate() async throws {
        var app = Samples.appTransaction()
        app.receiptCreationDate = Date(timeIntervalSince1970: 915_148_800)
        #expect(try requireFailure(await verifier().verifyAppTransaction(try signer.sign(app))) == .certificateNotValidAtSigningDate)
    }

    @Test func anotherAuthorityIsUntrusted() async throws {
        let appleOnly = try JWSVerifier(rootCertificates: [try Fixtures.appleRootG3])
        let token = try signer.sign(Samples.transaction(.consumable))
        #expect(try requireFailure(await appleOnly.verifyTransaction(token)) == .untrustedChain)
    }

    @Test func chainMustHoldThreeCertificates() async throws {
        let shortSigner = JWSSigner(privateKey: authority.jwsLeafKey, certificateChain: Array(authority.jwsChain.derEncoded.prefix(2)))
        let token = try shortSigner.sign(Samples.transaction(.consumable))
        #expect(try requireFailure(await verifier().verifyTransaction(token)) == .invalidChainLength)
    }

    @Test func chainWithoutAppleMarkersIsRejected() async throws {
        let chain = try UnmarkedChain.make()
        let markerless = JWSSigner(privateKey: chain.leafKey, certificateChain: chain.der)
        let verifier = try JWSVerifier(rootCertificates: [chain.der[2]])
        let token = try markerless.sign(Samples.transaction(.consumable))
        #expect(try requireFailure(await verifier.verifyTransaction(token)) == .missingAppleExtension)
    }

    @Test func chainWhoseIntermediateIsNotACertificateAuthorityIsUntrusted() async throws {
        let marked = try UnmarkedChain.make(appleMarkers: true)
        let markedVerifier = try JWSVerifier(rootCertificates: [marked.der[2]])
        let goodToken = try JWSSigner(privateKey: marked.leafKey, certificateChain: marked.der).sign(Samples.transaction(.consumable))
        try requireSuccess(await markedVerifier.verifyTransaction(goodToken))

        let chain = try UnmarkedChain.make(appleMarkers: true, intermediateIsCA: false)
        let verifier = try JWSVerifier(rootCertificates: [chain.der[2]])
        let token = try JWSSigner(privateKey: chain.leafKey, certificateChain: chain.der).sign(Samples.transaction(.consumable))
        #expect(try requireFailure(await verifier.verifyTransaction(token)) == .untrustedChain)
    }

    @Test func signatureByAnotherKeyIsRejected() async throws {
        let forger = JWSSigner(privateKey: P256.Signing.PrivateKey(), certificateChain: authority.jwsChain.derEncoded)
        #expect(try requireFailure(await verifier().verifyTransaction(try forger.sign(Samples.transaction(.consumable)))) == .invalidSignature)
    }

    @Test func nonES256HeaderIsRejected() async throws {
        let token = try signer.sign(Samples.transaction(.consumable))
        let parts = token.split(separator: ".").map(String.init)
        let header = String(decoding: try #require(Base64.decode(parts[0].utf8)), as: UTF8.self)
            .replacingOccurrences(of: "ES256", with: "ES384")
        let forged = [Base64.urlEncoded(Array(header.utf8)), parts[1], parts[2]].joined(separator: ".")
        #expect(try requireFailure(await verifier().verifyTransaction(forged)) == .unsupportedAlgorithm)
        #expect(try requireFailure(await verifier().verifyTransaction("not.a-token")) == .malformedToken)
    }

    @Test func unknownEnumValuesSurviveDecodingAndReencoding() throws {
        let json = Data(#"{"transactionId":"1","type":"Subscription Of The Future","offerType":9,"environment":"Sandbox","signedDate":1697679936049.7297}"#.utf8)
        let payload = try AppStoreJSON.decode(JWSTransactionDecodedPayload.self, from: json)
        #expect(payload.type == nil)
        #expect(payload.rawType == "Subscription Of The Future")
        #expect(payload.offerType == nil)
        #expect(payload.rawOfferType == 9)
        #expect(payload.signedDate.map(ReceiptDate.milliseconds(from:)) == 1_697_679_936_050)
        let reencoded = String(decoding: try AppStoreJSON.encode(payload), as: UTF8.self)
        #expect(reencoded == #"{"transactionId":"1","type":"Subscription Of The Future","signedDate":1697679936050,"offerType":9,"environment":"Sandbox"}"#)
    }

    @Test func decodingWithoutVerifyingExposesHeaderChainAndPayload() throws {
        let token = try signer.sign(Samples.renewalInfo())
        let jws = try CompactJWS(token)
        #expect(jws.algorithm == "ES256")
        #expect(jws.keyID == nil)
        #expect(jws.certificateChain == authority.jwsChain.derEncoded)
        #expect(try jws.certificates.map(\.subject) == authority.jwsChain.certificates.map(\.subject))
        #expect(try jws.decodePayload(as: JWSRenewalInfoDecodedPayload.self) == Samples.renewalInfo())
        #expect(try jws.payloadJSON["autoRenewStatus"] == .number("1"))
    }

    @Test func verifierIsSafeToShareAcrossTasks() async throws {
        let verifier = try verifier()
        let tokens = try (0..<8).map { try signer.sign(Samples.transaction(.consumable, id: "\($0)")) }
        try await withThrowingTaskGroup(of: String?.self) { group in
            for token in tokens {
                group.addTask { try await verifier.verifyTransaction(token).get().transactionId }
            }
            var ids = Set<String>()
            for try await id in group { ids.insert(try #require(id)) }
            #expect(ids.count == 8)
        }
    }
}

/// A chain shaped like the authority's but without Apple's marker extensions.
enum UnmarkedChain {
    static func make(appleMarkers: Bool = false, intermediateIsCA: Bool = true) throws -> (leafKey: P256.Signing.PrivateKey, der: [Data]) {
        let markerValue: ArraySlice<UInt8> = [0x05, 0x00]
        func marker(_ oid: String) throws -> Certificate.Extensions {
            appleMarkers ? try Certificate.Extensions([.init(oid: try .init(dotRepresentation: oid), critical: false, value: markerValue)]) : Certificate.Extensions()
        }
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        func name(_ commonName: String) throws -> DistinguishedName { try DistinguishedName { CommonName(commonName) } }
        let start = CertificateAuthority.defaultValidity.lowerBound
        let end = CertificateAuthority.defaultValidity.upperBound
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: start,
            notValidAfter: end, issuer: try name("Unmarked Root"), subject: try name("Unmarked Root"),
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(rootKey.publicKey))
            },
            issuerPrivateKey: .init(rootKey)
        )
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey), notValidBefore: start,
            notValidAfter: end, issuer: root.subject, subject: try name("Unmarked Intermediate"),
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                if intermediateIsCA {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                } else {
                    Critical(BasicConstraints.notCertificateAuthority)
                }
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(intermediateKey.publicKey))
                try marker("1.2.840.113635.100.6.2.1")
            },
            issuerPrivateKey: .init(rootKey)
        )
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey), notValidBefore: start,
            notValidAfter: end, issuer: intermediate.subject, subject: try name("Unmarked Leaf"),
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try marker("1.2.840.113635.100.6.11.1")
            },
            issuerPrivateKey: .init(intermediateKey)
        )
        return (leafKey, try [leaf, intermediate, root].map { Data(try $0.derBytes) })
    }
}
