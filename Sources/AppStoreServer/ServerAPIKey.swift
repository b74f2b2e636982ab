// P256 keys are not marked Sendable by swift-crypto 3.12 on Linux; they are immutable and thread-safe to use.
@preconcurrency public import Crypto
public import Foundation

/// An In-App Purchase key for the App Store Server API, as App Store Connect issues one: a key ID, the issuer it
/// belongs to, and the public half the server checks tokens with. The private half is the developer's `.p8` file.
public struct ServerAPIKey: Sendable, Codable, Hashable {
    /// The 10-character key identifier, the tokens' `kid`.
    public var keyID: String
    /// The issuer identifier (the team's), the tokens' `iss`.
    public var issuerID: String
    /// The public key, PEM-encoded.
    public var publicKeyPEM: String
    /// When the key was made.
    public var created: Date
    /// A revoked key's tokens are refused.
    public var revoked: Bool

    /// Describes a key.
    public init(keyID: String, issuerID: String, publicKey: P256.Signing.PublicKey, created: Date, revoked: Bool = false) {
        self.keyID = keyID
        self.issuerID = issuerID
        self.publicKeyPEM = publicKey.pemRepresentation
        self.created = created
        self.revoked = revoked
    }

    /// Makes a new key for `issuerID`: the record the server keeps, and the private key as the PKCS #8 PEM of a
    /// `.p8` file, which only the developer keeps.
    public static func generate(issuerID: String, created: Date) -> (key: ServerAPIKey, privateKeyPEM: String) {
        let privateKey = P256.Signing.PrivateKey()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let keyID = String((0..<10).map { _ in alphabet.randomElement()! })
        return (ServerAPIKey(keyID: keyID, issuerID: issuerID, publicKey: privateKey.publicKey, created: created), privateKey.pemRepresentation)
    }

    /// The public key tokens are checked with, if the PEM reads.
    var publicKey: P256.Signing.PublicKey? {
        try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM)
    }
}
