import AppStoreEngine
import Foundation
import Testing

/// Where a tenant's notifications go, as a row of every storage: per tenant, seen by every handle, outliving erasing
/// and restoring the tenant.
@Suite("Notification destination storage")
struct NotificationDestinationStorageTests {
    @Test("A tenant's notification destinations are stored, replaced and forgotten; every handle reads them; erasing and restoring the tenant leave them", arguments: StorageKind.allCases)
    func destinationsRow(kind: StorageKind) async throws {
        let (storage, other, cleanup) = try kind.makeShared()
        defer { cleanup() }
        #expect(try await other.read(tenant: "alpha") { try $0.notificationDestinations() } == nil)

        let first = NotificationDestinations(defaultURL: URL(string: "http://127.0.0.1:9000/all"))
        let second = NotificationDestinations(urlsByBundleID: ["com.example.app": URL(string: "https://backend.example/asn")!])
        try await storage.transaction(tenant: "alpha") { try $0.write(.saveNotificationDestinations(first)) }
        #expect(try await other.read(tenant: "alpha") { try $0.notificationDestinations() } == first)
        #expect(try await other.read(tenant: "beta") { try $0.notificationDestinations() } == nil, "a tenant's destinations are its own")

        let read = try await storage.transaction(tenant: "alpha") { transaction in
            try transaction.write(.saveNotificationDestinations(second))
            return try transaction.notificationDestinations()
        }
        #expect(read == second, "a transaction reads what it wrote")
        try await storage.transaction(tenant: "alpha") { try $0.write([.eraseTenant, .restore(TenantSnapshot())]) }
        #expect(try await other.read(tenant: "alpha") { try $0.notificationDestinations() } == second)

        try await storage.transaction(tenant: "alpha") { try $0.write(.saveNotificationDestinations(nil)) }
        #expect(try await other.read(tenant: "alpha") { try $0.notificationDestinations() } == nil)
    }
}
