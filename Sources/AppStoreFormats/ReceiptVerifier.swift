import Crypto
public import Foundation
import SwiftASN1
import Synchronization
import X509
import _CryptoExtras

/// Verifies app receipts (PKCS#7) against trusted roots: the store's own, Apple's ("Apple Root CA") or Xcode's
/// `StoreKitTestCertificate.cer`.
///
/// A receipt passes when its signer certificate is embedded, the RSA signature matches the content (SHA-1 or
/// SHA-2, with or without signed attributes), the signer chains to a trusted root through the embedded
/// certificates, every certificate was valid at the receipt's creation date (attribute 12) — not today, since
/// Apple's receipt-signing leaves expire — and, when asked, the bundle ID and device hash match. Like
/// `openssl cms -verify -purpose any`, extended key usage is not enforced (Xcode's certificate is marked for
/// code signing).
///
/// Validated chains are cached by the embedded certificates' bytes, with the signer's key: a receipt from a signer
/// seen before costs its parse, one digest and one RSA verification, not the parsing of its certificates. The
/// verifier is thread-safe.
public final class ReceiptVerifier: Sendable {
    private let validator: ChainValidator
    private let cache = Mutex<[Data: TrustedSigner]>([:])
    private static let cacheLimit = 64

    /// A signer whose chain was validated: its RSA key and the chain.
    private struct TrustedSigner: Sendable {
        let key: _RSA.Signing.PublicKey
        let chain: ValidatedChain
    }

    /// The bundle ID receipts must carry, or nil to accept any.
    public let bundleID: String?

    /// Creates a verifier trusting the given DER root certificates.
    /// - Throws: ``FormatError`` when a root is not a DER certificate.
    public init(rootCertificates: [Data], bundleID: String? = nil) throws {
        let roots = try rootCertificates.map { der in
            do {
                return try CertificateParser.certificate(derEncoded: Array(der))
            } catch {
                throw FormatError.malformedCertificate("A root certificate is not DER: \(error)")
            }
        }
        self.validator = ChainValidator(roots: roots, acknowledgingExtendedKeyUsage: true)
        self.bundleID = bundleID
    }

    /// Verifies a receipt for an iOS device (`identifierForVendor`).
    public func verify(_ receiptData: Data, deviceIdentifier: UUID) async -> Result<AppReceipt, ReceiptVerificationFailure> {
        await verify(receiptData, deviceIdentifierBytes: deviceIdentifier.data)
    }

    /// Verifies a receipt (DER, BER or base64 text). With `deviceIdentifierBytes` (16 UUID bytes, or a Mac's
    /// 6-byte MAC address) the hash in attribute 5 must match too.
    public func verify(
        _ receiptData: Data, deviceIdentifierBytes: Data? = nil
    ) async -> Result<AppReceipt, ReceiptVerificationFailure> {
        let receipt: UnverifiedReceipt
        do {
            receipt = try UnverifiedReceipt(receiptData: receiptData)
        } catch {
            return .failure(.malformedReceipt.with("\(error)"))
        }
        return await verify(receipt, deviceIdentifierBytes: deviceIdentifierBytes)
    }

    /// Verifies a receipt already read, without reading it again. With `deviceIdentifierBytes` (16 UUID bytes, or a
    /// Mac's 6-byte MAC address) the hash in attribute 5 must match too.
    public func verify(
        _ unverified: UnverifiedReceipt, deviceIdentifierBytes: Data? = nil
    ) async -> Result<AppReceipt, ReceiptVerificationFailure> {
        let envelope = unverified.envelope
        let chain: ValidatedChain
        switch await trustedSigner(of: envelope) {
        case .success(let signer): chain = signer.chain
        case .failure(let failure): return .failure(failure)
        }

        let attributes: [ReceiptAttribute]
        switch unverified.attributes {
        case .success(let read): attributes = read
        case .failure(let error): return .failure(.malformedPayload.with("\(error)"))
        }
        let receipt = AppReceipt(attributes: attributes)
        if let created = receipt.creationDate, !chain.isValid(at: created) {
            return .failure(
                .certificateNotValidAtCreationDate.with(
                    "The chain is valid from \(chain.validFrom) to \(chain.validUntil), but the receipt was created at \(created)."
                )
            )
        }
        if let bundleID, receipt.bundleID != bundleID {
            return .failure(.wrongBundleID.with("Expected bundle ID \(bundleID), found \(receipt.bundleID)."))
        }
        if let deviceIdentifierBytes {
            var hasher = Insecure.SHA1()
            hasher.update(data: deviceIdentifierBytes)
            hasher.update(data: attributes.first { $0.type == 4 }?.value ?? Data())
            hasher.update(data: attributes.first { $0.type == 2 }?.value ?? Data())
            guard Data(hasher.finalize()) == receipt.sha1Hash else { return .failure(.hashMismatch) }
        }
        return .success(receipt)
    }

    /// The signer of `envelope` with its validated chain: from the cache, or found, checked and cached. The
    /// signature is checked either way, and before the chain is validated.
    private func trustedSigner(of envelope: ReceiptEnvelope) async -> Result<TrustedSigner, ReceiptVerificationFailure> {
        if let cached = cache.withLock({ $0[envelope.chainCacheKey] }) {
            if let failure = Self.checkSignature(of: envelope, key: cached.key) { return .failure(failure) }
            return .success(cached)
        }
        let parsed: SignedReceipt
        do {
            parsed = try SignedReceipt(envelope: envelope, isDER: false)
        } catch {
            return .failure(.malformedReceipt.with("\(error)"))
        }
        guard let signer = parsed.signerCertificate else { return .failure(.missingSignerCertificate) }
        guard let key = _RSA.Signing.PublicKey(signer.publicKey) else {
            return .failure(.unsupportedAlgorithm.with("The signer's key is not RSA."))
        }
        if let failure = Self.checkSignature(of: envelope, key: key) { return .failure(failure) }
        guard let chain = await validator.validate(leaf: signer, intermediates: parsed.certificates.filter { $0 != signer }) else {
            return .failure(.untrustedChain)
        }
        let trusted = TrustedSigner(key: key, chain: chain)
        cache.withLock { entries in
            if entries.count >= Self.cacheLimit { entries.removeAll(keepingCapacity: true) }
            entries[envelope.chainCacheKey] = trusted
        }
        return .success(trusted)
    }

    /// Removes every cached chain.
    public func removeCachedChains() {
        cache.withLock { $0.removeAll() }
    }

    private static func checkSignature(of envelope: ReceiptEnvelope, key: _RSA.Signing.PublicKey) -> ReceiptVerificationFailure? {
        let rsaAlgorithms = [
            OID.rsaEncryption, OID.sha1WithRSAEncryption, OID.sha256WithRSAEncryption,
            OID.sha384WithRSAEncryption, OID.sha512WithRSAEncryption,
        ]
        guard rsaAlgorithms.contains(envelope.signatureAlgorithm) else {
            return .unsupportedAlgorithm.with("The signature algorithm \(envelope.signatureAlgorithm) is not RSA.")
        }
        guard let contentDigest = digest(envelope.payload, algorithm: envelope.digestAlgorithm) else {
            return .unsupportedAlgorithm.with("The digest algorithm \(envelope.digestAlgorithm) is not supported.")
        }
        var signedDigest = contentDigest
        if let signedAttributes = envelope.signedAttributes {
            guard messageDigest(in: signedAttributes) == contentDigest.bytes else {
                return .invalidSignature.with("The signed message-digest attribute does not match the content.")
            }
            signedDigest = digest(signedAttributes, algorithm: envelope.digestAlgorithm)!
        }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: envelope.signature)
        let valid: Bool
        switch signedDigest {
        case .sha1(let value): valid = key.isValidSignature(signature, for: value, padding: .insecurePKCS1v1_5)
        case .sha256(let value): valid = key.isValidSignature(signature, for: value, padding: .insecurePKCS1v1_5)
        case .sha384(let value): valid = key.isValidSignature(signature, for: value, padding: .insecurePKCS1v1_5)
        case .sha512(let value): valid = key.isValidSignature(signature, for: value, padding: .insecurePKCS1v1_5)
        }
        return valid ? nil : .invalidSignature
    }

    private enum AnyDigest {
        case sha1(Insecure.SHA1.Digest)
        case sha256(SHA256.Digest)
        case sha384(SHA384.Digest)
        case sha512(SHA512.Digest)

        var bytes: [UInt8] {
            switch self {
            case .sha1(let value): Array(value)
            case .sha256(let value): Array(value)
            case .sha384(let value): Array(value)
            case .sha512(let value): Array(value)
            }
        }
    }

    private static func digest(_ data: Data, algorithm: String) -> AnyDigest? {
        switch algorithm {
        case OID.sha1: .sha1(Insecure.SHA1.hash(data: data))
        case OID.sha256: .sha256(SHA256.hash(data: data))
        case OID.sha384: .sha384(SHA384.hash(data: data))
        case OID.sha512: .sha512(SHA512.hash(data: data))
        default: nil
        }
    }

    /// The value of the message-digest attribute (1.2.840.113549.1.9.4) in a DER SET OF Attribute.
    private static func messageDigest(in signedAttributes: Data) -> [UInt8]? {
        guard let set = try? BER.parse(Array(signedAttributes)), case .constructed(let attributes) = set.content else {
            return nil
        }
        for attribute in attributes {
            guard case .constructed(let fields) = attribute.content else { continue }
            var iterator = fields.makeIterator()
            guard let oidNode = iterator.next(), let oid = try? ASN1ObjectIdentifier(berEncoded: oidNode),
                oid == OID.asn1(OID.messageDigestAttribute),
                let valuesNode = iterator.next(), case .constructed(let values) = valuesNode.content,
                let valueNode = values.first(where: { _ in true }),
                let value = try? ASN1OctetString(berEncoded: valueNode)
            else { continue }
            return Array(value.bytes)
        }
        return nil
    }
}
