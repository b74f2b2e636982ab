import AppStoreFormats
import Foundation
import StoreKitConfiguration

/// The Advanced Commerce API's server endpoints, acting on the store. Each checks what Apple checks and answers a
/// refusal as Apple's error (`AdvancedCommerceAPIError`) before it writes anything.
extension StoreOperation {
    typealias Outcome = Result<AdvancedCommerceOutcome, AdvancedCommerceAPIError>

    /// The Advanced Commerce subscription a transaction belongs to.
    private func advancedCommerceSubscription(_ id: UInt64) throws -> Result<SubscriptionRecord, AdvancedCommerceAPIError> {
        let record = try transaction(id)
        guard record.productType == .autoRenewable, let subscription = try storage.subscription(id: record.originalID),
              subscription.advancedCommerceInfo != nil
        else { return .failure(.subscriptionDoesNotExist) }
        return .success(subscription)
    }

    private func outcome(_ subscription: SubscriptionRecord) throws -> Outcome {
        .success(AdvancedCommerceOutcome(transaction: try transaction(subscription.latestTransactionID), subscription: subscription))
    }

    /// Cancel a Subscription: auto-renew off (`DID_CHANGE_RENEWAL_STATUS`/`AUTO_RENEW_DISABLED`); the customer keeps
    /// the current period.
    func cancelAdvancedCommerceSubscription(_ id: UInt64) throws -> Outcome {
        let subscription: SubscriptionRecord
        switch try advancedCommerceSubscription(id) {
        case .failure(let error): return .failure(error)
        case .success(let value): subscription = value
        }
        guard subscription.status != .expired, subscription.status != .revoked else { return .failure(.inactiveACASub) }
        return try outcome(setAutoRenew(subscription.id, enabled: false))
    }

    /// Revoke Subscription: the current period ends now with a full or prorated refund of every item (`REFUND`).
    func revokeAdvancedCommerceSubscription(_ id: UInt64, refundType: String, refundReason: String) throws -> Outcome {
        let subscription: SubscriptionRecord
        switch try advancedCommerceSubscription(id) {
        case .failure(let error): return .failure(error)
        case .success(let value): subscription = value
        }
        guard subscription.status == .active, subscription.isActive(at: now) else { return .failure(.revokeOnInactiveSubscription) }
        let latest = try transaction(subscription.latestTransactionID)
        let share = refundType == "PRORATED" ? Self.unusedShare(of: latest, at: now) : 100_000
        _ = try refund(latest.id, reason: .refundedForOtherReason, type: refundType == "PRORATED" ? .refundProrated : .refundFull, percentage: refundType == "PRORATED" ? share : nil)
        var revoked = try transaction(latest.id)
        let items = (revoked.advancedCommerceInfo?.items ?? []).map { item in
            var item = item
            item.revocationDate = now
            item.refunds = (item.refunds ?? []) + [AdvancedCommerceRefund(
                refundAmount: (item.price ?? 0) * Int64(share) / 100_000, refundDate: now, refundReason: refundReason, refundType: refundType
            )]
            return item
        }
        revoked.advancedCommerceInfo?.items = items
        try storage.write(.saveTransaction(revoked))
        return .success(AdvancedCommerceOutcome(transaction: revoked, subscription: try storage.subscription(id: subscription.id)))
    }

    /// Request Transaction Refund: refunds items of an Advanced Commerce transaction, revoking those the request says
    /// to; once every item is revoked the transaction is (`REFUND`). With `SIMULATE_REFUND_DECLINE` the App Store
    /// declines (`REFUND_DECLINED`).
    func requestAdvancedCommerceRefund(_ id: UInt64, items: [AdvancedCommerceRequestRefundRequest.Item]) throws -> Outcome {
        var record = try transaction(id)
        guard var info = record.advancedCommerceInfo, var owned = info.items else { return .failure(.productNotEligible) }
        guard !record.isRevoked else { return .failure(.alreadyRefunded) }
        let subscription = record.productType == .autoRenewable ? try storage.subscription(id: record.originalID) : nil
        let declines = items.filter { $0.refundReason == "SIMULATE_REFUND_DECLINE" }.count
        if declines > 0 {
            guard declines == items.count else { return .failure(.partialSimulateRefundDecline) }
            try storage.write(.saveNotification(notification(.refundDeclined, about: record, subscription: subscription)))
            return .success(AdvancedCommerceOutcome(transaction: record, subscription: subscription))
        }
        var refunded: [(index: Int, refund: AdvancedCommerceRefund, revoke: Bool)] = []
        for item in items {
            guard let index = owned.firstIndex(where: { $0.sku == item.sku }) else { return .failure(.invalidSKU) }
            guard owned[index].revocationDate == nil else { return .failure(.alreadyRefunded) }
            let price = owned[index].price ?? 0
            let alreadyRefunded = (owned[index].refunds ?? []).reduce(Int64(0)) { $0 + ($1.refundAmount ?? 0) }
            let amount: Int64
            switch item.refundType {
            case "FULL": amount = price - alreadyRefunded
            case "PRORATED":
                guard record.productType != .autoRenewable || subscription?.latestTransactionID == record.id else {
                    return .failure(.proratedOnlyLatestTransaction)
                }
                amount = record.productType == .autoRenewable ? price * Int64(Self.unusedShare(of: record, at: now)) / 100_000 : price - alreadyRefunded
            default: amount = item.refundAmount ?? 0
            }
            guard amount <= price - alreadyRefunded else { return .failure(.invalidAmount) }
            refunded.append((index, AdvancedCommerceRefund(refundAmount: amount, refundDate: now, refundReason: item.refundReason, refundType: item.refundType), item.revoke ?? false))
        }
        for (index, refund, revoke) in refunded {
            owned[index].refunds = (owned[index].refunds ?? []) + [refund]
            if revoke { owned[index].revocationDate = now }
        }
        info.items = owned
        if owned.allSatisfy({ $0.revocationDate != nil }) {
            let total = owned.reduce(Int64(0)) { $0 + ($1.price ?? 0) }
            let refundedTotal = owned.flatMap { $0.refunds ?? [] }.reduce(Int64(0)) { $0 + ($1.refundAmount ?? 0) }
            let full = refundedTotal >= total
            _ = try refund(id, reason: .refundedForOtherReason, type: full ? .refundFull : .refundProrated, percentage: full || total == 0 ? nil : Int(refundedTotal * 100_000 / total))
            record = try transaction(id)
            record.advancedCommerceInfo = info
            try storage.write(.saveTransaction(record))
        } else {
            record.advancedCommerceInfo = info
            try storage.write([.saveTransaction(record), .saveNotification(notification(.refund, about: record, subscription: subscription))])
        }
        return .success(AdvancedCommerceOutcome(transaction: record, subscription: try subscription.flatMap { try storage.subscription(id: $0.id) }))
    }

    /// Change Subscription Metadata: new descriptors, item SKUs, names and descriptions and tax code, now or from the
    /// next renewal (`METADATA_UPDATE`).
    func changeAdvancedCommerceMetadata(_ id: UInt64, _ change: AdvancedCommerceSubscriptionChangeMetadataRequest) throws -> Outcome {
        var subscription: SubscriptionRecord
        switch try advancedCommerceSubscription(id) {
        case .failure(let error): return .failure(error)
        case .success(let value): subscription = value
        }
        guard subscription.isActive(at: now) else { return .failure(.inactiveACASub) }
        guard var renewal = subscription.advancedCommerceInfo else { return .failure(.subscriptionDoesNotExist) }
        var latest = try transaction(subscription.latestTransactionID)
        var current = latest.advancedCommerceInfo
        let immediately = AdvancedCommerceSubscriptionChangeMetadataRequest.immediately
        if let descriptors = change.descriptors {
            renewal.descriptors = Self.changed(renewal.descriptors, by: descriptors)
            if descriptors.effective == immediately, current != nil {
                let now = Self.changed(current?.descriptors, by: descriptors)
                current?.descriptors = now
            }
        }
        for item in change.items ?? [] {
            var renewalItems = renewal.items ?? []
            guard let index = renewalItems.firstIndex(where: { $0.sku == item.currentSKU }) else { return .failure(.invalidSKU) }
            renewalItems[index].sku = item.sku ?? item.currentSKU
            renewalItems[index].description = item.description ?? renewalItems[index].description
            renewalItems[index].displayName = item.displayName ?? renewalItems[index].displayName
            renewal.items = renewalItems
            if item.effective == immediately, var currentItems = current?.items,
               let position = currentItems.firstIndex(where: { $0.sku == item.currentSKU }) {
                currentItems[position].sku = item.sku ?? item.currentSKU
                currentItems[position].description = item.description ?? currentItems[position].description
                currentItems[position].displayName = item.displayName ?? currentItems[position].displayName
                current?.items = currentItems
            }
        }
        if let taxCode = change.taxCode { renewal.taxCode = taxCode }
        renewal.requestReferenceId = change.requestInfo?.requestReferenceId ?? renewal.requestReferenceId
        subscription.advancedCommerceInfo = renewal
        var writes: [StorageChange] = [.saveSubscription(subscription)]
        if current != latest.advancedCommerceInfo {
            latest.advancedCommerceInfo = current
            writes.append(.saveTransaction(latest))
        }
        writes.append(.saveNotification(notification(.metadataUpdate, about: subscription, at: now)))
        try storage.write(writes)
        return .success(AdvancedCommerceOutcome(transaction: latest, subscription: subscription))
    }

    /// Change Subscription Price: new item prices from the next renewal (`PRICE_CHANGE`). A lower price is simply the
    /// renewal's price; a higher one waits as `priceIncreaseInfo` (`SCHEDULED`) and takes effect at the renewal.
    func changeAdvancedCommercePrice(_ id: UInt64, items: [AdvancedCommerceSubscriptionPriceChangeRequest.Item]) throws -> Outcome {
        var subscription: SubscriptionRecord
        switch try advancedCommerceSubscription(id) {
        case .failure(let error): return .failure(error)
        case .success(let value): subscription = value
        }
        guard subscription.isActive(at: now) else { return .failure(.inactiveACASub) }
        guard var renewal = subscription.advancedCommerceInfo, var renewalItems = renewal.items else { return .failure(.subscriptionDoesNotExist) }
        for item in items {
            guard let index = renewalItems.firstIndex(where: { $0.sku == item.sku }), let price = item.price else { return .failure(.invalidSKU) }
            if price > renewalItems[index].price ?? 0 {
                renewalItems[index].priceIncreaseInfo = AdvancedCommercePriceIncreaseInfo(dependentSKUs: item.dependentSKUs, price: price, status: "SCHEDULED")
            } else {
                renewalItems[index].price = price
                renewalItems[index].priceIncreaseInfo = nil
            }
        }
        renewal.items = renewalItems
        subscription.advancedCommerceInfo = renewal
        try storage.write([.saveSubscription(subscription), .saveNotification(notification(.priceChange, about: subscription, at: now))])
        return try outcome(subscription)
    }

    /// Migrate a Subscription: an In-App Purchase subscription continues as the developer's generic product, with
    /// the request's descriptors and items, at its current renewal price (`MIGRATION`).
    func migrateToAdvancedCommerce(_ id: UInt64, _ request: AdvancedCommerceSubscriptionMigrateRequest) throws -> Outcome {
        let record = try transaction(id)
        guard record.productType == .autoRenewable, var subscription = try storage.subscription(id: record.originalID) else {
            return .failure(.subscriptionDoesNotExist)
        }
        guard subscription.advancedCommerceInfo == nil else { return .failure(.subscriptionAlreadyMigrated) }
        guard subscription.isActive(at: now) else { return .failure(.inactiveACASub) }
        guard let target = request.targetProductId.flatMap(catalog.product), let terms = target.subscription, terms.groupID == subscription.groupID else {
            return .failure(.invalidTargetProductID)
        }
        let current = catalog.product(subscription.autoRenewProductID)?.price ?? target.price
        let items = (request.renewalItems ?? request.items ?? []).enumerated().map { index, item in
            AdvancedCommerceRenewalItem(
                sku: item.sku, description: item.description, displayName: item.displayName,
                price: index == 0 ? StoreEngine.milliunits(current) : 0
            )
        }
        subscription.autoRenewProductID = target.id
        subscription.advancedCommerceInfo = AdvancedCommerceRenewalInfo(
            descriptors: request.descriptors, items: items, period: terms.period.iso8601,
            requestReferenceId: request.requestInfo?.requestReferenceId, taxCode: request.taxCode
        )
        try storage.write([.saveSubscription(subscription), .saveNotification(notification(.migration, about: subscription, at: now))])
        return try outcome(subscription)
    }

    /// `descriptors` with what a metadata change gives.
    private static func changed(
        _ descriptors: AdvancedCommerceDescriptors?, by change: AdvancedCommerceSubscriptionChangeMetadataRequest.Descriptors
    ) -> AdvancedCommerceDescriptors {
        AdvancedCommerceDescriptors(
            description: change.description ?? descriptors?.description, displayName: change.displayName ?? descriptors?.displayName
        )
    }

    /// The share of a subscription period not yet used at `date`, in milli-percent (50000 is half).
    static func unusedShare(of record: TransactionRecord, at date: Date) -> Int {
        unusedShare(from: record.purchaseDate, to: record.expiresDate ?? record.purchaseDate, at: date)
    }

    /// The share of the time from `start` to `end` not yet passed at `date`, in milli-percent; all of it for an empty span.
    static func unusedShare(from start: Date, to end: Date, at date: Date) -> Int {
        guard end > start else { return 100_000 }
        let left = max(0, end.timeIntervalSince(date)) / end.timeIntervalSince(start)
        return Int((min(1, left) * 100_000).rounded())
    }
}

/// What an Advanced Commerce API call left: the transaction it answers with, and the subscription as it stands.
public struct AdvancedCommerceOutcome: Sendable, Hashable {
    /// The transaction the endpoint's `signedTransactionInfo` carries.
    public var transaction: TransactionRecord
    /// The subscription the endpoint's `signedRenewalInfo` carries; `nil` for a one-time charge.
    public var subscription: SubscriptionRecord?
}
