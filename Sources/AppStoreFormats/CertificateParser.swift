import SwiftASN1
import X509

/// Parses certificates, first refusing the RSA keys that swift-crypto 3.12 cannot read without aborting.
///
/// When BoringSSL rejects an RSA public key that is well-formed DER (an even or negative modulus, one shorter than
/// 512 or longer than 16384 bits, an even exponent or one of more than 33 bits), swift-crypto 3.12's
/// `_RSA.Signing.PublicKey(derRepresentation:)` frees the key it allocated and throws, and its `deinit` frees it
/// again: the process aborts. The certificates in receipts and JWS headers come from whoever sends them, so every
/// certificate this module reads goes through here and such a key becomes a ``FormatError`` instead (found by
/// fuzzing, `Fuzz/`).
enum CertificateParser {
    /// The DER certificate parsed, or ``FormatError/malformedCertificate`` for an RSA key BoringSSL would refuse.
    static func certificate(derEncoded der: [UInt8]) throws -> Certificate {
        if let problem = unreadableRSAKey(in: der) { throw FormatError.malformedCertificate(problem) }
        return try Certificate(derEncoded: der)
    }

    /// The PEM certificate parsed, with the same check.
    static func certificate(pemEncoded text: String) throws -> Certificate {
        try certificate(derEncoded: try PEMDocument(pemString: text).derBytes)
    }

    private static let rsaEncryption = "1.2.840.113549.1.1.1"

    /// Why the certificate's RSA key would fail BoringSSL's checks; nil when the key passes them, when it is not RSA,
    /// or when the certificate is malformed in a way X509 itself reports with an error.
    static func unreadableRSAKey(in der: [UInt8]) -> String? {
        // Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL, serialNumber, signature,
        // issuer, validity, subject, subjectPublicKeyInfo, … }, … }
        guard let root = try? DER.parse(der), case .constructed(let certificate) = root.content,
            let tbs = certificate.first(where: { _ in true }), case .constructed(let tbsFields) = tbs.content
        else { return nil }
        var fields = Array(tbsFields)
        if fields.first?.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) { fields.removeFirst() }
        // SubjectPublicKeyInfo ::= SEQUENCE { algorithm SEQUENCE { OID, parameters }, subjectPublicKey BIT STRING }
        guard fields.count > 5, case .constructed(let spkiParts) = fields[5].content else { return nil }
        let spki = Array(spkiParts)
        guard spki.count == 2, case .constructed(let algorithm) = spki[0].content,
            let oidNode = algorithm.first(where: { _ in true }), let oid = try? ASN1ObjectIdentifier(derEncoded: oidNode),
            oid.description == rsaEncryption, let key = try? ASN1BitString(derEncoded: spki[1]),
            // RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }
            let pkcs1 = try? DER.parse(Array(key.bytes)), case .constructed(let numbers) = pkcs1.content
        else { return nil }
        let integers = Array(numbers)
        guard integers.count == 2, case .primitive(let modulus) = integers[0].content, case .primitive(let exponent) = integers[1].content,
            integers.allSatisfy({ $0.identifier == .integer })
        else { return nil }
        let n = Magnitude(modulus), e = Magnitude(exponent)
        guard !n.isNegative, (512...16_384).contains(n.bitCount), n.isOdd else {
            return "The certificate's RSA modulus is not usable: it must be odd and positive, of 512 to 16384 bits (this one has \(n.bitCount))."
        }
        guard !e.isNegative, (2...33).contains(e.bitCount), e.isOdd else {
            return "The certificate's RSA public exponent is not usable: it must be odd and positive, of 2 to 33 bits (this one has \(e.bitCount))."
        }
        return nil
    }

    /// What BoringSSL looks at in a DER INTEGER's big-endian two's-complement content bytes.
    private struct Magnitude {
        let isNegative: Bool
        let bitCount: Int
        let isOdd: Bool

        init(_ bytes: ArraySlice<UInt8>) {
            isNegative = (bytes.first ?? 0) & 0x80 != 0
            let significant = bytes.drop { $0 == 0 }
            bitCount = significant.first.map { (significant.count - 1) * 8 + (8 - $0.leadingZeroBitCount) } ?? 0
            isOdd = (bytes.last ?? 0) & 1 == 1
        }
    }
}
