import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import Testing

@Suite("Family Sharing")
struct FamilySharingTests {
    @Test("A family-shareable purchase is shared with every other member, free and marked FAMILY_SHARED")
    func purchaseIsShared() async throws {
        let (store, _) = try makeStore()
        try await store.joinFamily(accountID: "parent", familyID: "smiths")
        try await store.joinFamily(accountID: "kid", familyID: "smiths")
        let bought = try await store.buy("premium", account: "parent")
        let owned = try await store.ownedProducts(accountID: "kid", bundleID: app)
        #expect(owned.count == 1)
        let share = try #require(owned.first)
        #expect(share.origin == .familyShare)
        #expect(share.ownershipType == .familyShared)
        #expect(share.originalID == bought.originalID)
        #expect(share.amountCharged == 0)
        #expect(store.transactionPayload(share).inAppOwnershipType == .familyShared)
        // Products that are not family-shareable and accounts outside the family get nothing.
        _ = try await store.buy("season.pass", account: "parent")
        #expect(try await store.ownedProducts(accountID: "kid", bundleID: app).count == 1)
        #expect(try await store.ownedProducts(accountID: "stranger", bundleID: app).isEmpty)
    }

    @Test("Joining a family shares the purchases members already made, once")
    func joiningSharesExistingPurchases() async throws {
        let (store, _) = try makeStore()
        try await store.joinFamily(accountID: "parent", familyID: "smiths")
        _ = try await store.buy("premium", account: "parent")
        let shared = try await store.joinFamily(accountID: "kid", familyID: "smiths")
        #expect(shared.map(\.accountID) == ["kid"])
        #expect(try await store.joinFamily(accountID: "kid", familyID: "smiths").isEmpty)
    }

    @Test("Leaving the family revokes what was shared, with FAMILY_REVOKE, at the clock's date")
    func leavingRevokes() async throws {
        let (store, clock) = try makeStore()
        try await store.joinFamily(accountID: "parent", familyID: "smiths")
        try await store.joinFamily(accountID: "kid", familyID: "smiths")
        _ = try await store.buy("premium", account: "parent")
        try await clock.advance(by: 600)
        let revoked = try await store.leaveFamily(accountID: "parent")
        #expect(revoked.map(\.accountID) == ["kid"])
        #expect(revoked.first?.revocationType == .familyRevoke)
        #expect(revoked.first?.revocationDate == testStart.addingTimeInterval(600))
        #expect(store.transactionPayload(revoked[0]).revocationType == .familyRevoke)
        #expect(try await store.ownedProducts(accountID: "kid", bundleID: app).isEmpty)
        #expect(try await store.ownedProducts(accountID: "parent", bundleID: app).count == 1)
    }

    @Test("Refunding the purchase revokes the family's shares too")
    func refundRevokesShares() async throws {
        let (store, _) = try makeStore()
        try await store.joinFamily(accountID: "parent", familyID: "smiths")
        try await store.joinFamily(accountID: "kid", familyID: "smiths")
        let bought = try await store.buy("premium", account: "parent")
        let revoked = try await store.refund(transactionID: bought.id)
        #expect(Set(revoked.map(\.accountID)) == ["parent", "kid"])
        #expect(try await store.ownedProducts(accountID: "kid", bundleID: app).isEmpty)
    }

    @Test("A family-shareable subscription is shared period by period: the purchase, each renewal; a refund and leaving revoke")
    func subscriptionIsShared() async throws {
        let catalog = Catalog(products: testCatalog.products + [
            CatalogProduct(
                id: "family.monthly", type: .autoRenewable, price: Decimal(string: "9.99")!, isFamilyShareable: true,
                subscription: SubscriptionTerms(groupID: "F", level: 1, period: SubscriptionPeriod(value: 1, unit: .month))
            ),
        ])
        let clock = VirtualClock(start: testStart)
        let store = StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: clock, signer: .ephemeral)
        _ = try await store.joinFamily(accountID: "parent", familyID: "smiths")
        let bought = try await store.buy("family.monthly", account: "parent")
        _ = try await store.joinFamily(accountID: "kid", familyID: "smiths")
        var kids = try await store.transactions(TransactionQuery(accountID: "kid"))
        #expect(kids.count == 1, "joining shares the current period")
        #expect(kids.first?.origin == .familyShare)
        #expect(kids.first?.originalID == bought.id)
        #expect(kids.first?.expiresDate == bought.expiresDate)
        #expect(try store.transactionPayload(#require(kids.first)).inAppOwnershipType == .familyShared)

        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart)!)
        kids = try await store.transactions(TransactionQuery(accountID: "kid"))
        #expect(kids.count == 2, "the renewal is shared too")
        let renewal = try #require(try await store.transactions(TransactionQuery(accountID: "parent")).last)
        #expect(renewal.origin == .renewal)
        #expect(kids.last?.purchaseDate == renewal.purchaseDate)
        #expect(kids.last?.amountCharged == 0)

        let revoked = try await store.refund(transactionID: renewal.id)
        #expect(Set(revoked.map(\.accountID)) == ["parent", "kid"])
        #expect(try await store.transaction(try #require(kids.last).id).isRevoked)

        _ = try await store.joinFamily(accountID: "other.kid", familyID: "smiths")
        #expect(try await store.transactions(TransactionQuery(accountID: "other.kid")).isEmpty, "a revoked subscription is not shared")
    }
}
