public import AppStoreEngine
public import Foundation
import Synchronization

/// The keys App Store Server API tokens may be signed with: a tenant's own, or the server's, valid for every tenant.
///
/// A ring over a storage keeps its keys there, as rows of the tenant it is for (`APIKeyRecord.serverWideTenant` for
/// the server's keys), so a key made or revoked through one server, or through `storekit keys`, is in force on every
/// server sharing the storage at once: the ring keeps no copy, and each token's key is read by its identifier, one
/// indexed row (`Storage.apiKey(id:)`). A ring made from a list of keys keeps them in memory only: for tests.
public final class ServerAPIKeyRing: Sendable {
    /// The storage and the tenant the keys are stored under; `nil` keeps them in `memory`.
    private let storage: (storage: any Storage, tenant: String)?
    /// The keys of a ring without storage, by identifier.
    private let memory: Mutex<[String: ServerAPIKey]>

    /// A ring of `keys`, kept in memory only.
    public init(keys: [ServerAPIKey] = []) {
        storage = nil
        memory = Mutex(Dictionary(keys.map { ($0.keyID, $0) }, uniquingKeysWith: { _, last in last }))
    }

    /// The ring of the keys stored under `tenant` in `storage`: a tenant's own keys, or by default the server's.
    ///
    /// - Parameters:
    ///   - storage: Where the keys are kept; share it with every server that should accept them.
    ///   - tenant: The tenant whose own keys these are, or `APIKeyRecord.serverWideTenant` for keys valid for every
    ///     tenant.
    public init(storage: any Storage, tenant: String = APIKeyRecord.serverWideTenant) {
        self.storage = (storage, tenant)
        memory = Mutex([:])
    }

    /// The keys, revoked ones too, sorted by creation date.
    ///
    /// - Throws: `StoreError.storageFailure` when the storage cannot be read.
    public func keys() async throws(StoreError) -> [ServerAPIKey] {
        guard let (storage, tenant) = storage else {
            return memory.withLock { $0.values.sorted { ($0.created, $0.keyID) < ($1.created, $1.keyID) } }
        }
        return try await Self.storageCall { try await storage.read(tenant: tenant) { try $0.apiKeys() } }.map(ServerAPIKey.init)
    }

    /// The key a token names, when the routes this ring is for accept it: one of the ring's keys or, in a storage, a
    /// server-wide key of the same storage. A tenant's routes so find a server key in the same single read as their
    /// own keys.
    func key(_ keyID: String) async throws(StoreError) -> ServerAPIKey? {
        guard let (storage, tenant) = storage else { return memory.withLock { $0[keyID] } }
        guard let stored = try await Self.storageCall({ try await storage.apiKey(id: keyID) }), stored.tenant == tenant || stored.isServerWide else {
            return nil
        }
        return ServerAPIKey(stored.key)
    }

    /// Makes a key for `issuerID`, keeps it, and returns it with its private half, a `.p8` file's PEM.
    ///
    /// - Throws: `StoreError.storageFailure` when the key cannot be stored; it is not kept then.
    public func create(issuerID: String, created: Date) async throws(StoreError) -> (key: ServerAPIKey, privateKeyPEM: String) {
        let made = ServerAPIKey.generate(issuerID: issuerID, created: created)
        try await add(made.key)
        return made
    }

    /// Keeps a key made elsewhere.
    ///
    /// - Throws: `StoreError.apiKeyExists` when a key with its identifier is already kept (in a storage: under any
    ///   tenant); `StoreError.storageFailure` when it cannot be stored.
    public func add(_ key: ServerAPIKey) async throws(StoreError) {
        guard let (storage, tenant) = storage else {
            try memory.withLock { (keys: inout [String: ServerAPIKey]) throws(StoreError) in
                guard keys[key.keyID] == nil else { throw StoreError.duplicateAPIKey(key.keyID) }
                keys[key.keyID] = key
            }
            return
        }
        try await Self.storageCall { try await storage.transaction(tenant: tenant) { try $0.write(.addAPIKey(key.record)) } }
    }

    /// Revokes a key: tokens it signs are refused from now on.
    ///
    /// - Returns: the revoked key, or `nil` when the ring has no such key.
    /// - Throws: `StoreError.storageFailure` when the storage cannot be written; nothing changes then.
    @discardableResult
    public func revoke(_ keyID: String) async throws(StoreError) -> ServerAPIKey? {
        guard let (storage, tenant) = storage else {
            return memory.withLock { keys in
                keys[keyID]?.revoked = true
                return keys[keyID]
            }
        }
        let revoked = try await Self.storageCall {
            try await storage.transaction(tenant: tenant) { transaction -> APIKeyRecord? in
                guard var key = try transaction.apiKeys().first(where: { $0.keyID == keyID }) else { return nil }
                try transaction.write(.revokeAPIKey(keyID: keyID))
                key.revoked = true
                return key
            }
        }
        return revoked.map(ServerAPIKey.init)
    }

    /// Runs a storage call, describing what else than a `StoreError` it throws as a storage failure.
    private static func storageCall<Result: Sendable>(_ body: () async throws -> Result) async throws(StoreError) -> Result {
        do {
            return try await body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw .storageFailure("The App Store Server API keys cannot be read or written: \(error). Check that the store's storage is reachable.")
        }
    }
}

extension ServerAPIKey {
    /// The key as storage keeps it.
    var record: APIKeyRecord {
        APIKeyRecord(keyID: keyID, issuerID: issuerID, publicKeyPEM: publicKeyPEM, created: created, revoked: revoked)
    }

    /// The key storage kept.
    init(_ record: APIKeyRecord) {
        keyID = record.keyID
        issuerID = record.issuerID
        publicKeyPEM = record.publicKeyPEM
        created = record.created
        revoked = record.revoked
    }
}
