// P256 public keys are not marked Sendable by swift-crypto 3.12 on Linux; cached keys are immutable.
@preconcurrency import Crypto
public import Foundation
import Synchronization
import X509
import SwiftASN1

/// Verifies App Store JWS (transactions, renewal info, app transactions, notifications) against trusted roots,
/// with the checks of Apple's `SignedDataVerifier` in offline mode.
///
/// A token passes when its header says ES256, its `x5c` holds three certificates whose leaf and intermediate
/// chain to one of the roots (x5c[2] is ignored, as Apple does), the leaf carries OID
/// 1.2.840.113635.100.6.11.1 and the intermediate 1.2.840.113635.100.6.2.1, the signature matches, every
/// certificate was valid at the payload's `signedDate` (`receiptCreationDate` for app transactions), and —
/// when configured — the bundle ID and environment match.
///
/// Verified chains are cached by the exact header bytes (which contain `x5c`), so verifying another token
/// from the same signer costs one dictionary lookup and one ECDSA verification. The verifier is thread-safe.
public final class JWSVerifier: Sendable {
    private struct CachedChain: Sendable {
        let leafKey: P256.Signing.PublicKey
        let chain: ValidatedChain
    }

    private let validator: ChainValidator
    /// Verified chains with the exact header bytes they were verified for. A short list compared with `memcmp`
    /// beats a dictionary here: hashing a 4 KB header costs more than comparing it with the one or two entries a
    /// store has, and headers from different chains differ within their first hundred bytes.
    private let cache = Mutex<[(header: [UInt8], chain: CachedChain)]>([])
    private static let cacheLimit = 64

    /// The bundle ID payloads must carry, or nil to accept any.
    public let bundleID: String?
    /// The environment payloads must carry, or nil to accept any.
    public let environment: AppStoreEnvironment?

    /// Creates a verifier trusting the given DER root certificates.
    ///
    /// - Parameters:
    ///   - rootCertificates: DER roots, e.g. ``CertificateAuthority/rootCertificatesDER`` or Apple Root CA - G3.
    ///   - bundleID: When set, transactions, app transactions and notifications must carry it.
    ///   - environment: When set, payloads must carry it (`environment`, or `receiptType` for app transactions).
    /// - Throws: ``FormatError`` when a root is not a DER certificate.
    public init(rootCertificates: [Data], bundleID: String? = nil, environment: AppStoreEnvironment? = nil) throws {
        let roots = try rootCertificates.map { der in
            do {
                return try CertificateParser.certificate(derEncoded: Array(der))
            } catch {
                throw FormatError.malformedCertificate("A root certificate is not DER: \(error)")
            }
        }
        self.validator = ChainValidator(roots: roots, acknowledgingExtendedKeyUsage: false)
        self.bundleID = bundleID
        self.environment = environment
    }

    /// Verifies a signed transaction (`signedTransactionInfo`).
    public func verifyTransaction(_ token: String) async -> Result<JWSTransactionDecodedPayload, JWSVerificationFailure> {
        await verify(token, as: JWSTransactionDecodedPayload.self)
    }

    /// Verifies signed renewal info (`signedRenewalInfo`). Renewal info carries no bundle ID.
    public func verifyRenewalInfo(_ token: String) async -> Result<JWSRenewalInfoDecodedPayload, JWSVerificationFailure> {
        await verify(token, as: JWSRenewalInfoDecodedPayload.self)
    }

    /// Verifies a signed app transaction (`signedAppTransactionInfo`), checking the chain at `receiptCreationDate`.
    public func verifyAppTransaction(_ token: String) async -> Result<AppTransactionPayload, JWSVerificationFailure> {
        await verify(token, as: AppTransactionPayload.self)
    }

    /// Verifies a notification V2 (`signedPayload`). It does not verify the JWS nested in `data`; verify those
    /// with ``verifyTransaction(_:)`` and ``verifyRenewalInfo(_:)``.
    public func verifyNotification(_ token: String) async -> Result<ResponseBodyV2DecodedPayload, JWSVerificationFailure> {
        await verify(token, as: ResponseBodyV2DecodedPayload.self)
    }

    /// Verifies `token` and decodes its payload as `type`.
    public func verify<Payload: JWSVerifiable>(
        _ token: String, as type: Payload.Type = Payload.self
    ) async -> Result<Payload, JWSVerificationFailure> {
        var token = token
        token.makeContiguousUTF8()
        // Offsets of the two dots (a third dot makes the token malformed) and the cached chain, if any.
        let scan: (firstDot: Int, secondDot: Int, cached: CachedChain?)? = token.utf8.withContiguousStorageIfAvailable { bytes in
            func dot(after start: Int) -> Int? {
                guard start < bytes.count, let base = bytes.baseAddress,
                    let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start)
                else { return nil }
                return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            guard let firstDot = dot(after: 0), let secondDot = dot(after: firstDot + 1), dot(after: secondDot + 1) == nil
            else { return nil }
            let header = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<firstDot]))
            let cached = cache.withLock { entries in
                entries.first { entry in
                    entry.header.count == header.count
                        && entry.header.withUnsafeBytes { memcmp($0.baseAddress!, header.baseAddress!, header.count) == 0 }
                }?.chain
            }
            return (firstDot, secondDot, cached)
        } ?? nil
        guard let (firstDot, secondDot, cached) = scan else {
            return .failure(.malformedToken.with("A compact JWS has three dot-separated parts."))
        }

        let trusted: CachedChain
        if let cached {
            trusted = cached
        } else {
            let header = Array(token.utf8.prefix(firstDot))
            switch await validateHeader(header) {
            case .failure(let failure):
                return .failure(failure)
            case .success(let validated):
                trusted = validated
                cache.withLock { entries in
                    if entries.count >= Self.cacheLimit { entries.removeFirst() }
                    entries.append((header, validated))
                }
            }
        }

        // One pass over the contiguous token: signature check over SHA-256("header.payload"), then the payload.
        let checked: SignatureCheck = token.utf8.withContiguousStorageIfAvailable { bytes in
            guard let signatureBytes = Base64.decode(UnsafeBufferPointer(rebasing: bytes[(secondDot + 1)...])),
                let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
            else { return .badSignatureEncoding }
            let digest = SHA256.hash(data: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<secondDot])))
            guard trusted.leafKey.isValidSignature(signature, for: digest) else { return .invalid }
            return .valid(Base64.decode(UnsafeBufferPointer(rebasing: bytes[(firstDot + 1)..<secondDot])))
        } ?? .invalid
        let payloadBytes: [UInt8]
        switch checked {
        case .badSignatureEncoding:
            return .failure(.invalidSignature.with("The signature is not a 64-byte raw ES256 signature."))
        case .invalid:
            return .failure(.invalidSignature)
        case .valid(nil):
            return .failure(.malformedToken.with("The payload is not base64url."))
        case .valid(let bytes?):
            payloadBytes = bytes
        }
        let payload: Payload
        do {
            payload = try AppStoreJSON.decode(Payload.self, from: payloadBytes)
        } catch {
            return .failure(.malformedPayload.with("The payload is not a valid \(Payload.self): \(error)"))
        }

        guard let date = payload.verificationDate else { return .failure(.missingSigningDate) }
        guard trusted.chain.isValid(at: date) else {
            return .failure(
                .certificateNotValidAtSigningDate.with(
                    "The chain is valid from \(trusted.chain.validFrom) to \(trusted.chain.validUntil), but the payload was signed at \(date)."
                )
            )
        }
        if let bundleID, Payload.verifiesBundleID, payload.verificationBundleID != bundleID {
            return .failure(
                .wrongBundleID.with("Expected bundle ID \(bundleID), found \(payload.verificationBundleID ?? "none").")
            )
        }
        if let environment, payload.verificationEnvironment != environment.rawValue {
            return .failure(
                .wrongEnvironment.with(
                    "Expected environment \(environment.rawValue), found \(payload.verificationEnvironment ?? "none")."
                )
            )
        }
        return .success(payload)
    }

    /// The outcome of the signature pass over a token's bytes.
    private enum SignatureCheck {
        case badSignatureEncoding
        case invalid
        /// The signature matches; the decoded payload bytes, or nil when they are not base64url.
        case valid([UInt8]?)
    }

    /// Removes every cached chain (for tests and after rotating trust).
    public func removeCachedChains() {
        cache.withLock { $0.removeAll() }
    }

    private func validateHeader(_ segment: [UInt8]) async -> Result<CachedChain, JWSVerificationFailure> {
        guard let headerBytes = Base64.decode(segment), let header = try? JSONValue.parse(headerBytes) else {
            return .failure(.malformedToken.with("The header is not base64url JSON."))
        }
        guard header["alg"]?.stringValue == "ES256" else {
            return .failure(.unsupportedAlgorithm.with("The header's alg is \(header["alg"]?.stringValue ?? "missing"), not ES256."))
        }
        guard case .array(let entries) = header["x5c"] ?? .null, !entries.isEmpty else {
            return .failure(.malformedToken.with("The header has no x5c certificate chain."))
        }
        guard entries.count == 3 else {
            return .failure(.invalidChainLength.with("The x5c header holds \(entries.count) certificates, not 3."))
        }
        var certificates: [Certificate] = []
        for entry in entries.prefix(2) {
            guard let text = entry.stringValue, let der = Base64.decode(text.utf8),
                let certificate = try? CertificateParser.certificate(derEncoded: der)
            else {
                return .failure(.malformedToken.with("An x5c entry is not a base64 DER certificate."))
            }
            certificates.append(certificate)
        }
        guard let chain = await validator.validate(leaf: certificates[0], intermediates: [certificates[1]]) else {
            return .failure(.untrustedChain)
        }
        guard chain.certificates.count == 3, chain.certificates[1] == certificates[1] else {
            return .failure(.untrustedChain.with("The leaf does not chain to a trusted root through the x5c intermediate."))
        }
        guard chain.certificates[0].keyUsageAllows(\.digitalSignature),
            chain.certificates[1].keyUsageAllows(\.keyCertSign)
        else {
            return .failure(.untrustedChain.with("A certificate's key usage does not allow its role in the chain."))
        }
        guard chain.certificates[0].hasExtension(OID.appleLeafMarker) else {
            return .failure(.missingAppleExtension.with("The leaf lacks OID \(OID.appleLeafMarker)."))
        }
        guard chain.certificates[1].hasExtension(OID.appleIntermediateMarker) else {
            return .failure(.missingAppleExtension.with("The intermediate lacks OID \(OID.appleIntermediateMarker)."))
        }
        guard let leafKey = P256.Signing.PublicKey(chain.certificates[0].publicKey) else {
            return .failure(.unsupportedAlgorithm.with("The leaf key is not P-256, so it cannot sign ES256."))
        }
        return .success(CachedChain(leafKey: leafKey, chain: chain))
    }
}
