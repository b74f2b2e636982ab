/// Why ``JWSVerifier`` rejected a token. Returned as a value inside `Result`, never thrown by the verifier.
///
/// Compare with the static members (`failure == .invalidSignature`); equality ignores ``message``, which
/// carries the details.
public struct JWSVerificationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case malformedToken
        case unsupportedAlgorithm
        case invalidChainLength
        case untrustedChain
        case missingAppleExtension
        case invalidSignature
        case malformedPayload
        case missingSigningDate
        case certificateNotValidAtSigningDate
        case wrongBundleID
        case wrongEnvironment
    }

    let code: Code

    /// What failed, in words.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The token is not three base64url segments, or its header is not JSON with an `x5c` array of base64 DER
    /// certificates.
    public static let malformedToken = Self(.malformedToken, "The token is not a well-formed compact JWS.")
    /// The header's `alg` is not `ES256`, or the leaf key is not P-256.
    public static let unsupportedAlgorithm = Self(.unsupportedAlgorithm, "The token is not signed with ES256.")
    /// `x5c` does not hold exactly three certificates (Apple's INVALID_CHAIN_LENGTH).
    public static let invalidChainLength = Self(.invalidChainLength, "The x5c header must hold exactly three certificates.")
    /// The leaf and intermediate do not chain to a trusted root (bad certificate signature, wrong issuer, a CA
    /// flag or key usage that forbids the path, or an unhandled critical extension).
    public static let untrustedChain = Self(.untrustedChain, "The certificate chain does not lead to a trusted root.")
    /// The leaf lacks OID 1.2.840.113635.100.6.11.1 or the intermediate lacks 1.2.840.113635.100.6.2.1.
    public static let missingAppleExtension = Self(.missingAppleExtension, "The chain lacks Apple's marker extensions.")
    /// The ES256 signature does not match the header and payload.
    public static let invalidSignature = Self(.invalidSignature, "The signature does not match the token's contents.")
    /// The payload is not JSON of the expected type.
    public static let malformedPayload = Self(.malformedPayload, "The payload could not be decoded.")
    /// The payload has no `signedDate` (or `receiptCreationDate`) to check the chain at.
    public static let missingSigningDate = Self(.missingSigningDate, "The payload has no signing date.")
    /// A certificate of the chain was not valid at the payload's signing date.
    public static let certificateNotValidAtSigningDate = Self(
        .certificateNotValidAtSigningDate, "A certificate was not valid at the payload's signing date."
    )
    /// The payload's bundle ID differs from the expected one (Apple's INVALID_APP_IDENTIFIER).
    public static let wrongBundleID = Self(.wrongBundleID, "The payload belongs to another app.")
    /// The payload's environment differs from the expected one (Apple's INVALID_ENVIRONMENT).
    public static let wrongEnvironment = Self(.wrongEnvironment, "The payload belongs to another environment.")

    func with(_ message: String) -> Self { Self(code, message) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { message }
}
