import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

@Suite("Family Sharing on a device")
struct FamilySharingClientTests {
    @Test("A family member's shared purchase reaches the app; when the family stops sharing it, the app hears of the revocation")
    func sharedPurchaseThenRevocation() async throws {
        let harness = try Harness(autoFinish: true)
        let engine = harness.session.engine
        try await engine.joinFamily(accountID: harness.session.environment.accountID, familyID: "family")
        try await engine.joinFamily(accountID: "parent", familyID: "family")
        _ = try await engine.purchase(PurchaseRequest(productID: Demo.premium, accountID: "parent", bundleID: harness.session.environment.bundleID))
        _ = try await harness.spy.waitForTransaction(Demo.premium, .purchased)

        try await engine.leaveFamily(accountID: "parent")
        let revoked = try await harness.spy.wait(for: "revocation") { log in
            log.lazy.compactMap { event -> [String]? in
                if case .revoked(let products) = event { return products }
                return nil
            }.first
        }
        #expect(revoked == [Demo.premium])
    }
}
