public import AppStoreFormats
import Foundation

/// The Advanced Commerce API's server endpoints. Each answers Apple's error (`AdvancedCommerceAPIError`) as a
/// failed `Result` when the App Store would refuse the call, and changes nothing then; it throws only when the
/// store itself fails (or, `unknownTransaction`, when no transaction has the identifier).
extension StoreEngine {
    /// Cancel a Subscription: turns auto-renew off; the customer keeps the period they paid for.
    public func cancelAdvancedCommerceSubscription(transactionID: UInt64) async throws(StoreError) -> Result<AdvancedCommerceOutcome, AdvancedCommerceAPIError> {
        try await perform { try $0.cancelAdvancedCommerceSubscription(transactionID) }
    }

    /// Revoke Subscription: ends the subscription now with a `FULL` or `PRORATED` refund of every item of its
    /// current period; the app's server hears `REFUND`.
    public func revokeAdvancedCommerceSubscription(
        transactionID: UInt64, refundType: String, refundReason: String
    ) async throws(StoreError) -> Result<AdvancedCommerceOutcome, AdvancedCommerceAPIError> {
        let result = try await perform { try $0.revokeAdvancedCommerceSubscription(transactionID, refundType: refundType, refundReason: refundReason) }
        if case .success(let outcome) = result { publish(.transactionsRevoked([outcome.transaction])) }
        return result
    }

    /// Request Transaction Refund: refunds the items the request names, revoking those it says to; the transaction is
    /// revoked once all its items are. The app's server hears `REFUND`, or `REFUND_DECLINED` for
    /// `SIMULATE_REFUND_DECLINE`.
    public func requestAdvancedCommerceRefund(
        transactionID: UInt64, items: [AdvancedCommerceRequestRefundRequest.Item]
    ) async throws(StoreError) -> Result<AdvancedCommerceOutcome, AdvancedCommerceAPIError> {
        let result = try await perform { try $0.requestAdvancedCommerceRefund(transactionID, items: items) }
        if case .success(let outcome) = result {
            publish(outcome.transaction.isRevoked ? .transactionsRevoked([outcome.transaction]) : .transactionUpdated(outcome.transaction))
        }
        return result
    }

    /// Change Subscription Metadata: new descriptors, SKUs, names, descriptions and tax code, now or from the next
    /// renewal; the app's server hears `METADATA_UPDATE`.
    public func changeAdvancedCommerceMetadata(
        transactionID: UInt64, _ change: AdvancedCommerceSubscriptionChangeMetadataRequest
    ) async throws(StoreError) -> Result<AdvancedCommerceOutcome, AdvancedCommerceAPIError> {
        let result = try await perform { try $0.changeAdvancedCommerceMetadata(transactionID, change) }
        if case .success(let outcome) = result { publish(.transactionUpdated(outcome.transaction)) }
        return result
    }

    /// Change Subscription Price: new item prices from the next renewal; the app's server hears `PRICE_CHANGE`.
    public func changeAdvancedCommercePrice(
        transactionID: UInt64, items: [AdvancedCommerceSubscriptionPriceChangeRequest.Item]
    ) async throws(StoreError) -> Result<AdvancedCommerceOutcome, AdvancedCommerceAPIError> {
        try await perform { try $0.changeAdvancedCommercePrice(transactionID, items: items) }
    }

    /// Migrate a Subscription: an In-App Purchase subscription continues as a generic Advanced Commerce product with
    /// the request's items; the app's server hears `MIGRATION`.
    public func migrateToAdvancedCommerce(
        transactionID: UInt64, _ request: AdvancedCommerceSubscriptionMigrateRequest
    ) async throws(StoreError) -> Result<AdvancedCommerceOutcome, AdvancedCommerceAPIError> {
        try await perform { try $0.migrateToAdvancedCommerce(transactionID, request) }
    }
}
