// P256 keys are not marked Sendable by swift-crypto 3.12 on Linux; they are immutable and thread-safe to use.
@preconcurrency public import Crypto
import Foundation

/// A developer's In-App Purchase key, as registered for promotional offers: a key ID and its P-256 public key.
public struct PromotionalOfferKey: Sendable {
    /// The key identifier (App Store Connect's 10-character key ID, or the `.storekit` file's).
    public let keyID: String
    /// The public key signatures are checked with.
    public let publicKey: P256.Signing.PublicKey

    /// A key from its public key.
    public init(keyID: String, publicKey: P256.Signing.PublicKey) {
        self.keyID = keyID
        self.publicKey = publicKey
    }

    /// A key from PEM text: a public key, or a private key (`.p8` PKCS#8 or SEC1) whose public half is used.
    public init(keyID: String, pem: String) throws {
        if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            self.init(keyID: keyID, publicKey: key)
        } else if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            self.init(keyID: keyID, publicKey: key.publicKey)
        } else {
            throw FormatError.malformedKey("The PEM for key \(keyID) is not a P-256 public or private key.")
        }
    }

    /// A key from a `.storekit` file's `subscriptionOffersKeyPair`: `privateKey` is base64 DER PKCS#8 P-256.
    public init(keyID: String, storeKitPrivateKey base64: String) throws {
        self.init(keyID: keyID, publicKey: try PromotionalOfferKey.privateKey(fromStoreKit: base64).publicKey)
    }

    /// Decodes a `.storekit` file's base64 DER PKCS#8 private key.
    static func privateKey(fromStoreKit base64: String) throws -> P256.Signing.PrivateKey {
        guard let der = Base64.decodeIgnoringWhitespace(base64) else {
            throw FormatError.malformedKey("The .storekit private key is not base64.")
        }
        do {
            return try P256.Signing.PrivateKey(derRepresentation: der)
        } catch {
            throw FormatError.malformedKey("The .storekit private key is not a DER PKCS#8 P-256 key: \(error)")
        }
    }
}
