import SwiftASN1

/// Object identifiers used by Apple's receipts, JWS certificates and CMS.
enum OID {
    /// Apple's marker on the intermediate certificate ("Apple WWDR CA").
    static let appleIntermediateMarker = "1.2.840.113635.100.6.2.1"
    /// Apple's marker on the App Store receipt-signing leaf certificate.
    static let appleLeafMarker = "1.2.840.113635.100.6.11.1"

    static let signedData = "1.2.840.113549.1.7.2"
    static let data = "1.2.840.113549.1.7.1"
    static let sha1 = "1.3.14.3.2.26"
    static let sha256 = "2.16.840.1.101.3.4.2.1"
    static let sha384 = "2.16.840.1.101.3.4.2.2"
    static let sha512 = "2.16.840.1.101.3.4.2.3"
    static let rsaEncryption = "1.2.840.113549.1.1.1"
    static let sha1WithRSAEncryption = "1.2.840.113549.1.1.5"
    static let sha256WithRSAEncryption = "1.2.840.113549.1.1.11"
    static let sha384WithRSAEncryption = "1.2.840.113549.1.1.12"
    static let sha512WithRSAEncryption = "1.2.840.113549.1.1.13"
    static let messageDigestAttribute = "1.2.840.113549.1.9.4"
    static let extendedKeyUsage = "2.5.29.37"

    static func asn1(_ dotted: String) -> ASN1ObjectIdentifier {
        // The constants above are well-formed, so parsing cannot fail.
        try! ASN1ObjectIdentifier(dotRepresentation: dotted)
    }
}
