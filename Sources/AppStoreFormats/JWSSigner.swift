// P256 keys are not marked Sendable by swift-crypto 3.12 on Linux; they are immutable and thread-safe to sign with.
@preconcurrency public import Crypto
public import Foundation

/// Signs App Store JWS the way Apple does: ES256 with header `{"alg":"ES256","x5c":[leaf,intermediate,root]}`,
/// base64url segments without padding, a raw r‖s signature and a compact JSON payload.
///
/// The header is computed once; signing costs one JSON encoding and one P-256 signature.
public struct JWSSigner: Sendable {
    private let privateKey: P256.Signing.PrivateKey
    private let encodedHeader: String

    /// A signer using the authority's JWS leaf key and chain.
    public init(certificateAuthority: CertificateAuthority) {
        self.init(privateKey: certificateAuthority.jwsLeafKey, certificateChain: certificateAuthority.jwsChain.derEncoded)
    }

    /// A signer with any P-256 key and the DER certificates to put in `x5c` (leaf first).
    public init(privateKey: P256.Signing.PrivateKey, certificateChain: [Data]) {
        self.privateKey = privateKey
        let x5c = certificateChain.map { "\"" + $0.base64EncodedString() + "\"" }.joined(separator: ",")
        let header = "{\"alg\":\"ES256\",\"x5c\":[\(x5c)]}"
        self.encodedHeader = Base64.urlEncoded(Array(header.utf8))
    }

    /// Signs `payload`, encoded with ``AppStoreJSON`` (Apple's field order, millisecond dates, unset fields
    /// omitted), and returns the compact JWS.
    public func sign<Payload: Encodable>(_ payload: Payload) throws -> String {
        try sign(payloadJSON: AppStoreJSON.encode(payload))
    }

    /// Signs JSON bytes as they are.
    public func sign(payloadJSON: Data) throws -> String {
        let signingInput = encodedHeader + "." + Base64.urlEncoded(payloadJSON)
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64.urlEncoded(signature.rawRepresentation)
    }
}
