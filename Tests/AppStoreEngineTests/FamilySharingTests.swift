import AppStoreEngine
import AppStoreFormats
import Foundation
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
        #expect(await store.transactionPayload(share).inAppOwnershipType == .familyShared)
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
        #expect(await store.transactionPayload(revoked[0]).revocationType == .familyRevoke)
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
}
