import AppStoreFormats
import Foundation

extension StoreEngine {
    /// Puts an account in a Family Sharing group. The family's shareable purchases are shared with it at once,
    /// and its own shareable purchases with the family.
    ///
    /// - Returns: the transactions shared with the new member and by it.
    @discardableResult
    public func joinFamily(accountID: String, familyID: String) async throws(StoreError) -> [TransactionRecord] {
        var account = try await self.account(accountID)
        guard account.familyID != familyID else { return [] }
        if account.familyID != nil { try await leaveFamily(accountID: accountID) }
        account = try await self.account(accountID)
        account.familyID = familyID
        try await commit([.saveAccount(account)])
        var shares: [TransactionRecord] = []
        let purchases = try await transactions().filter { $0.origin == .purchase && $0.isActive }
        for purchase in purchases {
            shares += try await familyShares(of: purchase)
        }
        try await commit(shares.map(StorageChange.saveTransaction))
        for share in shares { publish(.transactionUpdated(share)) }
        return shares
    }

    /// Takes an account out of its family: what the family shared with it is revoked now (`FAMILY_REVOKE`),
    /// and what it shared with the family is revoked for the other members.
    ///
    /// - Returns: the revoked transactions.
    @discardableResult
    public func leaveFamily(accountID: String) async throws(StoreError) -> [TransactionRecord] {
        var account = try await self.account(accountID)
        guard account.familyID != nil else { return [] }
        let ownPurchases = Set(try await transactions(TransactionQuery(accountID: accountID)).filter { $0.origin == .purchase }.map(\.originalID))
        let now = clock.now()
        var revoked = try await transactions().filter { record in
            record.origin == .familyShare && record.isActive
                && (record.accountID == accountID || ownPurchases.contains(record.originalID))
        }
        for index in revoked.indices {
            revoked[index].revocationDate = now
            revoked[index].revocationType = .familyRevoke
        }
        account.familyID = nil
        try await commit([.saveAccount(account)] + revoked.map(StorageChange.saveTransaction))
        if !revoked.isEmpty { publish(.transactionsRevoked(revoked)) }
        return revoked
    }

    /// The transactions that share a completed purchase with the buyer's family: one per other member that does
    /// not hold it yet, for family-shareable non-consumables.
    func familyShares(of purchase: TransactionRecord) async throws(StoreError) -> [TransactionRecord] {
        guard purchase.isActive, purchase.origin == .purchase, purchase.productType == .nonConsumable,
              catalog.product(purchase.productID)?.isFamilyShareable == true,
              let familyID = try await account(purchase.accountID).familyID else { return [] }
        let members = try await accounts().filter { $0.familyID == familyID && $0.id != purchase.accountID }
        var shares: [TransactionRecord] = []
        for member in members {
            let held = try await transactions(TransactionQuery(accountID: member.id, originalID: purchase.originalID))
            guard !held.contains(where: { $0.origin == .familyShare }) else { continue }
            var share = purchase
            share.id = try await read { [tenantID] in try await $0.allocateTransactionID(tenant: tenantID) }
            share.accountID = member.id
            share.origin = .familyShare
            share.amountCharged = 0
            share.deviceID = nil
            share.applicationUsername = nil
            share.appAccountToken = nil
            shares.append(share)
        }
        return shares
    }
}
