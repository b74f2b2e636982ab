import AppStoreFormats
import Foundation

extension StoreEngine {
    /// Puts an account in a Family Sharing group. The family's shareable purchases are shared with it at once,
    /// and its own shareable purchases with the family. An account in another family leaves it first.
    ///
    /// - Returns: the transactions shared with the new member and by it.
    @discardableResult
    public func joinFamily(accountID: String, familyID: String) async throws(StoreError) -> [TransactionRecord] {
        let (shared, revoked) = try await perform { try $0.joinFamily(accountID: accountID, familyID: familyID) }
        if !revoked.isEmpty { publish(.transactionsRevoked(revoked)) }
        for share in shared { publish(.transactionUpdated(share)) }
        return shared
    }

    /// Takes an account out of its family: what the family shared with it is revoked now (`FAMILY_REVOKE`),
    /// and what it shared with the family is revoked for the other members.
    ///
    /// - Returns: the revoked transactions.
    @discardableResult
    public func leaveFamily(accountID: String) async throws(StoreError) -> [TransactionRecord] {
        let revoked = try await perform { try $0.leaveFamily(accountID: accountID) }
        if !revoked.isEmpty { publish(.transactionsRevoked(revoked)) }
        return revoked
    }

    /// A parent or guardian withdraws consent for a child's use of an app, as Apple's Declared Age Range lets one:
    /// the app's server gets `RESCIND_CONSENT`, whose `appData` carries the child's signed app transaction.
    ///
    /// - Parameters:
    ///   - accountID: The child's account.
    ///   - bundleID: The app the consent was for.
    /// - Returns: the notification recorded in the outbox.
    @discardableResult
    public func rescindConsent(accountID: String, bundleID: String) async throws(StoreError) -> NotificationRecord {
        try await perform { operation in
            let notification = NotificationRecord(type: .rescindConsent, date: operation.now, accountID: accountID, bundleID: bundleID, transactionID: 0)
            try operation.storage.write(.saveNotification(notification))
            return notification
        }
    }
}
