import AppStoreFormats
import Crypto
import Foundation
import SwiftASN1
import TestProcesses
import Testing
import X509
import _CryptoExtras

/// Certificate serial numbers are random; about half have their top bit set, which DER encodes with a leading
/// zero. The receipt's SignerInfo must name the signer so that every verifier finds it, whatever the serial.
@Suite("Receipt signer identification")
struct ReceiptSignerSerialTests {
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    func selfSigned(serial: [UInt8]) throws -> Data {
        let name = try DistinguishedName { CommonName("Serial test") }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(bytes: serial),
            publicKey: Certificate.PublicKey(Self.key.publicKey),
            notValidBefore: Date(timeIntervalSince1970: 946_684_800), notValidAfter: Date(timeIntervalSince1970: 4_102_444_800),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions {}, issuerPrivateKey: Certificate.PrivateKey(Self.key)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }

    @Test("The SignerInfo names the embedded signer for serials with and without the top bit set",
          arguments: [[0x80, 0x01, 0x02, 0x03], [0xD7, 0x69, 0x44], [0x26, 0xC9, 0x7B], [0x00, 0x81]])
    func signerIsFound(serial: [UInt8]) async throws {
        let certificate = try selfSigned(serial: serial)
        let signer = try ReceiptSigner(privateKey: Self.key, certificateChain: [certificate])
        let receipt = AppReceipt(bundleID: "com.example.app", appVersion: "1", opaqueValue: Data(count: 16), creationDate: Date(timeIntervalSince1970: 1_768_478_400))
        let signed = try SignedReceipt(data: try signer.sign(receipt))
        #expect(signed.signerCertificate != nil)
        #expect(try signed.decodeReceipt().bundleID == "com.example.app")

        // openssl finds the signer by issuer and serial too (-noverify skips only the chain check).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serial-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("receipt.der")
        try signer.sign(receipt).write(to: file)
        let verified = try await ChildProcess.tool("openssl", ["cms", "-verify", "-noverify", "-inform", "DER", "-in", file.path, "-binary", "-out", "/dev/null"]).finished()
        #expect(verified.status == 0)
    }
}
