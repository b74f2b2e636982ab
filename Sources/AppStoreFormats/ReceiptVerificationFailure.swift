/// Why ``ReceiptVerifier`` rejected a receipt. Returned as a value inside `Result`, never thrown by the verifier.
///
/// Compare with the static members (`failure == .invalidSignature`); equality ignores ``message``.
public struct ReceiptVerificationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case malformedReceipt
        case missingSignerCertificate
        case unsupportedAlgorithm
        case invalidSignature
        case untrustedChain
        case malformedPayload
        case certificateNotValidAtCreationDate
        case wrongBundleID
        case hashMismatch
    }

    let code: Code

    /// What failed, in words.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The bytes are not a PKCS#7 SignedData with attached content.
    public static let malformedReceipt = Self(.malformedReceipt, "The receipt is not a PKCS#7 SignedData.")
    /// The SignerInfo names a certificate the receipt does not embed.
    public static let missingSignerCertificate = Self(.missingSignerCertificate, "The receipt does not embed its signer's certificate.")
    /// The digest or signature algorithm is not SHA-1/SHA-2 with RSA.
    public static let unsupportedAlgorithm = Self(.unsupportedAlgorithm, "The receipt uses an unsupported algorithm.")
    /// The signature does not match the content (or a signed message-digest attribute does not).
    public static let invalidSignature = Self(.invalidSignature, "The receipt's signature does not match its content.")
    /// The signer certificate does not chain to a trusted root.
    public static let untrustedChain = Self(.untrustedChain, "The receipt's certificates do not lead to a trusted root.")
    /// The signed content is not a receipt payload SET.
    public static let malformedPayload = Self(.malformedPayload, "The receipt payload could not be decoded.")
    /// A certificate of the chain was not valid at the receipt's creation date.
    public static let certificateNotValidAtCreationDate = Self(
        .certificateNotValidAtCreationDate, "A certificate was not valid at the receipt's creation date."
    )
    /// The receipt belongs to another app.
    public static let wrongBundleID = Self(.wrongBundleID, "The receipt belongs to another app.")
    /// Attribute 5 does not equal SHA1(device identifier ‖ opaque value ‖ bundle-ID attribute).
    public static let hashMismatch = Self(.hashMismatch, "The receipt hash does not match this device.")

    func with(_ message: String) -> Self { Self(code, message) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { message }
}
