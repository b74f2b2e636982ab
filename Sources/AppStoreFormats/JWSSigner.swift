// P256 keys are not marked Sendable by swift-crypto 3.12 on Linux; they are immutable and thread-safe to sign with.
@preconcurrency public import Crypto
public import Foundation

/// Signs App Store JWS the way Apple does: ES256 with header `{"alg":"ES256","x5c":[leaf,intermediate,root]}`,
/// base64url segments without padding, a raw r‖s signature and a compact JSON payload.
///
/// The header, and the SHA-256 state after hashing it, are computed once: signing costs one JSON encoding, hashing
/// the payload and one P-256 signature.
public struct JWSSigner: Sendable {
    private let privateKey: P256.Signing.PrivateKey
    private let encodedHeader: String
    /// SHA-256 after `encodedHeader` and the dot: the header, with three certificates, is most of the signing input.
    private let headerHash: SHA256

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
        var headerHash = SHA256()
        headerHash.update(data: Data((encodedHeader + ".").utf8))
        self.headerHash = headerHash
    }

    /// Signs `payload`, encoded with ``AppStoreJSON`` (Apple's field order, millisecond dates, unset fields
    /// omitted), and returns the compact JWS.
    public func sign<Payload: Encodable>(_ payload: Payload) throws -> String {
        try sign(payloadJSON: AppStoreJSON.encode(payload))
    }

    /// Signs JSON bytes as they are.
    public func sign(payloadJSON: Data) throws -> String {
        var encodedPayload = Base64.urlEncoded(payloadJSON)
        var hash = headerHash
        encodedPayload.withUTF8 { hash.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        let signature = try privateKey.signature(for: hash.finalize())
        let encodedSignature = Base64.urlEncoded(signature.rawRepresentation)
        var jws = encodedHeader
        jws.reserveCapacity(encodedHeader.utf8.count + encodedPayload.utf8.count + encodedSignature.utf8.count + 2)
        jws += "."
        jws += encodedPayload
        jws += "."
        jws += encodedSignature
        return jws
    }
}
