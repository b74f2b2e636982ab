public import Foundation

/// The local key Xcode generates for signing promotional-offer payloads (`subscriptionOffersKeyPair`).
public struct OfferSigningKey: Sendable, Equatable {
    /// The key identifier used when signing offers in the test environment.
    public var id: String
    /// The private key: base64 DER PKCS#8 EC P-256, without PEM armour.
    public var privateKey: String
    /// Members this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()

    /// The DER bytes of ``privateKey``, or `nil` if it is not base64.
    public var privateKeyDER: Data? { Data(base64Encoded: privateKey) }

    /// Creates a signing key.
    public init(id: String, privateKey: String, unknownKeys: [String: ConfigurationJSON] = [:]) {
        self.id = id
        self.privateKey = privateKey
        self.unknownKeys = unknownKeys
    }
}
