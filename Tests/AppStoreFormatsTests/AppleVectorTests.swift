import Foundation
import Testing
import X509

@testable import AppStoreFormats
import SwiftASN1

/// Real Apple- and Xcode-made artifacts from ../shared/corpus/vectors.
@Suite("Apple vectors")
struct AppleVectorTests {
    enum Kind: String, CaseIterable, Sendable {
        case transaction, renewalInfo, appTransaction, notification
    }

    static let appleSignedJWS: [(file: String, kind: Kind, bundleID: String, signedAt: Int64)] = [
        ("jws-sandbox-consumable-transaction-2025.jws", .transaction, "com.goodheartapp", 1_739_161_772_561),
        ("jws-sandbox-subscription-transaction-2023.jws", .transaction, "com.app.qysmat", 1_679_899_657_454),
        ("jws-sandbox-subscription-renewal-info-2023.jws", .renewalInfo, "com.app.qysmat", 1_679_899_657_433),
        ("jws-sandbox-test-notification-2025.jws", .notification, "com.loki-project.loki-messenger", 1_757_035_472_686),
    ]

    @Test(arguments: appleSignedJWS)
    func appleSignedJWSVerifiesAgainstAppleRootAtItsSigningDate(vector: (file: String, kind: Kind, bundleID: String, signedAt: Int64)) async throws {
        let verifier = try JWSVerifier(rootCertificates: [try Fixtures.appleRootG3], bundleID: vector.bundleID, environment: .sandbox)
        let token = try Fixtures.vectorText(vector.file)
        let signedDate: Date?
        switch vector.kind {
        case .transaction: signedDate = try requireSuccess(await verifier.verifyTransaction(token)).signedDate
        case .renewalInfo: signedDate = try requireSuccess(await verifier.verifyRenewalInfo(token)).signedDate
        case .appTransaction: signedDate = try requireSuccess(await verifier.verifyAppTransaction(token)).receiptCreationDate
        case .notification: signedDate = try requireSuccess(await verifier.verifyNotification(token)).signedDate
        }
        #expect(signedDate.map(ReceiptDate.milliseconds(from:)) == vector.signedAt)
        // The leaf expires after two years, but the check happens at signedDate, so a changed payload byte is what fails.
        let tampered = Fixtures.tamperingJWS(token, segment: 1)
        #expect(try requireFailure(await verifier.verifyRenewalInfo(tampered)) == .invalidSignature)
    }

    @Test func appleSignedJWSIsUntrustedUnderOurRoots() async throws {
        let verifier = try JWSVerifier(rootCertificates: TestAuthority.shared.rootCertificatesDER)
        let token = try Fixtures.vectorText("jws-sandbox-consumable-transaction-2025.jws")
        #expect(try requireFailure(await verifier.verifyTransaction(token)) == .untrustedChain)
    }

    @Test(arguments: [
        "jws-sandbox-consumable-transaction-2025.jws", "jws-sandbox-subscription-transaction-2023.jws",
        "jws-sandbox-subscription-renewal-info-2023.jws", "jws-sandbox-test-notification-2025.jws",
        "jws-xcode-transaction.jws", "jws-xcode-renewal-info.jws", "jws-xcode-app-transaction.jws",
    ])
    func everyJWSVectorDecodesWithoutVerification(file: String) throws {
        let jws = try CompactJWS(try Fixtures.vectorText(file))
        #expect(jws.algorithm == "ES256")
        #expect(jws.signature.count == 64)
        let certificates = try jws.certificates
        #expect(certificates.count == (file.contains("xcode") ? 1 : 3))
        guard case .object(let members) = try jws.payloadJSON else {
            Issue.record("\(file) payload is not an object")
            return
        }
        #expect(!members.isEmpty)
    }

    @Test func xcodeJWSPayloadsDecodeIntoTypedModels() throws {
        let transaction = try CompactJWS(try Fixtures.vectorText("jws-xcode-transaction.jws"))
            .decodePayload(as: JWSTransactionDecodedPayload.self)
        #expect(transaction.environment == .xcode)
        #expect(transaction.transactionId == "0")
        #expect(transaction.type == .autoRenewable)
        #expect(transaction.offerType == .introductoryOffer)
        #expect(transaction.deviceVerificationNonce != nil)
        let renewal = try CompactJWS(try Fixtures.vectorText("jws-xcode-renewal-info.jws"))
            .decodePayload(as: JWSRenewalInfoDecodedPayload.self)
        #expect(renewal.autoRenewStatus == .on)
        #expect(renewal.renewalDate != nil)
        let app = try CompactJWS(try Fixtures.vectorText("jws-xcode-app-transaction.jws"))
            .decodePayload(as: AppTransactionPayload.self)
        #expect(app.receiptType == .xcode)
        #expect(app.originalPurchaseDate == Date(timeIntervalSince1970: -62_135_769_600))
        let notification = try CompactJWS(try Fixtures.vectorText("jws-sandbox-test-notification-2025.jws"))
            .decodePayload(as: ResponseBodyV2DecodedPayload.self)
        #expect(notification.notificationType == .test)
        #expect(notification.data?.environment == .sandbox)
    }

    @Test func xcodeJWSCannotVerifyAgainstAnAppleRoot() async throws {
        let verifier = try JWSVerifier(rootCertificates: [try Fixtures.appleRootG3])
        let token = try Fixtures.vectorText("jws-xcode-transaction.jws")
        #expect(try requireFailure(await verifier.verifyTransaction(token)) == .invalidChainLength)
    }

    @Test(arguments: ["cert-AppleIncRootCertificate.cer", "cert-AppleRootCA-G3.cer", "cert-StoreKitTestCertificate.cer"])
    func certificateVectorsParse(file: String) throws {
        let certificate = try Certificate(derEncoded: Array(try Fixtures.vector(file)))
        #expect(certificate.subject == certificate.issuer)
    }

    // MARK: Receipts

    @Test func productionReceiptDecodes() throws {
        let receipt = try AppReceipt(receiptData: try Fixtures.base64Vector("receipt-production-2024.b64"))
        #expect(receipt.receiptType == "Production")
        #expect(receipt.bundleID == "org.getpure.pure-iphone")
        #expect(receipt.appItemID == 690_661_663)
        #expect(receipt.appVersion == "15741")
        #expect(receipt.originalAppVersion == "434")
        #expect(receipt.opaqueValue.count == 16)
        #expect(receipt.sha1Hash.count == 20)
        #expect(receipt.inAppPurchases.count == 4)
        #expect(receipt.inAppPurchases.allSatisfy { $0.productType == .autoRenewable && $0.expiresDate != nil })
        #expect(receipt.inAppPurchases.contains { $0.promotionalOfferID == "org.getpure.pure.Month.Offer.3M.PayToGo" })
        #expect(receipt.inAppPurchases.allSatisfy { $0.originalTransactionID != nil && $0.webOrderLineItemID != nil })
        #expect(receipt.additionalAttributes.contains { $0.type == 10 })  // age rating, undocumented
        let envelope = try SignedReceipt(data: try Fixtures.base64Vector("receipt-production-2024.b64"))
        #expect(envelope.isDER)
        #expect(envelope.certificates.count == 3)
        #expect(envelope.signedAttributes == nil)
    }

    @Test func sandboxReceiptHashReproducesWithTheDeviceUUIDFromSources() async throws {
        let data = try Fixtures.base64Vector("receipt-sandbox-g5-2025.b64")
        let receipt = try AppReceipt(receiptData: data)
        #expect(receipt.receiptType == "ProductionSandbox")
        #expect(receipt.bundleID == "dev.bonzer.weeka.app")
        #expect(receipt.inAppPurchases.count == 2)
        let hash = AppReceipt.deviceHash(deviceIdentifier: Fixtures.sandboxDeviceUUID, opaque: receipt.opaqueValue, bundleID: receipt.bundleID)
        #expect(hash == receipt.sha1Hash)
        #expect(ReceiptRenderingHex.hex(hash) == "2158847543683847e9382a0fc51853cb17abcd6d")

        let verifier = try ReceiptVerifier(rootCertificates: [try Fixtures.appleRootCA], bundleID: "dev.bonzer.weeka.app")
        try requireSuccess(await verifier.verify(data, deviceIdentifier: Fixtures.sandboxDeviceUUID))
        #expect(try requireFailure(await verifier.verify(data, deviceIdentifier: Samples.device)) == .hashMismatch)
    }

    @Test(arguments: [
        ("receipt-production-2024.b64", "cert-AppleIncRootCertificate.cer"),
        ("receipt-sandbox-g5-2025.b64", "cert-AppleIncRootCertificate.cer"),
        ("receipt-xcode-with-transaction.b64", "cert-StoreKitTestCertificate.cer"),
        ("receipt-xcode-empty.b64", "cert-StoreKitTestCertificate.cer"),
    ])
    func realReceiptsVerifyAgainstTheirRootAtCreationDate(receipt: String, root: String) async throws {
        let data = try Fixtures.base64Vector(receipt)
        let verifier = try ReceiptVerifier(rootCertificates: [try Fixtures.vector(root)])
        let decoded = try requireSuccess(await verifier.verify(data))
        #expect(decoded.creationDate != nil)
        // The base64 text itself is accepted too.
        try requireSuccess(await verifier.verify(Data(try Fixtures.vectorText(receipt).utf8)))
        // Another root does not vouch for it.
        let ours = try ReceiptVerifier(rootCertificates: TestAuthority.shared.rootCertificatesDER)
        #expect(try requireFailure(await ours.verify(data)) == .untrustedChain)
    }

    @Test func xcodeBERReceiptsDecode() throws {
        let data = try Fixtures.base64Vector("receipt-xcode-with-transaction.b64")
        let envelope = try SignedReceipt(data: data)
        #expect(!envelope.isDER)
        #expect(envelope.certificates.count == 1)
        #expect(envelope.signatureAlgorithm == "1.2.840.113549.1.1.11")
        let receipt = try envelope.decodeReceipt()
        #expect(receipt.receiptType == "Xcode")
        #expect(receipt.opaqueValue.count == 8)
        #expect(receipt.expirationDate == ReceiptDate.date(from: "4001-01-01T00:00:00Z"))
        let purchase = try #require(receipt.inAppPurchases.first)
        #expect(receipt.inAppPurchases.count == 1)
        #expect(purchase.productID == "pass.premium")
        #expect(purchase.transactionID == "0")
        #expect(purchase.expiresDate != nil)
        #expect(purchase.originalTransactionID == nil)
        let empty = try AppReceipt(receiptData: try Fixtures.base64Vector("receipt-xcode-empty.b64"))
        #expect(empty.inAppPurchases.isEmpty)
        #expect(empty.receiptType == "Xcode")
    }

    @Test func legacyTransactionReceiptDecodes() throws {
        let receipt = try LegacyTransactionReceipt(try Fixtures.vectorText("transaction-receipt-legacy-sandbox-2015.b64"))
        #expect(receipt.transactionID == "1000000181298734")
        #expect(receipt.productID == "yearly")
        #expect(receipt.environment == "Sandbox")
        #expect(receipt.purchaseInfo["bid"] == "com.mbaasy.ios.demo")
        #expect(!receipt.signature.isEmpty)
    }
}

enum ReceiptRenderingHex {
    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
}
