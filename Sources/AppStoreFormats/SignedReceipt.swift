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
        let signerIdentifier: ASN1Node
        do {
            signerIdentifier = try BER.parse(Array(envelope.signerIdentifier))
        } catch {
            throw FormatError.malformedData("The receipt is not a PKCS#7 SignedData: its signer identifier is malformed: \(error).")
        }
        self.signerCertificate = Self.signer(signerIdentifier, in: certificates)
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
    /// The SignerInfo's signer identifier, encoded: IssuerAndSerialNumber or a [0] SubjectKeyIdentifier. Parsed
    /// only when the signer has to be found (``SignedReceipt``), not for a chain already cached.
    let signerIdentifier: ArraySlice<UInt8>
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

    /// Reads a receipt's PKCS#7 bytes, DER or BER, in place with ``BERElement``: the certificates are only
    /// delimited, since a verifier with a cached chain never needs them parsed.
    init(bytes: [UInt8]) throws {
        func fail(_ reason: String) -> FormatError {
            FormatError.malformedData("The receipt is not a PKCS#7 SignedData: \(reason).")
        }
        let parts = try bytes.withUnsafeBytes { buffer throws -> Parts in
            do {
                return try Parts(in: buffer)
            } catch let failure as Parts.Failure {
                throw fail(failure.reason)
            } catch {
                throw fail("\(error)")
            }
        }
        self.payload = parts.payload
        self.certificateDERs = parts.certificates.map { bytes[$0] }
        self.signerIdentifier = bytes[parts.signerIdentifier]
        self.digestAlgorithm = try Self.algorithmOID(bytes[parts.digestAlgorithm])
        self.signatureAlgorithm = try Self.algorithmOID(bytes[parts.signatureAlgorithm])
        self.signature = parts.signature
        self.signedAttributes = parts.signedAttributes.map { range in
            var encoded = Array(bytes[range])
            encoded[0] = 0x31  // The signature covers the attributes re-tagged as a universal SET.
            return Data(encoded)
        }
        self.chainCacheKey = Data(bytes[parts.certificatesField]) + Data(signerIdentifier)
    }

    /// Where each part of the SignedData lies, and its contents where they are copied out.
    private struct Parts {
        struct Failure: Error {
            let reason: String
        }

        var payload = Data()
        var certificatesField: Range<Int> = 0..<0
        var certificates: [Range<Int>] = []
        var signerIdentifier: Range<Int> = 0..<0
        var digestAlgorithm: Range<Int> = 0..<0
        var signedAttributes: Range<Int>?
        var signatureAlgorithm: Range<Int> = 0..<0
        var signature = Data()

        /// The DER contents of the signedData OID, 1.2.840.113549.1.7.2 (BER encodes OIDs the same way).
        private static let signedDataOID: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]

        init(in bytes: UnsafeRawBufferPointer) throws {
            func children(of element: BERElement) throws(FormatError) -> [BERElement] { try element.children(in: bytes) }
            func isContext0(_ element: BERElement) -> Bool { element.tagClass == 2 && element.tagNumber == 0 }

            let contentInfo = try BERElement(in: bytes, at: 0, limit: bytes.count)
            guard contentInfo.isUniversal(BERElement.UniversalTag.sequence, constructed: true) else {
                throw Failure(reason: "the top level is not a SEQUENCE")
            }
            let contentInfoFields = try children(of: contentInfo)
            guard let contentType = contentInfoFields.first, contentType.tagClass == 0, contentType.tagNumber == 6,
                bytes[contentType.contents].elementsEqual(Self.signedDataOID)
            else {
                throw Failure(reason: "the content type is not signedData (1.2.840.113549.1.7.2)")
            }
            guard contentInfoFields.count >= 2, isContext0(contentInfoFields[1]),
                let signedData = try children(of: contentInfoFields[1]).first, signedData.isConstructed
            else {
                throw Failure(reason: "the [0] content is missing")
            }

            // version, digestAlgorithms, encapContentInfo, [0] certificates?, [1] crls?, signerInfos
            let fields = try children(of: signedData)
            guard fields.count >= 4 else { throw Failure(reason: "SignedData has too few fields") }
            guard fields[2].isConstructed, let eContentExplicit = try children(of: fields[2]).dropFirst().first,
                isContext0(eContentExplicit), let eContent = try children(of: eContentExplicit).first,
                eContent.tagClass == 0, eContent.tagNumber == BERElement.UniversalTag.octetString
            else {
                throw Failure(reason: "the receipt has no attached content")
            }
            payload = try Self.octets(of: eContent, in: bytes)

            var signerInfos: BERElement?
            for field in fields.dropFirst(3) {
                if isContext0(field) {
                    certificatesField = field.encoded
                    certificates = try children(of: field)
                        .filter { $0.isUniversal(BERElement.UniversalTag.sequence, constructed: true) }
                        .map(\.encoded)
                } else if field.isUniversal(BERElement.UniversalTag.set, constructed: true) {
                    signerInfos = field
                }
            }

            guard let signerInfos, let signerInfo = try children(of: signerInfos).first, signerInfo.isConstructed else {
                throw Failure(reason: "there is no SignerInfo")
            }
            // version, sid, digestAlgorithm, [0] signedAttrs?, signatureAlgorithm, signature
            let signerFields = try children(of: signerInfo)
            guard signerFields.count >= 5 else { throw Failure(reason: "the SignerInfo has too few fields") }
            signerIdentifier = signerFields[1].encoded
            digestAlgorithm = signerFields[2].encoded
            var index = 3
            if isContext0(signerFields[index]) {
                signedAttributes = signerFields[index].encoded
                index += 1
            }
            guard index + 1 < signerFields.count else { throw Failure(reason: "the SignerInfo has no signature") }
            signatureAlgorithm = signerFields[index].encoded
            let signatureField = signerFields[index + 1]
            guard signatureField.tagClass == 0, signatureField.tagNumber == BERElement.UniversalTag.octetString else {
                throw Failure(reason: "the signature is not an OCTET STRING")
            }
            signature = try Self.octets(of: signatureField, in: bytes)
        }

        /// The octets of an OCTET STRING: its contents, or in BER the concatenated contents of its segments.
        private static func octets(of element: BERElement, in bytes: UnsafeRawBufferPointer) throws -> Data {
            guard element.isConstructed else { return Data(UnsafeRawBufferPointer(rebasing: bytes[element.contents])) }
            var joined = Data()
            for segment in try element.children(in: bytes) {
                guard segment.tagClass == 0, segment.tagNumber == BERElement.UniversalTag.octetString else {
                    throw Failure(reason: "a constructed OCTET STRING holds something else")
                }
                joined.append(try octets(of: segment, in: bytes))
            }
            return joined
        }
    }

    private static func algorithmOID(_ encoded: ArraySlice<UInt8>) throws -> String {
        guard let node = try? BER.parse(Array(encoded)), case .constructed(let fields) = node.content, let oidNode = fields.first(where: { _ in true }),
            let oid = try? ASN1ObjectIdentifier(berEncoded: oidNode)
        else {
            throw FormatError.malformedData("The receipt's SignerInfo has a malformed AlgorithmIdentifier.")
        }
        return oid.description
    }
}
