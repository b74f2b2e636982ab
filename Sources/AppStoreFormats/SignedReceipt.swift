public import Foundation
import SwiftASN1
public import X509

/// A PKCS#7 / CMS `SignedData` receipt envelope, parsed but not verified.
///
/// Reads every layout seen in the wild: Apple's DER production and sandbox receipts, Xcode's BER receipts
/// (indefinite lengths, constructed OCTET STRING content, one self-signed certificate) and legacy SHA-1
/// receipts. ``ReceiptVerifier`` checks it; ``AppReceipt/init(receiptData:)`` decodes its payload.
public struct SignedReceipt: Sendable {
    /// The signed content: the receipt payload SET.
    public let payload: Data
    /// The certificates embedded in the envelope, in their encoded order.
    public let certificates: [Certificate]
    /// The certificate the SignerInfo names (by issuer and serial number), if it is embedded.
    public let signerCertificate: Certificate?
    /// The SignerInfo's digest algorithm OID, e.g. `2.16.840.1.101.3.4.2.1` (SHA-256).
    public let digestAlgorithm: String
    /// The SignerInfo's signature algorithm OID, e.g. `1.2.840.113549.1.1.1` (rsaEncryption).
    public let signatureAlgorithm: String
    /// The signature bytes.
    public let signature: Data
    /// The DER `SET OF Attribute` the signature covers when the SignerInfo has signed attributes (Apple's
    /// receipts have none: the signature then covers the payload's digest directly).
    public let signedAttributes: Data?
    /// Whether the envelope is strict DER (Apple's production layout) rather than BER.
    public let isDER: Bool

    /// The raw bytes of the `certificates` field and of the signer identifier, used as a cache key.
    let chainCacheKey: Data

    /// Parses a receipt: PKCS#7 bytes in DER or BER, or base64 text of them (whitespace allowed).
    public init(data: Data) throws {
        let bytes = ReceiptEnvelope.bytes(of: data)
        try self.init(envelope: try ReceiptEnvelope(bytes: bytes), isDER: (try? DER.parse(bytes)) != nil)
    }

    /// Completes an envelope read without its certificates: parses them and finds the signer's.
    init(envelope: ReceiptEnvelope, isDER: Bool) throws {
        var certificates: [Certificate] = []
        for der in envelope.certificateDERs {
            do {
                certificates.append(try CertificateParser.certificate(derEncoded: Array(der)))
            } catch {
                throw FormatError.malformedData("The receipt is not a PKCS#7 SignedData: an embedded certificate is malformed: \(error).")
            }
        }
        self.payload = envelope.payload
        self.certificates = certificates
        self.signerCertificate = Self.signer(envelope.signerIdentifier, in: certificates)
        self.digestAlgorithm = envelope.digestAlgorithm
        self.signatureAlgorithm = envelope.signatureAlgorithm
        self.signature = envelope.signature
        self.signedAttributes = envelope.signedAttributes
        self.isDER = isDER
        self.chainCacheKey = envelope.chainCacheKey
    }

    /// Decodes the payload as an ``AppReceipt``.
    public func decodeReceipt() throws -> AppReceipt {
        try AppReceipt(payload: payload)
    }

    /// Finds the certificate named by a SignerIdentifier: IssuerAndSerialNumber or [0] SubjectKeyIdentifier.
    private static func signer(_ sid: ASN1Node, in certificates: [Certificate]) -> Certificate? {
        if sid.identifier == .sequence, case .constructed(let fields) = sid.content {
            var iterator = fields.makeIterator()
            guard let issuerNode = iterator.next(), let serialNode = iterator.next(),
                let issuer = try? DistinguishedName(derEncoded: issuerNode),
                case .primitive(let serialBytes) = serialNode.content
            else { return nil }
            return certificates.first { certificate in
                // Compare as serial numbers, not bytes: the DER INTEGER carries a leading zero when its top bit
                // is set, which `SerialNumber` normalises away.
                certificate.issuer == issuer && certificate.serialNumber == Certificate.SerialNumber(bytes: serialBytes)
            }
        }
        if sid.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
            case .primitive(let keyIdentifier) = sid.content
        {
            return certificates.first { certificate in
                (try? certificate.extensions.subjectKeyIdentifier?.keyIdentifier).flatMap { $0.map(Array.init) }
                    == Array(keyIdentifier)
            }
        }
        return nil
    }
}

/// The parts of a PKCS#7 `SignedData` receipt, read without parsing the certificates it embeds: all that checking a
/// receipt whose chain was trusted before needs, since parsing X.509 certificates costs more than the RSA signature.
struct ReceiptEnvelope: Sendable {
    /// The signed content: the receipt payload SET.
    let payload: Data
    /// The embedded certificates, DER, in their encoded order.
    let certificateDERs: [ArraySlice<UInt8>]
    /// The SignerInfo's signer identifier: IssuerAndSerialNumber or a [0] SubjectKeyIdentifier.
    let signerIdentifier: ASN1Node
    /// The SignerInfo's digest algorithm OID.
    let digestAlgorithm: String
    /// The SignerInfo's signature algorithm OID.
    let signatureAlgorithm: String
    /// The signature bytes.
    let signature: Data
    /// The signed attributes as the DER `SET OF Attribute` the signature covers, when there are any.
    let signedAttributes: Data?
    /// The raw bytes of the `certificates` field and of the signer identifier: the same for every receipt one signer
    /// signed with one chain.
    let chainCacheKey: Data

    /// The receipt's bytes: `data` itself, or what it holds as base64 text (whitespace allowed).
    static func bytes(of data: Data) -> [UInt8] {
        let bytes = Array(data)
        if let first = bytes.first, first != 0x30, let text = String(bytes: bytes, encoding: .utf8),
            let decoded = Base64.decodeIgnoringWhitespace(text)
        {
            return decoded
        }
        return bytes
    }

    /// Reads a receipt's PKCS#7 bytes, DER or BER.
    init(bytes: [UInt8]) throws {
        func fail(_ reason: String) -> FormatError {
            FormatError.malformedData("The receipt is not a PKCS#7 SignedData: \(reason).")
        }
        let contentInfo: ASN1Node
        do {
            contentInfo = try BER.parse(bytes)
        } catch {
            throw fail("\(error)")
        }
        guard contentInfo.identifier == .sequence, case .constructed(let contentInfoFields) = contentInfo.content else {
            throw fail("the top level is not a SEQUENCE")
        }
        var contentInfoIterator = contentInfoFields.makeIterator()
        guard let contentTypeNode = contentInfoIterator.next(),
            let contentType = try? ASN1ObjectIdentifier(berEncoded: contentTypeNode),
            contentType == OID.asn1(OID.signedData)
        else {
            throw fail("the content type is not signedData (1.2.840.113549.1.7.2)")
        }
        guard let explicitNode = contentInfoIterator.next(), explicitNode.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
            case .constructed(let explicitChildren) = explicitNode.content,
            let signedDataNode = explicitChildren.first(where: { _ in true }),
            case .constructed(let signedDataFields) = signedDataNode.content
        else {
            throw fail("the [0] content is missing")
        }

        var fields = Array(signedDataFields)
        guard fields.count >= 4 else { throw fail("SignedData has too few fields") }
        // version, digestAlgorithms, encapContentInfo, [0] certificates?, [1] crls?, signerInfos
        let encapNode = fields[2]
        guard case .constructed(let encapFields) = encapNode.content else { throw fail("encapContentInfo is malformed") }
        var encapIterator = encapFields.makeIterator()
        _ = encapIterator.next()
        guard let eContentExplicit = encapIterator.next(), case .constructed(let eContentChildren) = eContentExplicit.content,
            let eContentNode = eContentChildren.first(where: { _ in true }),
            let eContent = try? ASN1OctetString(berEncoded: eContentNode)
        else {
            throw fail("the receipt has no attached content")
        }
        self.payload = Data(eContent.bytes)

        fields.removeFirst(3)
        var certificateDERs: [ArraySlice<UInt8>] = []
        var certificatesBytes: ArraySlice<UInt8> = []
        var signerInfosNode: ASN1Node?
        for field in fields {
            if field.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                certificatesBytes = field.encodedBytes
                guard case .constructed(let certificateNodes) = field.content else { throw fail("certificates are malformed") }
                for node in certificateNodes where node.identifier == .sequence {
                    certificateDERs.append(node.encodedBytes)
                }
            } else if field.identifier == .set {
                signerInfosNode = field
            }
        }
        self.certificateDERs = certificateDERs

        guard let signerInfosNode, case .constructed(let signerInfos) = signerInfosNode.content,
            let signerInfo = signerInfos.first(where: { _ in true }),
            case .constructed(let signerFieldsCollection) = signerInfo.content
        else {
            throw fail("there is no SignerInfo")
        }
        let signerFields = Array(signerFieldsCollection)
        guard signerFields.count >= 5 else { throw fail("the SignerInfo has too few fields") }
        let sidNode = signerFields[1]
        var index = 2
        let digestAlgorithm = try Self.algorithmOID(signerFields[index])
        index += 1
        var signedAttributes: Data?
        if signerFields[index].identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
            var encoded = Array(signerFields[index].encodedBytes)
            encoded[0] = 0x31  // The signature covers the attributes re-tagged as a universal SET.
            signedAttributes = Data(encoded)
            index += 1
        }
        guard index + 1 < signerFields.count else { throw fail("the SignerInfo has no signature") }
        let signatureAlgorithm = try Self.algorithmOID(signerFields[index])
        guard let signature = try? ASN1OctetString(berEncoded: signerFields[index + 1]) else {
            throw fail("the signature is not an OCTET STRING")
        }
        self.signerIdentifier = sidNode
        self.digestAlgorithm = digestAlgorithm
        self.signatureAlgorithm = signatureAlgorithm
        self.signature = Data(signature.bytes)
        self.signedAttributes = signedAttributes
        self.chainCacheKey = Data(certificatesBytes) + Data(sidNode.encodedBytes)
    }

    private static func algorithmOID(_ node: ASN1Node) throws -> String {
        guard case .constructed(let fields) = node.content, let oidNode = fields.first(where: { _ in true }),
            let oid = try? ASN1ObjectIdentifier(berEncoded: oidNode)
        else {
            throw FormatError.malformedData("The receipt's SignerInfo has a malformed AlgorithmIdentifier.")
        }
        return oid.description
    }
}
