public import Foundation

/// An App Store Server API key as storage keeps it: the public half of an In-App Purchase key, which tenant it signs
/// for, and whether it was revoked. The private half is the developer's `.p8` file and is never stored.
///
/// A key belongs to one tenant, whose routes accept its tokens, or to the whole storage: a key stored under
/// ``serverWideTenant`` signs for every tenant of every server on the storage. Key identifiers are unique across the
/// whole storage, so a token's `kid` names one key and, through ``Storage/apiKey(id:)``, the tenant it is for.
///
/// Keys are credentials, not store state: erasing or restoring a tenant (``StorageChange/eraseTenant``,
/// ``StorageChange/restore(_:)``) leaves them, and tenant snapshots do not carry them.
public struct APIKeyRecord: Sendable, Hashable, Codable {
    /// The tenant name server-wide keys are stored under. It is no valid tenant name (tenant names start with a letter
    /// or a digit), so no store's own keys are ever mistaken for the server's.
    public static let serverWideTenant = "*"

    /// The 10-character key identifier, the tokens' `kid`; unique across the storage.
    public var keyID: String
    /// The issuer identifier, the tokens' `iss`.
    public var issuerID: String
    /// The public key, PEM-encoded: a P-256 key, parsed by the server that checks tokens.
    public var publicKeyPEM: String
    /// When the key was made.
    public var created: Date
    /// Whether the key was revoked: its tokens are refused.
    public var revoked: Bool

    /// Describes a key.
    public init(keyID: String, issuerID: String, publicKeyPEM: String, created: Date, revoked: Bool = false) {
        self.keyID = keyID
        self.issuerID = issuerID
        self.publicKeyPEM = publicKeyPEM
        self.created = created
        self.revoked = revoked
    }
}

/// An API key found by its identifier anywhere in a storage (``Storage/apiKey(id:)``), with the tenant that holds it.
public struct StoredAPIKey: Sendable, Hashable {
    /// The tenant the key is stored under: the one whose routes accept it, or ``APIKeyRecord/serverWideTenant``.
    public var tenant: String
    /// The key.
    public var key: APIKeyRecord

    /// Describes a stored key.
    public init(tenant: String, key: APIKeyRecord) {
        self.tenant = tenant
        self.key = key
    }

    /// Whether the key signs for every tenant of the storage.
    public var isServerWide: Bool { tenant == APIKeyRecord.serverWideTenant }
}
