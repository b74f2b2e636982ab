import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import Testing

/// Refund requests live in the tenant's storage, with the transaction they are for: every engine on the storage sees a
/// request another one recorded, with its consumption information, and decides or reverses it.
@Suite("Refund request storage")
struct RefundRequestStorageTests {
    static let start = Date(timeIntervalSince1970: 1_768_478_400)
    static let catalog = Catalog(products: [CatalogProduct(id: "coins", type: .consumable, price: Decimal(string: "0.99")!)])

    @Test("A pending request recorded through one engine is seen, with its consumption information, and decided by another on the storage; the setting that makes requests wait is stored too", arguments: StorageKind.allCases)
    func requestIsStored(kind: StorageKind) async throws {
        let (first, second, cleanup) = try kind.makeShared()
        defer { cleanup() }
        let tenant = UUID().uuidString
        func engine(on storage: any Storage) -> StoreEngine {
            StoreEngine(tenantID: tenant, catalog: Self.catalog, storage: storage, clock: VirtualClock(start: Self.start), signer: .ephemeral)
        }
        let (a, b) = (engine(on: first), engine(on: second))
        try await a.updateSettings { $0.refundRequestsAwaitDecision = true }
        #expect(try await b.currentSettings().refundRequestsAwaitDecision, "the setting is a stored row")

        let coins = try await b.purchase(PurchaseRequest(productID: "coins", accountID: "ana", bundleID: "app"))
        try await b.requestRefund(transactionID: coins.id, accountID: "ana", approve: true, reason: .fulfillmentIssue)
        #expect(try await a.recordConsumptionInformation(transactionID: coins.id, version: 2, fields: #"{"deliveryStatus":"UNDELIVERED_OTHER"}"#))
        let pending = try #require(try await b.transaction(coins.id).refundRequest)
        #expect(pending.status == .pending && pending.reason == .fulfillmentIssue)
        #expect(pending.consumption.map(\.version) == [2])
        #expect(try await b.notifications().last?.consumptionRequestReason == .fulfillmentIssue)

        try await b.decideRefundRequest(transactionID: coins.id, .refundProrated(percentage: 50_000))
        let refunded = try await a.transaction(coins.id)
        #expect(refunded.revocationPercentage == 50_000 && refunded.revocationType == .refundProrated)
        #expect(refunded.refundRequest?.status == .refunded)
        try await a.reverseRefund(transactionID: coins.id)
        #expect(try await b.transaction(coins.id).isActive)
        #expect(try await b.notifications().map(\.summary) == ["ONE_TIME_CHARGE", "CONSUMPTION_REQUEST", "REFUND", "REFUND_REVERSED"])
    }
}
