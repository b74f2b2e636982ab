import AppStoreFormats
import Foundation

/// Refunds, refund requests and their reversal, as the App Store runs them.
extension StoreOperation {
    /// Revokes a completed transaction and, for a non-consumable, everything derived from the same purchase; for a
    /// subscription's current period, the subscription ends now. The app's server hears `REFUND` for the transaction,
    /// and each family member who lost the purchase with it `REVOKE`.
    ///
    /// - Parameters:
    ///   - type: How the refund is recorded (`revocationType`); `nil` signs as `REFUND_FULL`.
    ///   - percentage: For a prorated refund, the share refunded in milli-percent (`revocationPercentage`).
    ///   - request: The refund request the refund decides, which the refunded transaction keeps.
    func refund(
        _ id: UInt64, reason: RevocationReason, type: RevocationType? = nil, percentage: Int? = nil, request: RefundRequestRecord? = nil
    ) throws -> [TransactionRecord] {
        let record = try transaction(id)
        guard record.isActive else {
            throw StoreError.invalidTransactionState("Transaction \(id) cannot be refunded: it is \(record.isRevoked ? "already refunded" : "\(record.state)"). Only completed transactions can be refunded.")
        }
        var revoked = [record]
        switch record.productType {
        case .nonConsumable:
            // The refunded transaction first: the notification and the caller's answer are about it.
            revoked += try storage.transactions(matching: TransactionQuery(originalID: record.originalID)).filter { $0.isActive && $0.id != id }
        case .autoRenewable where record.origin != .familyShare:
            revoked += try storage.transactions(matching: TransactionQuery(originalID: record.originalID)).filter { share in
                share.origin == .familyShare && share.isActive && share.purchaseDate == record.purchaseDate
            }
        default:
            break
        }
        for index in revoked.indices {
            revoked[index].revocationDate = now
            revoked[index].revocationReason = reason
            revoked[index].revocationType = type
            revoked[index].revocationPercentage = percentage
        }
        if let request { revoked[0].refundRequest = request }
        try storage.write(revoked.map(StorageChange.saveTransaction))
        var subscription = record.productType == .autoRenewable ? try storage.subscription(id: record.originalID) : nil
        if var current = subscription, current.latestTransactionID == record.id {
            current.status = .revoked
            current.autoRenewEnabled = false
            current.expiresDate = min(current.expiresDate, now)
            current.clearBillingRetry()
            try storage.write(.saveSubscription(current))
            subscription = current
        }
        try storage.write(.saveNotification(notification(.refund, about: revoked[0], subscription: subscription)))
        // Family members who held the purchase through Family Sharing lose it with the purchaser's refund.
        let familyLosses = revoked.filter { $0.origin == .familyShare && $0.accountID != record.accountID }
        try storage.write(familyLosses.map { .saveNotification(notification(.revoke, about: $0)) })
        return revoked
    }

    /// A customer's refund request. With ``StoreSettings/refundRequestsAwaitDecision`` on, the request is kept pending
    /// on the transaction and the app's server hears `CONSUMPTION_REQUEST` (for a consumable, a non-renewing or an
    /// auto-renewable subscription, as Apple asks for consumption information); otherwise it is decided now: refunded,
    /// or declined (`REFUND_DECLINED`) when `approve` is false. A request that is not refunded at once turns off the
    /// subscription's auto-renew, with `DID_CHANGE_RENEWAL_STATUS` `AUTO_RENEW_DISABLED`, as Apple documents.
    ///
    /// - Returns: the transactions the refund revoked; empty when the request is pending or declined.
    func requestRefund(_ id: UInt64, accountID: String, approve: Bool, reason: ConsumptionRequestReason) throws -> [TransactionRecord] {
        var record = try transaction(id)
        guard record.accountID == accountID else {
            throw StoreError.unknownTransaction("Account \(accountID) has no transaction \(id); a customer can only ask for refunds of their own purchases.")
        }
        guard record.isActive else {
            throw StoreError.invalidTransactionState("Transaction \(id) cannot be refunded: it is \(record.isRevoked ? "already refunded" : "\(record.state)").")
        }
        guard settings.refundRequestsAwaitDecision else {
            if approve { return try refund(id, reason: .refundedForOtherReason) }
            try stopRenewalForRefundRequest(record)
            try storage.write(.saveNotification(notification(.refundDeclined, about: record)))
            return []
        }
        if let earlier = record.refundRequest, earlier.status == .pending {
            throw StoreError.invalidTransactionState("Transaction \(id) already has a refund request waiting since \(earlier.requestDate). Decide it with `storekit tx decide-refund \(id)` or POST /control/transactions/\(id)/refund-request/decision.")
        }
        let subscription = try stopRenewalForRefundRequest(record)
        record.refundRequest = RefundRequestRecord(requestDate: now, reason: reason)
        var changes: [StorageChange] = [.saveTransaction(record)]
        if record.productType != .nonConsumable {
            var request = notification(.consumptionRequest, about: record, subscription: subscription)
            request.consumptionRequestReason = reason
            changes.append(.saveNotification(request))
        }
        try storage.write(changes)
        return []
    }

    /// Turns off the auto-renew of the subscription whose transaction a customer asked to refund, as the App Store
    /// does (`DID_CHANGE_RENEWAL_STATUS` `AUTO_RENEW_DISABLED`, sent before the request's own notification).
    ///
    /// - Returns: the transaction's subscription afterwards; `nil` for other products.
    @discardableResult
    private func stopRenewalForRefundRequest(_ record: TransactionRecord) throws -> SubscriptionRecord? {
        guard record.productType == .autoRenewable, let subscription = try storage.subscription(id: record.originalID) else { return nil }
        guard subscription.autoRenewEnabled, subscription.status != .expired, subscription.status != .revoked else { return subscription }
        return try setAutoRenew(subscription.id, enabled: false)
    }

    /// Keeps consumption information an app's server sent for a transaction with its pending refund request.
    ///
    /// - Returns: whether a pending request took it; information for a transaction with none is accepted and
    ///   not kept, as the App Store ignores what it did not ask for.
    func recordConsumption(_ information: ConsumptionInformation, transactionID id: UInt64) throws -> Bool {
        var record = try transaction(id)
        guard var request = record.refundRequest, request.status == .pending else { return false }
        request.consumption.append(information)
        record.refundRequest = request
        try storage.write(.saveTransaction(record))
        return true
    }

    /// Decides a transaction's pending refund request.
    ///
    /// - Returns: the transactions the refund revoked, the decided transaction first; the transaction alone when
    ///   declined.
    func decideRefundRequest(_ id: UInt64, _ decision: RefundDecision, reason: RevocationReason) throws -> [TransactionRecord] {
        var record = try transaction(id)
        guard var request = record.refundRequest, request.status == .pending else {
            throw StoreError.invalidTransactionState("Transaction \(id) has no pending refund request. Turn on refundRequestsAwaitDecision in the settings, then ask for a refund with `storekit tx request-refund \(id)` or the app's beginRefundRequest.")
        }
        request.decisionDate = now
        switch decision {
        case .decline:
            request.status = .declined
            record.refundRequest = request
            try storage.write([.saveTransaction(record), .saveNotification(notification(.refundDeclined, about: record))])
            return [record]
        case .refundFull:
            request.status = .refunded
            return try refund(id, reason: reason, type: .refundFull, request: request)
        case .refundProrated(let percentage):
            guard (1...100_000).contains(percentage) else {
                throw StoreError.invalidRefundDecision("A prorated refund's revocationPercentage is in milli-percent, from 1 to 100000 (50000 is 50%); \(percentage) is out of range.")
            }
            request.status = .refunded
            return try refund(id, reason: reason, type: .refundProrated, percentage: percentage, request: request)
        }
    }

    /// Reverses a refund: the transaction, and whatever the refund revoked with it, grant their product again; a
    /// subscription the refund ended runs again until its period's end. The app's server hears `REFUND_REVERSED`.
    ///
    /// - Returns: the restored transactions, the reversed one first.
    func reverseRefund(_ id: UInt64) throws -> [TransactionRecord] {
        let record = try transaction(id)
        guard let revocationDate = record.revocationDate, record.revocationType != .familyRevoke else {
            throw StoreError.invalidTransactionState("Transaction \(id) was not refunded, so there is no refund to reverse. Refund it first.")
        }
        // What the refund revoked: the transaction and, for a non-consumable or a subscription period, the
        // transactions of the same purchase it revoked at the same moment.
        var restored = [record]
        if record.productType == .nonConsumable || record.productType == .autoRenewable {
            restored += try storage.transactions(matching: TransactionQuery(originalID: record.originalID)).filter { other in
                other.id != id && other.revocationDate == revocationDate && other.revocationType != .familyRevoke
            }
        }
        for index in restored.indices {
            restored[index].revocationDate = nil
            restored[index].revocationReason = nil
            restored[index].revocationType = nil
            restored[index].revocationPercentage = nil
        }
        if var request = restored[0].refundRequest, request.status == .refunded {
            request.status = .reversed
            request.decisionDate = now
            restored[0].refundRequest = request
        }
        try storage.write(restored.map(StorageChange.saveTransaction))
        var subscription = record.productType == .autoRenewable ? try storage.subscription(id: record.originalID) : nil
        if var current = subscription, current.latestTransactionID == record.id, current.status == .revoked {
            let end = record.expiresDate ?? now
            current.expiresDate = end
            if end > now {
                current.status = .active
                current.autoRenewEnabled = true
            } else {
                current.status = .expired
                current.expirationIntent = .customerCancelled
            }
            try storage.write(.saveSubscription(current))
            subscription = current
        }
        try storage.write(.saveNotification(notification(.refundReversed, about: restored[0], subscription: subscription)))
        return restored
    }
}
