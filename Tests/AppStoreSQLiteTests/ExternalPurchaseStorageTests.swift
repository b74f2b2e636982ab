import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import Testing

/// External purchase tokens and reports as rows of every storage: issued through one engine, answered and moved on the
/// clock by another, erased with the tenant.
@Suite("External purchase storage")
struct ExternalPurchaseStorageTests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let catalog = Catalog(products: [CatalogProduct(id: "coins", type: .consumable, price: Decimal(string: "0.99")!)])

    @Test("A token issued through one engine is answered by another on the storage, its UNREPORTED falls due there on the clock, a report is kept and erasing the tenant deletes both", arguments: StorageKind.allCases)
    func tokensAndReportsAreRows(kind: StorageKind) async throws {
        let (first, second, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let tenant = UUID().uuidString
        let (clockA, clockB) = (VirtualClock(start: Self.start), VirtualClock(start: Self.start))
        let a = StoreEngine(tenantID: tenant, catalog: Self.catalog, storage: first, clock: clockA, signer: .ephemeral)
        let b = StoreEngine(tenantID: tenant, catalog: Self.catalog, storage: second, clock: clockB, signer: .ephemeral)

        let token = try #require(try await a.externalPurchaseCustomLinkToken(type: .services, accountID: "ana", bundleID: "app"))
        let notice = try await a.issueExternalPurchaseToken(accountID: "ana", bundleID: "app")
        #expect(try await b.externalPurchaseCustomLinkToken(type: .services, accountID: "ana", bundleID: "app") == token, "the active token, read by the other engine")
        #expect(try await b.externalPurchaseTokens(accountID: "ana", bundleID: "app") == [token, notice].sorted { ($0.creationDate, $0.id) < ($1.creationDate, $1.id) })
        #expect(await b.nextEventDate() == token.expirationDate)

        let report = ExternalPurchaseReportSubmission(
            requestIdentifier: UUID().uuidString, externalPurchaseId: notice.id, status: "NO_LINE_ITEM", lineItems: nil,
            body: #"{"status":"NO_LINE_ITEM"}"#
        )
        let accepted = try await b.submitExternalPurchaseReport(report, bundleID: "app").get()
        #expect(try await a.externalPurchaseReport(requestIdentifier: accepted.requestIdentifier, bundleID: "app") == accepted)
        #expect(try await a.externalPurchaseToken(id: notice.id)?.reportStatus == "NO_LINE_ITEM")

        try await clockB.advance(by: 11 * 86_400)
        let owed = try await a.notifications().filter { $0.type == .externalPurchaseToken }.map { "\($0.summary) \($0.externalPurchaseToken?.id ?? "")" }
        #expect(owed == ["EXTERNAL_PURCHASE_TOKEN/CREATED \(token.id)", "EXTERNAL_PURCHASE_TOKEN/UNREPORTED \(token.id)"], "the reported notice token owes nothing")
        #expect(try await a.externalPurchaseToken(id: token.id)?.unreportedSent == true)
        #expect(await a.nextEventDate() == nil)

        try await b.erase()
        #expect(try await a.externalPurchaseToken(id: token.id) == nil)
        #expect(try await a.externalPurchaseReport(requestIdentifier: accepted.requestIdentifier, bundleID: "app") == nil)
    }
}
