public import Foundation
import SwiftASN1
public import X509

/// A three-certificate chain as Apple uses it: leaf (signs), intermediate, root (the trust anchor).
///
/// The DER bytes are computed once, so signers can embed them (`x5c`, PKCS#7 `certificates`) without
/// re-serialising.
public struct CertificateChain: Sendable, Hashable {
    /// The certificate whose key signs JWS or receipts.
    public let leaf: Certificate
    /// The intermediate certificate, which carries Apple's marker OID 1.2.840.113635.100.6.2.1.
    public let intermediate: Certificate
    /// The self-signed root a verifier trusts.
    public let root: Certificate
    /// DER encodings in signing order: leaf, intermediate, root.
    public let derEncoded: [Data]

    /// Creates a chain from its three certificates.
    public init(leaf: Certificate, intermediate: Certificate, root: Certificate) throws {
        self.leaf = leaf
        self.intermediate = intermediate
        self.root = root
        self.derEncoded = try [leaf, intermediate, root].map { Data(try $0.derBytes) }
    }

    /// The certificates in signing order: leaf, intermediate, root.
    public var certificates: [Certificate] { [leaf, intermediate, root] }
}

extension Certificate {
    /// The certificate's DER encoding.
    var derBytes: [UInt8] {
        get throws {
            var serializer = DER.Serializer()
            try serializer.serialize(self)
            return serializer.serializedBytes
        }
    }

    /// The certificate as a PEM block.
    var pemString: String {
        get throws { try serializeAsPEM().pemString }
    }

    /// Whether the certificate carries an extension with the given dotted OID.
    func hasExtension(_ dotted: String) -> Bool {
        let oid = OID.asn1(dotted)
        return extensions.contains { $0.oid == oid }
    }
}
