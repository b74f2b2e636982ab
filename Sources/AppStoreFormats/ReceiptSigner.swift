import Crypto
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// Signs app receipts as Apple's production receipts are signed: a DER PKCS#7 `SignedData` with SHA-256,
/// RSA PKCS#1 v1.5, no signed attributes, SignerInfo algorithm `rsaEncryption`, and the certificates
/// leaf, intermediate, root.
///
/// swift-certificates has CMS signing, but only as SPI, and it writes `sha256WithRSAEncryption` as the
/// SignerInfo algorithm and puts the signer certificate last; Apple's layout needs `rsaEncryption` and the
/// leaf first. So the envelope is written here byte by byte. Everything except the payload and the signature
/// is precomputed, so ``sign(_:)`` costs one payload encoding, one SHA-256 and one RSA-2048 signature.
public struct ReceiptSigner: Sendable {
    private let privateKey: _RSA.Signing.PrivateKey
    private let certificatesField: [UInt8]
    private let signerInfoPrefix: [UInt8]

    /// A signer using the authority's receipt leaf key and chain.
    public init(certificateAuthority: CertificateAuthority) {
        // The authority's chain was serialised when it was created, so this cannot fail.
        try! self.init(
            privateKey: certificateAuthority.receiptLeafKey,
            certificateChain: certificateAuthority.receiptChain.derEncoded
        )
    }

    /// A signer with any RSA key and the DER certificates to embed, signer first.
    /// - Throws: ``FormatError`` when the first certificate cannot be parsed.
    public init(privateKey: _RSA.Signing.PrivateKey, certificateChain: [Data]) throws {
        guard let signerDER = certificateChain.first else {
            throw FormatError.malformedCertificate("A receipt signer needs at least its own certificate.")
        }
        let signer: Certificate
        do {
            signer = try Certificate(derEncoded: Array(signerDER))
        } catch {
            throw FormatError.malformedCertificate("The signer certificate is not DER: \(error)")
        }
        var issuerSerializer = DER.Serializer()
        try issuerSerializer.serialize(signer.issuer)
        // `SerialNumber.bytes` is the unsigned magnitude; a DER INTEGER is signed, so a serial whose top bit is
        // set needs a leading zero to stay positive and match the certificate (else verifiers find no signer).
        var serial = Array(signer.serialNumber.bytes)
        if let first = serial.first, first & 0x80 != 0 { serial.insert(0, at: 0) }
        let issuerAndSerial = DERWriter.tlv(
            DERWriter.sequenceTag,
            parts: [issuerSerializer.serializedBytes, DERWriter.tlv(DERWriter.integerTag, serial)]
        )
        self.privateKey = privateKey
        // certificates [0] IMPLICIT: kept in chain order (leaf, intermediate, root) as Apple does.
        self.certificatesField = DERWriter.tlv(0xA0, parts: certificateChain.map { Array($0) })
        self.signerInfoPrefix =
            DERWriter.integer(1) + issuerAndSerial + DERWriter.algorithmIdentifier(OID.sha256)
            + DERWriter.algorithmIdentifier(OID.rsaEncryption)
    }

    /// Encodes and signs a receipt; returns the DER PKCS#7 bytes (what the receipt file holds).
    public func sign(_ receipt: AppReceipt) throws -> Data {
        try sign(payload: receipt.derEncoded)
    }

    /// Signs an already encoded payload.
    public func sign(payload: Data) throws -> Data {
        let signature = try privateKey.signature(for: SHA256.hash(data: payload), padding: .insecurePKCS1v1_5)
        let signerInfo = DERWriter.tlv(
            DERWriter.sequenceTag, parts: [signerInfoPrefix, DERWriter.octetString(signature.rawRepresentation)]
        )
        let signedData = DERWriter.tlv(
            DERWriter.sequenceTag,
            parts: [
                DERWriter.integer(1),
                DERWriter.tlv(DERWriter.setTag, DERWriter.algorithmIdentifier(OID.sha256)),
                DERWriter.tlv(
                    DERWriter.sequenceTag,
                    parts: [DERWriter.objectIdentifier(OID.data), DERWriter.tlv(0xA0, DERWriter.octetString(payload))]
                ),
                certificatesField,
                DERWriter.tlv(DERWriter.setTag, signerInfo),
            ]
        )
        let contentInfo = DERWriter.tlv(
            DERWriter.sequenceTag,
            parts: [DERWriter.objectIdentifier(OID.signedData), DERWriter.tlv(0xA0, signedData)]
        )
        return Data(contentInfo)
    }
}
