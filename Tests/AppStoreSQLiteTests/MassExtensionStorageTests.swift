import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import Testing

/// Mass renewal-date extension requests as rows of every storage: recorded with the extensions they made, answered by
/// every engine on the storage, erased with the tenant.
@Suite("Mass extension storage")
struct MassExtensionStorageTests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let catalog = Catalog(products: [
        CatalogProduct(
            id: "monthly", type: .autoRenewable, price: Decimal(string: "2.99")!,
            subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
        ),
    ])

    @Test("A mass extension made through one engine is answered by another on the storage with its counts; a subscription it cannot extend gets RENEWAL_EXTENSION/FAILURE; erasing the tenant deletes it", arguments: StorageKind.allCases)
    func requestIsARow(kind: StorageKind) async throws {
        let (first, second, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let tenant = UUID().uuidString
        func engine(on storage: any Storage) -> StoreEngine {
            StoreEngine(tenantID: tenant, catalog: Self.catalog, storage: storage, clock: VirtualClock(start: Self.start), signer: .ephemeral)
        }
        let (a, b) = (engine(on: first), engine(on: second))
        _ = try await a.purchase(PurchaseRequest(productID: "monthly", accountID: "ana", bundleID: "app"))
        let twice = try await a.purchase(PurchaseRequest(productID: "monthly", accountID: "bo", bundleID: "app"))
        for _ in 0..<2 { _ = try await a.extendRenewalDate(subscription: twice.originalID, byDays: 3) }

        let record = try await a.massExtendRenewalDates(requestIdentifier: "mass-1", productID: "monthly", bundleID: "app", byDays: 5, reasonCode: 1)
        #expect(record.succeededCount == 1 && record.failedCount == 1 && record.complete)
        #expect(try await b.massExtension(productID: "monthly", requestIdentifier: "mass-1") == record, "answered by the other engine")
        #expect(try await b.massExtension(productID: "other", requestIdentifier: "mass-1") == nil)
        let failures = try await b.notifications().filter { $0.type == .renewalExtension && $0.subtype == .failure }
        #expect(failures.map(\.originalTransactionID) == [twice.originalID], "the subscription extended twice already")
        let summaries = try await b.notifications().filter { $0.type == .renewalExtension && $0.subtype == .summary }
        #expect(summaries.map(\.massExtension) == [record], "the outcome is owed to the app's server")

        // Signed as Apple's RENEWAL_EXTENSION/SUMMARY: `summary` in place of `data`.
        let signed = try await b.signedNotification(try #require(summaries.first))
        let verifier = try JWSVerifier(rootCertificates: [try b.signer.certificateAuthority.jwsRootCertificateDER], bundleID: "app", environment: .sandbox)
        let payload = try await verifier.verifyNotification(signed).get()
        #expect(payload.data == nil)
        let summary = try #require(payload.summary)
        #expect(summary.requestIdentifier == "mass-1" && summary.productId == "monthly" && summary.bundleId == "app")
        #expect(summary.succeededCount == 1 && summary.failedCount == 1 && summary.storefrontCountryCodes == [])
        #expect(summary.environment == .sandbox && summary.appAppleId == StoreDefaults.appAppleID(bundleID: "app"))

        try await b.erase()
        #expect(try await a.massExtension(productID: "monthly", requestIdentifier: "mass-1") == nil)
    }
}
