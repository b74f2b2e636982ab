import AppStoreFormats
import Foundation
import StoreKitConfiguration

/// The Advanced Commerce in-app requests that act on a subscription the customer has: `MODIFY_SUBSCRIPTION` and
/// `REACTIVATE_SUBSCRIPTION`, bought through the product the subscription renews.
extension StoreOperation {
    /// The Advanced Commerce subscription a request's `transactionId` names, as the customer's purchase of `product`
    /// reaches it.
    ///
    /// - Throws: ``StoreError/invalidAdvancedCommerceRequest``: 4000006 for a transaction not the customer's in the app,
    ///   4030008 for one of no Advanced Commerce subscription of `product`, 4000133 for another storefront.
    /// - Returns: the subscription, and what it renews with.
    private func subscription(
        namedBy inApp: AdvancedCommerceInAppRequest, request: PurchaseRequest, product: CatalogProduct
    ) throws -> (SubscriptionRecord, AdvancedCommerceRenewalInfo) {
        guard let id = inApp.transactionId.flatMap(UInt64.init), let named = try storage.transaction(id: id),
              named.accountID == request.accountID, named.bundleID == request.bundleID
        else {
            throw Self.refusal(.invalidTransactionId, "Transaction \(inApp.transactionId ?? "") is not one of \(request.accountID)'s in \(request.bundleID). Name a transaction of the subscription to change.")
        }
        guard named.productType == .autoRenewable, let subscription = try storage.subscription(id: named.originalID),
              let renewal = subscription.advancedCommerceInfo, subscription.autoRenewProductID == product.id
        else {
            throw Self.refusal(.subscriptionDoesNotExist, "Transaction \(id) is not of an Advanced Commerce subscription to \(product.id). Send the request with a purchase of the product the subscription renews.")
        }
        let storefront = try account(request.accountID).storefront
        if let code = inApp.storefront, code != storefront {
            throw Self.refusal(Storefront.named(code) == nil ? .invalidStorefront : .mismatchedStorefront, "The request is for storefront \(code); the customer's is \(storefront).")
        }
        return (subscription, renewal)
    }

    /// Reactivates an Advanced Commerce subscription whose automatic renewal is off, as a purchase carrying Apple's
    /// `SubscriptionReactivateInAppRequest` does: auto-renew goes back on (`DID_CHANGE_RENEWAL_STATUS`/
    /// `AUTO_RENEW_ENABLED`), renewing the request's items (all of them when it names none) at their prices; nothing
    /// is charged now.
    ///
    /// - Returns: the subscription's current transaction, as the purchase's result.
    /// - Throws: ``StoreError/invalidAdvancedCommerceRequest``: as ``subscription(namedBy:request:product:)``, 4030015
    ///   for a subscription that lapsed or still renews, 4000122 for an item it does not have.
    func reactivateAdvancedCommerceSubscription(_ inApp: AdvancedCommerceInAppRequest, request: PurchaseRequest, product: CatalogProduct) throws -> TransactionRecord {
        var (subscription, renewal) = try subscription(namedBy: inApp, request: request, product: product)
        guard subscription.status == .active, subscription.isActive(at: now), !subscription.autoRenewEnabled else {
            throw Self.refusal(.inactiveACASub, subscription.autoRenewEnabled
                ? "Subscription \(subscription.id) renews already; only one whose automatic renewal is off can be reactivated."
                : "Subscription \(subscription.id) lapsed; sell a new one with CREATE_SUBSCRIPTION.")
        }
        if let kept = inApp.items?.compactMap(\.sku) {
            let items = renewal.items ?? []
            if let unknown = kept.first(where: { sku in !items.contains { $0.sku == sku } }) {
                throw Self.refusal(.invalidSKU, "Subscription \(subscription.id) has no item \(unknown); it renews \(items.compactMap(\.sku).joined(separator: ", ")).")
            }
            renewal.items = items.filter { kept.contains($0.sku ?? "") }
        }
        renewal.requestReferenceId = inApp.requestInfo?.requestReferenceId ?? renewal.requestReferenceId
        subscription.advancedCommerceInfo = renewal
        try storage.write(.saveSubscription(subscription))
        _ = try setAutoRenew(subscription.id, enabled: true)
        return try transaction(subscription.latestTransactionID)
    }

    /// Changes an active Advanced Commerce subscription, as a purchase carrying Apple's `SubscriptionModifyInAppRequest`
    /// does:
    /// - removed items leave at the next renewal; changed items with `NEXT_BILL_CYCLE`, a `NEXT_BILL_CYCLE` period and
    ///   descriptors change what the subscription renews with, and nothing is charged now
    ///   (`DID_CHANGE_RENEWAL_PREF`, `DOWNGRADE` when an item is removed or downgraded);
    /// - added items and changed items with `IMMEDIATELY` apply now: with `retainBillingCycle` a new transaction for the
    ///   rest of the current period charges each one's `proratedPrice` (or, without one, the price difference for the
    ///   unused share of the period), ending when the period does; without it, or with an `IMMEDIATELY` period change,
    ///   a new billing period starts now at the new items' prices. The transaction before is `isUpgraded`
    ///   (`DID_CHANGE_RENEWAL_PREF`/`UPGRADE`);
    /// - `IMMEDIATELY` descriptors also rename the current transaction.
    ///
    /// - Returns: the new transaction, or the current one when nothing applies now.
    /// - Throws: ``StoreError/invalidAdvancedCommerceRequest``: as ``subscription(namedBy:request:product:)``, 4030015
    ///   for a subscription that is not active, 4000053 for another currency than the storefront's, 4000122 for an
    ///   item the subscription does not have, 4000143 for one it already has.
    func modifyAdvancedCommerceSubscription(_ inApp: AdvancedCommerceInAppRequest, request: PurchaseRequest, product: CatalogProduct) throws -> TransactionRecord {
        var (subscription, renewal) = try subscription(namedBy: inApp, request: request, product: product)
        guard subscription.status == .active, subscription.isActive(at: now) else {
            throw Self.refusal(.inactiveACASub, "Subscription \(subscription.id) is not active; sell a new one with CREATE_SUBSCRIPTION.")
        }
        let account = try account(request.accountID)
        guard let storefront = Storefront.named(account.storefront) else { throw Self.unknownStorefront(account.storefront) }
        if let currency = inApp.currency, currency != storefront.currency {
            throw Self.refusal(.invalidCurrency, "The request prices in \(currency); the customer's storefront \(storefront.countryCode) charges \(storefront.currency).")
        }
        var latest = try transaction(subscription.latestTransactionID)
        var renewalItems = renewal.items ?? []
        var current = latest.advancedCommerceInfo ?? AdvancedCommerceTransactionInfo()
        var currentItems = current.items ?? []
        // The share of the billing period still to come: of the period, not of the latest transaction, which an
        // earlier change in the period may have started midway.
        let unused = Self.unusedShare(from: subscription.periodStartDate, to: subscription.expiresDate, at: now)
        var proratedCharge: Int64 = 0
        var appliesNow = false
        var downgrades = false

        for removed in inApp.removeItems ?? [] {
            guard let index = renewalItems.firstIndex(where: { $0.sku == removed.sku }) else {
                throw Self.refusal(.invalidSKU, "Subscription \(subscription.id) has no item \(removed.sku ?? ""); it renews \(renewalItems.compactMap(\.sku).joined(separator: ", ")).")
            }
            renewalItems.remove(at: index)
            downgrades = true
        }
        for change in inApp.changeItems ?? [] {
            guard let index = renewalItems.firstIndex(where: { $0.sku == change.currentSKU }) else {
                throw Self.refusal(.invalidSKU, "Subscription \(subscription.id) has no item \(change.currentSKU ?? ""); it renews \(renewalItems.compactMap(\.sku).joined(separator: ", ")).")
            }
            let before = renewalItems[index].price ?? 0
            renewalItems[index] = Self.renewalItem(change)
            downgrades = downgrades || change.reason == "DOWNGRADE"
            guard change.effective == AdvancedCommerceInAppRequest.immediately else { continue }
            appliesNow = true
            proratedCharge += change.proratedPrice ?? max(0, ((change.price ?? 0) - before) * Int64(unused) / 100_000)
            let charged = Self.transactionItem(change)
            if let position = currentItems.firstIndex(where: { $0.sku == change.currentSKU }) { currentItems[position] = charged } else { currentItems.append(charged) }
        }
        for added in inApp.addItems ?? [] {
            guard !renewalItems.contains(where: { $0.sku == added.sku }) else {
                throw Self.refusal(.multipleOperationsOnSingleSKU, "Subscription \(subscription.id) already has item \(added.sku ?? ""); change it with changeItems.")
            }
            renewalItems.append(Self.renewalItem(added))
            appliesNow = true
            proratedCharge += added.proratedPrice ?? (added.offer?.price ?? added.price ?? 0) * Int64(unused) / 100_000
            currentItems.append(Self.transactionItem(added))
        }
        renewal.items = renewalItems
        if let descriptors = inApp.descriptors {
            let changed = AdvancedCommerceDescriptors(
                description: descriptors.description ?? renewal.descriptors?.description, displayName: descriptors.displayName ?? renewal.descriptors?.displayName
            )
            renewal.descriptors = changed
            if descriptors.effective == AdvancedCommerceInAppRequest.immediately { current.descriptors = changed }
        }
        var newPeriodNow = inApp.retainBillingCycle == false
        if let change = inApp.periodChange, let period = change.period {
            renewal.period = period
            newPeriodNow = newPeriodNow || change.effective == AdvancedCommerceInAppRequest.immediately
        }
        renewal.taxCode = inApp.taxCode ?? renewal.taxCode
        renewal.requestReferenceId = inApp.requestInfo?.requestReferenceId ?? renewal.requestReferenceId
        subscription.advancedCommerceInfo = renewal

        guard appliesNow || newPeriodNow else {
            var writes: [StorageChange] = [.saveSubscription(subscription)]
            if latest.advancedCommerceInfo != nil, current.descriptors != latest.advancedCommerceInfo?.descriptors {
                latest.advancedCommerceInfo = current
                writes.append(.saveTransaction(latest))
            }
            writes.append(.saveNotification(notification(.didChangeRenewalPref, downgrades ? .downgrade : nil, about: subscription, at: now)))
            try storage.write(writes)
            return latest
        }

        var change = TransactionRecord(
            id: try storage.allocateTransactionID(), originalID: subscription.id, accountID: subscription.accountID, bundleID: subscription.bundleID,
            productID: product.id, productType: .autoRenewable, quantity: 1, purchaseDate: now,
            originalPurchaseDate: subscription.originalPurchaseDate, storefront: storefront, unitPrice: 0, amountCharged: 0,
            origin: .purchase, state: .purchased, deviceID: request.deviceID, appAccountToken: subscription.appAccountToken
        )
        change.subscriptionGroupID = subscription.groupID
        if newPeriodNow {
            // A new billing period starts now, priced and dated as a renewal of the changed subscription would be.
            let period = Self.advancedCommercePeriod(of: subscription) ?? product.subscription?.period ?? SubscriptionPeriod(value: 1, unit: .month)
            change.expiresDate = settings.timeRate.endOfPeriod(period, startingAt: now)
            applyAdvancedCommerceRenewal(&change, of: &subscription)
        } else {
            // The rest of the current period, with the items as they are now, for the prorated prices.
            change.expiresDate = latest.expiresDate
            change.unitPrice = Decimal(proratedCharge) / 1000
            change.amountCharged = change.unitPrice
            current.items = currentItems
            current.taxExclusivePrice = proratedCharge
            current.requestReferenceId = inApp.requestInfo?.requestReferenceId ?? current.requestReferenceId
            change.advancedCommerceInfo = current
        }
        latest.isUpgraded = true
        subscription.latestTransactionID = change.id
        subscription.periodStartDate = newPeriodNow ? now : subscription.periodStartDate
        subscription.expiresDate = change.expiresDate ?? subscription.expiresDate
        try storage.write([
            .saveTransaction(latest), .saveTransaction(change), .saveSubscription(subscription),
            .saveNotification(notification(.didChangeRenewalPref, .upgrade, about: change, subscription: subscription)),
        ])
        return change
    }

    /// What the subscription renews with for an item a modification adds or changes.
    private static func renewalItem(_ item: AdvancedCommerceRequestItem) -> AdvancedCommerceRenewalItem {
        AdvancedCommerceRenewalItem(sku: item.sku, description: item.description, displayName: item.displayName, offer: item.offer, price: item.price)
    }

    /// The current period's item for an item a modification adds or changes now.
    private static func transactionItem(_ item: AdvancedCommerceRequestItem) -> AdvancedCommerceTransactionItem {
        AdvancedCommerceTransactionItem(sku: item.sku, description: item.description, displayName: item.displayName, offer: item.offer, price: item.offer?.price ?? item.price)
    }
}
