public import Crypto
public import Foundation

/// Signed data from the App Store and whether it passed StoreKit's checks: the signature, the certificate chain
/// to the store's root, the device verification and the required properties.
///
/// Use ``payloadValue`` to get the data only when it verified, or switch over the cases.
@frozen public enum VerificationResult<SignedType> {
    /// The data failed verification; the error says which check.
    case unverified(SignedType, VerificationResult<SignedType>.VerificationError)
    /// The data passed every check.
    case verified(SignedType)

    /// The signed data, when it verified.
    ///
    /// - Throws: the ``VerificationError`` of unverified data.
    public var payloadValue: SignedType {
        get throws {
            switch self {
            case .verified(let value): return value
            case .unverified(_, let error): throw error
            }
        }
    }

    /// The signed data, verified or not.
    public var unsafePayloadValue: SignedType {
        switch self {
        case .verified(let value), .unverified(let value, _): value
        }
    }

    /// Why signed data failed verification.
    public enum VerificationError: Error, LocalizedError, Sendable, Hashable {
        /// A certificate of the chain was revoked.
        case revokedCertificate
        /// The certificate chain does not lead to the App Store's root, or was not valid when the data was signed.
        case invalidCertificateChain
        /// The data was signed for another device.
        case invalidDeviceVerification
        /// The data is not a well-formed JWS.
        case invalidEncoding
        /// The signature does not match the data.
        case invalidSignature
        /// The payload lacks a property StoreKit requires.
        case missingRequiredProperties

        /// What failed.
        public var errorDescription: String? {
            switch self {
            case .revokedCertificate: "A certificate that signed the data was revoked."
            case .invalidCertificateChain: "The data's certificate chain does not lead to the App Store's root."
            case .invalidDeviceVerification: "The data was signed for another device."
            case .invalidEncoding: "The data is not a well-formed JWS."
            case .invalidSignature: "The data's signature does not match its contents."
            case .missingRequiredProperties: "The signed data lacks required properties."
            }
        }

        /// The same failure for signed data of another type (`VerificationResult<Any>.VerificationError`, which
        /// `SKTestFailures.Verification` carries, becomes a transaction's).
        package func converted<Other>(to _: Other.Type = Other.self) -> VerificationResult<Other>.VerificationError {
            switch self {
            case .revokedCertificate: .revokedCertificate
            case .invalidCertificateChain: .invalidCertificateChain
            case .invalidDeviceVerification: .invalidDeviceVerification
            case .invalidEncoding: .invalidEncoding
            case .invalidSignature: .invalidSignature
            case .missingRequiredProperties: .missingRequiredProperties
            }
        }
    }
}

extension VerificationResult: Sendable where SignedType: Sendable {}
extension VerificationResult: Equatable where SignedType: Equatable {}
extension VerificationResult: Hashable where SignedType: Hashable {}

/// Signed data that keeps the JWS it was decoded from: ``Transaction``, ``Product/SubscriptionInfo/RenewalInfo``
/// and ``AppTransaction``.
package protocol SignedValue {
    /// The compact JWS the value was decoded from.
    var signedToken: SignedToken { get }
    /// When the App Store signed the value.
    var signedDate: Date { get }
    /// The SHA-384 hash that ties the value to the device (see ``AppStore/deviceVerificationID``).
    var deviceVerification: Data { get }
    /// The nonce hashed into ``deviceVerification``.
    var deviceVerificationNonce: UUID { get }
}

/// A compact JWS, split into its parts.
package struct SignedToken: Sendable, Hashable {
    /// The compact serialization: `header.payload.signature`, base64url.
    package let compact: String
    /// The decoded header, payload and signature.
    package let header: Data
    package let payload: Data
    package let signature: Data

    /// Splits a compact JWS; `nil` when it is not three base64url parts with a 64-byte ES256 signature.
    package init?(_ compact: String) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Data(base64URL: parts[0]), let payload = Data(base64URL: parts[1]),
              let signature = Data(base64URL: parts[2]), signature.count == 64 else { return nil }
        self.compact = compact
        self.header = header
        self.payload = payload
        self.signature = signature
    }

    /// The bytes that were signed: the first two parts as they were sent.
    var signedData: Data {
        Data(compact[..<compact.lastIndex(of: ".")!].utf8)
    }
}

extension Data {
    /// Decodes base64url without padding.
    init?(base64URL text: Substring) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}

extension VerificationResult where SignedType: SignedValue {
    var token: SignedToken { unsafePayloadValue.signedToken }

    /// The ES256 signature. `SignedToken` holds only 64-byte signatures, the one size this initializer checks.
    var ecdsaSignature: P256.Signing.ECDSASignature {
        try! P256.Signing.ECDSASignature(rawRepresentation: token.signature)
    }
}

// The JWS of a signed transaction. StoreKit declares these members once per signed type.
extension VerificationResult where SignedType == Transaction {
    /// The JWS the App Store signed, as a compact string: send it to your server, which verifies it with Apple's
    /// libraries.
    public var jwsRepresentation: String { token.compact }
    /// The JWS header (JSON).
    public var headerData: Data { token.header }
    /// The JWS payload (JSON).
    public var payloadData: Data { token.payload }
    /// The raw ES256 signature (r‖s).
    public var signatureData: Data { token.signature }
    /// The bytes the signature covers: the base64url header, a dot, the base64url payload.
    public var signedData: Data { token.signedData }
    /// The ES256 signature.
    public var signature: P256.Signing.ECDSASignature { ecdsaSignature }
    /// When the App Store signed the data.
    public var signedDate: Date { unsafePayloadValue.signedDate }
    /// The hash that ties the data to the device it was signed for.
    public var deviceVerification: Data { unsafePayloadValue.deviceVerification }
    /// The nonce hashed into `deviceVerification`.
    public var deviceVerificationNonce: UUID { unsafePayloadValue.deviceVerificationNonce }
}

// The JWS of signed renewal info. StoreKit declares these members once per signed type.
extension VerificationResult where SignedType == Product.SubscriptionInfo.RenewalInfo {
    /// The JWS the App Store signed, as a compact string: send it to your server, which verifies it with Apple's
    /// libraries.
    public var jwsRepresentation: String { token.compact }
    /// The JWS header (JSON).
    public var headerData: Data { token.header }
    /// The JWS payload (JSON).
    public var payloadData: Data { token.payload }
    /// The raw ES256 signature (r‖s).
    public var signatureData: Data { token.signature }
    /// The bytes the signature covers: the base64url header, a dot, the base64url payload.
    public var signedData: Data { token.signedData }
    /// The ES256 signature.
    public var signature: P256.Signing.ECDSASignature { ecdsaSignature }
    /// When the App Store signed the data.
    public var signedDate: Date { unsafePayloadValue.signedDate }
    /// The hash that ties the data to the device it was signed for.
    public var deviceVerification: Data { unsafePayloadValue.deviceVerification }
    /// The nonce hashed into `deviceVerification`.
    public var deviceVerificationNonce: UUID { unsafePayloadValue.deviceVerificationNonce }
}

// The JWS of a signed app transaction. StoreKit declares these members once per signed type.
extension VerificationResult where SignedType == AppTransaction {
    /// The JWS the App Store signed, as a compact string: send it to your server, which verifies it with Apple's
    /// libraries.
    public var jwsRepresentation: String { token.compact }
    /// The JWS header (JSON).
    public var headerData: Data { token.header }
    /// The JWS payload (JSON).
    public var payloadData: Data { token.payload }
    /// The raw ES256 signature (r‖s).
    public var signatureData: Data { token.signature }
    /// The bytes the signature covers: the base64url header, a dot, the base64url payload.
    public var signedData: Data { token.signedData }
    /// The ES256 signature.
    public var signature: P256.Signing.ECDSASignature { ecdsaSignature }
    /// When the App Store signed the data.
    public var signedDate: Date { unsafePayloadValue.signedDate }
    /// The hash that ties the data to the device it was signed for.
    public var deviceVerification: Data { unsafePayloadValue.deviceVerification }
    /// The nonce hashed into `deviceVerification`.
    public var deviceVerificationNonce: UUID { unsafePayloadValue.deviceVerificationNonce }
}
