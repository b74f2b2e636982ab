import Crypto
public import Foundation
import SwiftASN1
import X509
public import _CryptoExtras

/// Signs app receipts as Apple's production receipts are signed: a DER PKCS#7 `SignedData` with SHA-256,
/// RSA PKCS#1 v1.5, no signed attributes, SignerInfo algorithm `rsaEncryption`, and the certificates
/// leaf, intermediate, root.
///
/// swift-certificates has CMS signing, but only as SPI, and it writes `sha256WithRSAEncryption` as the
/// SignerInfo algorithm and puts the signer certificate last; Apple's layout needs `rsaEncryption` and the
/// leaf first. So the envelope is assembled here with swift-asn1's DER serializer, the certificates and the
/// signer's issuer copied in as the DER they already are. ``sign(_:)`` costs one payload encoding, one
/// SHA-256 and one RSA-2048 signature.
public struct ReceiptSigner: Sendable {
    private let privateKey: _RSA.Signing.PrivateKey
    private let certificateChain: [[UInt8]]
    /// `IssuerAndSerialNumber` of the signer certificate, as DER.
    private let issuerAndSerial: [UInt8]

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
            signer = try CertificateParser.certificate(derEncoded: Array(signerDER))
        } catch {
            throw FormatError.malformedCertificate("The signer certificate is not DER: \(error)")
        }
        var issuerSerializer = DER.Serializer()
        try issuerSerializer.serialize(signer.issuer)
        // `SerialNumber.bytes` is the unsigned magnitude; a DER INTEGER is signed, so a serial whose top bit is
        // set needs a leading zero to stay positive and match the certificate (else verifiers find no signer).
        var serial = Array(signer.serialNumber.bytes)
        if let first = serial.first, first & 0x80 != 0 { serial.insert(0, at: 0) }
        issuerAndSerial = ReceiptDER.serialized { serializer in
            serializer.appendConstructedNode(identifier: .sequence) { sequence in
                sequence.serializeRawBytes(issuerSerializer.serializedBytes)
                sequence.appendPrimitiveNode(identifier: .integer) { $0.append(contentsOf: serial) }
            }
        }
        self.privateKey = privateKey
        self.certificateChain = certificateChain.map { Array($0) }
    }

    /// Encodes and signs a receipt; returns the DER PKCS#7 bytes (what the receipt file holds).
    public func sign(_ receipt: AppReceipt) throws -> Data {
        try sign(payload: receipt.derEncoded)
    }

    /// Signs an already encoded payload.
    public func sign(payload: Data) throws -> Data {
        let signature = try privateKey.signature(for: SHA256.hash(data: payload), padding: .insecurePKCS1v1_5)
        let contextZero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
        var serializer = DER.Serializer()
        // ContentInfo { contentType signedData, content [0] EXPLICIT SignedData }
        try serializer.appendConstructedNode(identifier: .sequence) { contentInfo in
            try contentInfo.serialize(try ASN1ObjectIdentifier(dotRepresentation: OID.signedData))
            try contentInfo.appendConstructedNode(identifier: contextZero) { explicit in
                try explicit.appendConstructedNode(identifier: .sequence) { signedData in
                    try signedData.serialize(1)
                    try signedData.appendConstructedNode(identifier: .set) { try ReceiptDER.serializeAlgorithm(OID.sha256, into: &$0) }
                    try signedData.appendConstructedNode(identifier: .sequence) { encapsulated in
                        try encapsulated.serialize(try ASN1ObjectIdentifier(dotRepresentation: OID.data))
                        try encapsulated.appendConstructedNode(identifier: contextZero) {
                            try $0.serialize(ASN1OctetString(contentBytes: ArraySlice(payload)))
                        }
                    }
                    // certificates [0] IMPLICIT: in chain order (leaf, intermediate, root), as Apple does.
                    signedData.appendConstructedNode(identifier: contextZero) { certificates in
                        for certificate in certificateChain { certificates.serializeRawBytes(certificate) }
                    }
                    try signedData.appendConstructedNode(identifier: .set) { signerInfos in
                        try signerInfos.appendConstructedNode(identifier: .sequence) { signerInfo in
                            try signerInfo.serialize(1)
                            signerInfo.serializeRawBytes(issuerAndSerial)
                            try ReceiptDER.serializeAlgorithm(OID.sha256, into: &signerInfo)
                            try ReceiptDER.serializeAlgorithm(OID.rsaEncryption, into: &signerInfo)
                            try signerInfo.serialize(ASN1OctetString(contentBytes: ArraySlice(signature.rawRepresentation)))
                        }
                    }
                }
            }
        }
        return Data(serializer.serializedBytes)
    }
}
