import Foundation
import SwiftASN1
import X509

/// A chain swift-certificates' `Verifier` built from a leaf to a trusted root, with the window in which every
/// certificate of it is valid.
struct ValidatedChain: Sendable {
    /// Leaf first, trusted root last.
    let certificates: [Certificate]
    /// The latest `notValidBefore` of the chain.
    let validFrom: Date
    /// The earliest `notValidAfter` of the chain.
    let validUntil: Date

    init(certificates: [Certificate]) {
        self.certificates = certificates
        self.validFrom = certificates.map(\.notValidBefore).max() ?? .distantPast
        self.validUntil = certificates.map(\.notValidAfter).min() ?? .distantFuture
    }

    /// Whether every certificate is valid at `date`. The end is exclusive, as OpenSSL (and so Apple's Python
    /// verifier) treats a date equal to `notAfter` as expired.
    func isValid(at date: Date) -> Bool { validFrom <= date && date < validUntil }
}

/// The structural RFC 5280 rules a chain must meet, without the expiry check.
///
/// swift-certificates' `RFC5280Policy` checks expiry against the current time unless one of its SPIs is used.
/// Verifiers here must check validity at a payload's signing date and report expiry separately from trust, so
/// chains are built with this policy and ``ValidatedChain`` carries the window the caller checks the date
/// against. Name constraints are not implemented, so a certificate with a critical name-constraints extension
/// is rejected as unhandled.
struct ChainRulesPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier]

    init(acknowledging extra: [ASN1ObjectIdentifier]) {
        verifyingCriticalExtensions = [.X509ExtensionID.basicConstraints, .X509ExtensionID.keyUsage] + extra
    }

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        let certificates = Array(chain)
        for (index, certificate) in certificates.enumerated() {
            if !certificate.extensions.isEmpty, certificate.version != .v3 {
                return .failsToMeetPolicy(reason: "A certificate has extensions but is not X.509 v3.")
            }
            guard index > 0 else { continue }
            // Every issuer must be a CA allowed to sign certificates, with room in its path length.
            let isRoot = index == certificates.count - 1
            switch try? certificate.extensions.basicConstraints {
            case .isCertificateAuthority(let maxPathLength):
                if let maxPathLength, index - 1 > maxPathLength {
                    return .failsToMeetPolicy(reason: "An issuer's path length constraint is exceeded.")
                }
            case .notCertificateAuthority:
                return .failsToMeetPolicy(reason: "An issuer is not a certificate authority.")
            case nil:
                if !isRoot { return .failsToMeetPolicy(reason: "An intermediate has no basic constraints.") }
            }
            if !certificate.keyUsageAllows(\.keyCertSign) {
                return .failsToMeetPolicy(reason: "An issuer's key usage does not allow certificate signing.")
            }
        }
        return .meetsPolicy
    }
}

/// Builds certificate chains to a fixed set of trusted roots: swift-certificates' `Verifier` checks names,
/// signatures and critical extensions, ``ChainRulesPolicy`` the CA rules. Expiry is left to the caller.
struct ChainValidator: Sendable {
    let roots: [Certificate]
    let acknowledgedExtensions: [ASN1ObjectIdentifier]

    /// - Parameter acknowledgingExtendedKeyUsage: Accept a critical extended key usage without enforcing it,
    ///   the way `openssl cms -verify -purpose any` accepts Xcode's receipt certificate (critical EKU codeSigning).
    init(roots: [Certificate], acknowledgingExtendedKeyUsage: Bool) {
        self.roots = roots
        self.acknowledgedExtensions = acknowledgingExtendedKeyUsage ? [OID.asn1(OID.extendedKeyUsage)] : []
    }

    /// The validated chain from `leaf` through `intermediates` to a root, or nil when none exists.
    func validate(leaf: Certificate, intermediates: [Certificate]) async -> ValidatedChain? {
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            ChainRulesPolicy(acknowledging: acknowledgedExtensions)
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates)) {
        case .validCertificate(let chain):
            return ValidatedChain(certificates: Array(chain))
        case .couldNotValidate:
            return nil
        }
    }
}

extension Certificate {
    /// Whether the key usage extension, when present, allows `usage`.
    func keyUsageAllows(_ usage: KeyPath<KeyUsage, Bool>) -> Bool {
        guard let keyUsage = try? extensions.keyUsage else { return true }
        return keyUsage[keyPath: usage]
    }
}
