import AppStoreEngine
import AppStorePostgres
import Foundation
import Testing

/// App Store Server API keys as rows of every storage: per tenant, unique across the storage, found by identifier.
@Suite("API key storage")
struct APIKeyStorageTests {
    let date = Date(timeIntervalSince1970: 1_768_478_400)

    func key(_ id: String, issuer: String = "issuer", after seconds: TimeInterval = 0) -> APIKeyRecord {
        APIKeyRecord(keyID: id, issuerID: issuer, publicKeyPEM: "-----BEGIN PUBLIC KEY-----\n\(id)\n-----END PUBLIC KEY-----", created: date.addingTimeInterval(seconds))
    }

    @Test("The suite runs on PostgreSQL too", .enabled(if: PostgresTestDatabase.isConfigured, postgresSkipped))
    func runsOnPostgres() throws {
        #expect(StorageKind.allCases.contains(.postgres))
    }

    @Test("A tenant's keys are listed by creation date, and any handle finds a key by identifier with the tenant that holds it", arguments: StorageKind.allCases)
    func keysPerTenantAndLookup(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let (late, early, theirs, server) = (key("LATE000001", after: 60), key("EARLY00001"), key("THEIRS0001", issuer: "other"), key("SERVER0001"))
        try await storage.transaction(tenant: "alpha") { try $0.write([.addAPIKey(late), .addAPIKey(early)]) }
        try await storage.transaction(tenant: "beta") { try $0.write(.addAPIKey(theirs)) }
        try await storage.transaction(tenant: APIKeyRecord.serverWideTenant) { try $0.write(.addAPIKey(server)) }

        #expect(try await other.read(tenant: "alpha") { try $0.apiKeys() } == [early, late])
        #expect(try await other.read(tenant: "beta") { try $0.apiKeys() } == [theirs])
        #expect(try await other.read(tenant: "gamma") { try $0.apiKeys() } == [])
        #expect(try await other.apiKey(id: "LATE000001") == StoredAPIKey(tenant: "alpha", key: late))
        #expect(try await other.apiKey(id: "THEIRS0001") == StoredAPIKey(tenant: "beta", key: theirs))
        let found = try #require(try await other.apiKey(id: "SERVER0001"))
        #expect(found.isServerWide && found.key == server)
        #expect(try await other.apiKey(id: "LATE000001")?.isServerWide == false)
        #expect(try await other.apiKey(id: "NOSUCHKEY0") == nil)
    }

    @Test("A key identifier is unique across the storage: adding it again, to any tenant, fails with apiKeyExists and the transaction leaves nothing", arguments: StorageKind.allCases)
    func duplicateKeyIsRefused(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        try await storage.transaction(tenant: "alpha") { try $0.write(.addAPIKey(key("DUPLICATE1"))) }
        for (tenant, handle) in [("alpha", storage), ("beta", other), (APIKeyRecord.serverWideTenant, other)] {
            await #expect(throws: StoreError.apiKeyExists) {
                try await handle.transaction(tenant: tenant) { transaction in
                    try transaction.write([.addAPIKey(key("FRESHKEY01")), .addAPIKey(key("DUPLICATE1", issuer: "intruder"))])
                }
            }
        }
        #expect(try await storage.apiKey(id: "DUPLICATE1") == StoredAPIKey(tenant: "alpha", key: key("DUPLICATE1")))
        #expect(try await storage.apiKey(id: "FRESHKEY01") == nil, "the refused transactions' other keys were not kept")
        #expect(try await other.read(tenant: "beta") { try $0.apiKeys() } == [])
    }

    @Test("Of handles adding one key identifier to different tenants at the same moment, one succeeds and every other gets apiKeyExists", arguments: StorageKind.allCases)
    func concurrentDuplicatesAreRefused(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                let handle = index.isMultiple(of: 2) ? storage : other
                group.addTask {
                    do {
                        try await handle.transaction(tenant: "racer-\(index)") { try $0.write(.addAPIKey(key("CONTESTED1", issuer: "racer-\(index)"))) }
                        return true
                    } catch let error as StoreError where error == .apiKeyExists {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1, "\(outcomes)")
        let stored = try #require(try await other.apiKey(id: "CONTESTED1"))
        #expect(try await storage.read(tenant: stored.tenant) { try $0.apiKeys().map(\.issuerID) } == [stored.tenant])
    }

    @Test("Revoking marks the tenant's own key only, and every handle sees it at once", arguments: StorageKind.allCases)
    func revoke(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        try await storage.transaction(tenant: "alpha") { try $0.write([.addAPIKey(key("REVOKED001")), .addAPIKey(key("KEPT000001"))]) }
        try await other.transaction(tenant: "beta") { try $0.write(.revokeAPIKey(keyID: "REVOKED001")) }
        #expect(try await storage.apiKey(id: "REVOKED001")?.key.revoked == false, "another tenant cannot revoke it")
        try await other.transaction(tenant: "alpha") { try $0.write(.revokeAPIKey(keyID: "REVOKED001")) }
        #expect(try await storage.apiKey(id: "REVOKED001")?.key.revoked == true)
        #expect(try await storage.read(tenant: "alpha") { try $0.apiKeys().map(\.revoked) } == [false, true], "KEPT000001 sorts first at the same date")
    }

    @Test("Keys are credentials, not state: erasing or restoring the tenant leaves them", arguments: StorageKind.allCases)
    func keysOutliveEraseAndRestore(kind: StorageKind) async throws {
        let (storage, _, cleanup) = try kind.makeShared()
        defer { cleanup() }
        try await storage.transaction(tenant: "alpha") { transaction in
            try transaction.write([.addAPIKey(key("ALPHAKEY01")), .saveAccount(Account(id: "a", storefront: "FRA"))])
        }
        let snapshot = try await storage.read(tenant: "alpha") { try $0.snapshot() }
        try await storage.transaction(tenant: "alpha") { try $0.write(.eraseTenant) }
        #expect(try await storage.read(tenant: "alpha") { try $0.apiKeys().map(\.keyID) } == ["ALPHAKEY01"])
        try await storage.transaction(tenant: "alpha") { try $0.write(.restore(snapshot)) }
        #expect(try await storage.read(tenant: "alpha") { try $0.apiKeys().map(\.keyID) } == ["ALPHAKEY01"])
        #expect(try await storage.apiKey(id: "ALPHAKEY01")?.tenant == "alpha")
        #expect(try await storage.read(tenant: "alpha") { try $0.accounts().map(\.id) } == ["a"])
    }
}
