import Foundation
import SwiftASN1
import Testing
import X509

@testable import AppStoreFormats

@Suite("App receipts")
struct ReceiptTests {
    let authority = TestAuthority.shared
    var signer: ReceiptSigner { ReceiptSigner(certificateAuthority: authority) }

    func verifier(bundleID: String? = Samples.bundleID) throws -> ReceiptVerifier {
        try ReceiptVerifier(rootCertificates: authority.rootCertificatesDER, bundleID: bundleID)
    }

    @Test func ourReceiptRoundTripsAndVerifiesWithTheDeviceHash() async throws {
        let receipt = Samples.receipt()
        let data = try signer.sign(receipt)
        let verified = try requireSuccess(await verifier().verify(data, deviceIdentifier: Samples.device))
        // DER sorts the type-17 attributes by their encoding, so purchases come back in that order.
        func sorted(_ receipt: AppReceipt) -> AppReceipt {
            var copy = receipt
            copy.inAppPurchases.sort { $0.transactionID < $1.transactionID }
            return copy
        }
        #expect(sorted(verified) == sorted(receipt))
        #expect(sorted(try AppReceipt(receiptData: data)) == sorted(receipt))
        #expect(sorted(try AppReceipt(receiptData: Data(data.base64EncodedString().utf8))) == sorted(receipt))
    }

    @Test func envelopeHasApplesProductionLayout() throws {
        let envelope = try SignedReceipt(data: try signer.sign(Samples.receipt()))
        #expect(envelope.isDER)
        #expect(envelope.digestAlgorithm == "2.16.840.1.101.3.4.2.1")
        #expect(envelope.signatureAlgorithm == "1.2.840.113549.1.1.1")
        #expect(envelope.signedAttributes == nil)
        #expect(envelope.certificates == authority.receiptChain.certificates)
        #expect(envelope.signerCertificate == authority.receiptChain.leaf)
        #expect(envelope.signature.count == 256)
    }

    @Test func payloadIsDERWithSortedSetsAndApplesValueTypes() throws {
        let receipt = Samples.receipt(purchases: [.autoRenewable])
        let payload = receipt.derEncoded
        let root = try DER.parse(Array(payload))  // strict DER
        guard case .constructed(let children) = root.content else {
            Issue.record("payload is not constructed")
            return
        }
        let encodings = children.map { Array($0.encodedBytes) }
        #expect(encodings == encodings.sorted { $0.lexicographicallyPrecedes($1) })

        let attributes = try ReceiptPayloadReader.attributes(in: payload)
        func value(_ type: Int, in list: [ReceiptAttribute]) -> [UInt8] { Array(list.first { $0.type == type }!.value) }
        #expect(value(0, in: attributes).first == 0x0C)
        #expect(value(2, in: attributes).first == 0x0C)
        #expect(value(12, in: attributes) == [0x16, 20] + Array("2025-06-01T11:00:00Z".utf8))
        #expect(attributes.first { $0.type == 4 }?.version == 2)
        #expect(value(5, in: attributes).count == 20)

        let inApp = try ReceiptPayloadReader.attributes(in: Data(value(17, in: attributes)))
        #expect(value(1703, in: inApp).first == 0x0C)
        #expect(value(1705, in: inApp).first == 0x0C)
        #expect(value(1704, in: inApp).first == 0x16)
        #expect(value(1707, in: inApp) == [0x02, 0x01, 0x03])
        #expect(value(1712, in: inApp) == [0x16, 0x00])
        #expect(value(1713, in: inApp) == [0x02, 0x01, 0x01])
        #expect(value(1719, in: inApp) == [0x02, 0x01, 0x00])
        #expect(value(1721, in: inApp) == [0x0C, 8] + Array("promo.3m".utf8))
        let inAppRoot = try DER.parse(value(17, in: attributes))
        guard case .constructed(let inAppChildren) = inAppRoot.content else { return }
        let inAppEncodings = inAppChildren.map { Array($0.encodedBytes) }
        #expect(inAppEncodings == inAppEncodings.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test func changedPayloadByteIsRejected() async throws {
        let data = try signer.sign(Samples.receipt())
        let payloadStart = try #require(locate(Samples.receipt().derEncoded, in: data))
        let tampered = Fixtures.flippingByte(of: data, at: payloadStart + 40)
        #expect(try requireFailure(await verifier().verify(tampered)) == .invalidSignature)
        let badSignature = Fixtures.flippingByte(of: data, at: -10)
        #expect(try requireFailure(await verifier().verify(badSignature)) == .invalidSignature)
    }

    @Test func receiptFromAnotherAuthorityIsUntrusted() async throws {
        let appleRoots = try ReceiptVerifier(rootCertificates: [try Fixtures.appleRootCA])
        #expect(try requireFailure(await appleRoots.verify(try signer.sign(Samples.receipt()))) == .untrustedChain)
    }

    @Test func wrongDeviceAndWrongBundleAreRejected() async throws {
        let data = try signer.sign(Samples.receipt())
        #expect(try requireFailure(await verifier().verify(data, deviceIdentifier: Fixtures.sandboxDeviceUUID)) == .hashMismatch)
        #expect(try requireFailure(await verifier(bundleID: "com.example.other").verify(data)) == .wrongBundleID)
    }

    @Test func creationDateOutsideTheCertificatesIsRejected() async throws {
        var receipt = Samples.receipt()
        receipt.creationDate = Date(timeIntervalSince1970: 915_148_800)
        #expect(try requireFailure(await verifier().verify(try signer.sign(receipt))) == .certificateNotValidAtCreationDate)
    }

    @Test("A receipt read once (UnverifiedReceipt) names its issuing store before it is verified, and verifies as its bytes do")
    func unverifiedReceiptIsReadOnce() async throws {
        var receipt = Samples.receipt()
        receipt.issuingStore = "checkout-tests"
        let data = try signer.sign(receipt)
        let unverified = try UnverifiedReceipt(receiptData: Data(data.base64EncodedString().utf8))
        #expect(unverified.issuingStore == "checkout-tests")
        let fromRead = try requireSuccess(await verifier().verify(unverified, deviceIdentifierBytes: Samples.device.data))
        #expect(fromRead == (try requireSuccess(await verifier().verify(data, deviceIdentifier: Samples.device))))
        #expect(try UnverifiedReceipt(receiptData: try signer.sign(Samples.receipt())).issuingStore == nil)
        // What the read says is not trusted: a changed payload still fails the signature.
        let payloadStart = try #require(locate(receipt.derEncoded, in: data))
        let tampered = try UnverifiedReceipt(receiptData: Fixtures.flippingByte(of: data, at: payloadStart + 40))
        #expect(try requireFailure(await verifier().verify(tampered)) == .invalidSignature)
        #expect(throws: FormatError.self) { try UnverifiedReceipt(receiptData: Data("hello".utf8)) }
    }

    @Test func garbageIsMalformed() async throws {
        #expect(try requireFailure(await verifier().verify(Data("hello".utf8))) == .malformedReceipt)
        #expect(throws: FormatError.malformedData) { try SignedReceipt(data: Data([0x30, 0x03, 0x02, 0x01, 0x01])) }
    }

    @Test func undocumentedAttributesSurviveARoundTrip() throws {
        var receipt = Samples.receipt(purchases: [.consumable])
        receipt.additionalAttributes = [ReceiptAttribute(type: 10, value: Data(ReceiptDER.ia5String("4+")))]
        receipt.inAppPurchases[0].additionalAttributes = [ReceiptAttribute(type: 1709, value: Data(ReceiptDER.utf8String("")))]
        #expect(try AppReceipt(payload: receipt.derEncoded) == receipt)
    }

    @Test(arguments: [
        ("2023-10-19T01:45:36Z", 1_697_679_936.0), ("2020-07-22T18:33:15+0100", 1_595_439_195.0),
        ("2013-08-01T07:00:00Z", 1_375_340_400.0), ("4001-01-01T00:00:00Z", 64_092_211_200.0),
        ("2024-02-29T23:59:59-05:30", 1_709_270_999.0),
    ])
    func receiptDatesParseAndFormatLikeApple(text: String, seconds: Double) throws {
        let date = try #require(ReceiptDate.date(from: text))
        #expect(date.timeIntervalSince1970 == seconds)
        if text.hasSuffix("Z") { #expect(ReceiptDate.string(from: date) == text) }
        #expect(ReceiptDate.date(from: "") == nil)
    }

    @Test func deviceHashUsesTheBundleIDsWholeUTF8StringEncoding() {
        let opaque = Data([0xbe, 0x1d, 0xd3, 0xea, 0x9b, 0xcf, 0x4d, 0x08, 0x65, 0x2e, 0xb5, 0x39, 0xb9, 0xe0, 0x56, 0x94])
        let hash = AppReceipt.deviceHash(deviceIdentifier: Fixtures.sandboxDeviceUUID, opaque: opaque, bundleID: "dev.bonzer.weeka.app")
        #expect(ReceiptRenderingHex.hex(hash) == "2158847543683847e9382a0fc51853cb17abcd6d")
    }

    /// The offset of `needle` in `haystack`.
    func locate(_ needle: Data, in haystack: Data) -> Int? {
        let bytes = Array(haystack)
        let pattern = Array(needle)
        guard pattern.count <= bytes.count else { return nil }
        for start in 0...(bytes.count - pattern.count) where bytes[start..<start + pattern.count].elementsEqual(pattern) {
            return start
        }
        return nil
    }
}
