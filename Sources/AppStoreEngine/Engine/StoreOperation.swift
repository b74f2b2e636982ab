import AppStoreFormats
import Foundation
import StoreKitConfiguration

/// One store operation inside one storage transaction: what the store sells and how it behaves at the moment
/// the operation started, the time, and the tenant's stored state.
///
/// Every rule that changes stored state is written here, as plain synchronous code over a
/// ``StorageTransaction``: it checks, allocates identifiers and writes, and the storage makes that one atomic
/// step that no other operation interleaves with, in this process or another. ``StoreEngine`` runs each
/// operation with `perform` and publishes events only after the transaction committed.
struct StoreOperation {
    let storage: any StorageTransaction
    let catalog: Catalog
    let settings: StoreSettings
    let now: Date
    /// Checks promotional-offer signatures against the keys the store knows.
    let offerVerifier: PromotionalOfferVerifier

    // MARK: Reads

    /// The account with the identifier, with the store's default storefront when it was never saved.
    func account(_ id: String) throws -> Account {
        try storage.account(id: id) ?? Account(id: id, storefront: settings.storefront)
    }

    /// The transaction with the identifier.
    func transaction(_ id: UInt64) throws -> TransactionRecord {
        try storage.knownTransaction(id: id)
    }

    /// The completed, unrevoked transactions of an account in an app.
    func activeTransactions(accountID: String, bundleID: String) throws -> [TransactionRecord] {
        try storage.activeTransactions(accountID: accountID, bundleID: bundleID)
    }

    // MARK: Purchases

    /// Records a purchase of `product`, and the family shares it creates. See ``StoreEngine/purchase(_:)``.
    /// The purchase an earlier request with the same idempotency key made for the account in the app, if any.
    ///
    /// - Throws: ``StoreError/idempotencyKeyReused`` when that purchase was of another product or quantity.
    func purchase(repeatedBy request: PurchaseRequest) throws -> TransactionRecord? {
        guard let key = request.idempotencyKey else { return nil }
        // An index answers: the account's other purchases are never read. Renewals carry their first period's key.
        let earlier = try storage.transactions(
            matching: TransactionQuery(accountID: request.accountID, bundleID: request.bundleID, idempotencyKey: key)
        ).last { $0.origin != .renewal }
        guard let earlier else { return nil }
        guard earlier.productID == request.productID, earlier.quantity == request.quantity else {
            throw StoreError.idempotencyKeyReused(
                "Idempotency key \"\(key)\" already bought \(earlier.quantity) × \(earlier.productID) (transaction \(earlier.id)) for \(request.accountID); this request asks for \(request.quantity) × \(request.productID). Send a new key for a new purchase."
            )
        }
        return earlier
    }

    func purchase(_ request: PurchaseRequest, of product: CatalogProduct) throws -> [TransactionRecord] {
        let advancedCommerce = try request.advancedCommerceRequest.map { try verifiedAdvancedCommerceRequest($0, bundleID: request.bundleID) }
        if let advancedCommerce {
            switch advancedCommerce.operation {
            case AdvancedCommerceInAppRequest.reactivateSubscription:
                return [try reactivateAdvancedCommerceSubscription(advancedCommerce, request: request, product: product)]
            case AdvancedCommerceInAppRequest.modifySubscription:
                return [try modifyAdvancedCommerceSubscription(advancedCommerce, request: request, product: product)]
            default:
                break
            }
        }
        let stored = try storage.account(id: request.accountID)
        var account = stored ?? Account(id: request.accountID, storefront: settings.storefront)
        guard let storefront = Storefront.named(account.storefront) else { throw Self.unknownStorefront(account.storefront) }
        let purchaseDate = try dateOfPurchase(request, product: product)
        let id = try storage.allocateTransactionID()
        var record = TransactionRecord(
            id: id, originalID: id, accountID: account.id, bundleID: request.bundleID, productID: product.id,
            productType: product.type, quantity: request.quantity, purchaseDate: purchaseDate, originalPurchaseDate: purchaseDate,
            storefront: storefront, unitPrice: product.price, amountCharged: product.price * Decimal(request.quantity),
            origin: .purchase, state: .purchased, deviceID: request.deviceID,
            applicationUsername: request.applicationUsername, appAccountToken: request.appAccountToken
        )
        record.idempotencyKey = request.idempotencyKey
        if let subscription = product.subscription {
            record.subscriptionGroupID = subscription.groupID
            record.expiresDate = settings.timeRate.endOfPeriod(subscription.period, startingAt: purchaseDate)
        }
        let billedMonthly = try applyBillingPlan(of: request, product: product, to: &record)
        if let advancedCommerce {
            try applyAdvancedCommerce(advancedCommerce, request: request, product: product, storefront: storefront, to: &record)
        } else if !billedMonthly, let offer = try offer(for: request, product: product) {
            apply(offer, to: &record)
        }
        if !account.canMakePayments {
            record.state = .failed(errorCode: Self.paymentNotAllowedCode)
        } else if settings.failTransactionsEnabled {
            record.state = .failed(errorCode: settings.failureErrorCode)
        } else if product.type == .nonConsumable, record.advancedCommerceInfo == nil,
                  let owned = try activeTransactions(accountID: account.id, bundleID: request.bundleID)
                    .first(where: { $0.productID == product.id }) {
            record.originalID = owned.originalID
            record.originalPurchaseDate = owned.originalPurchaseDate
            record.amountCharged = 0
            record.origin = .repurchase
        } else if settings.askToBuyEnabled || request.simulatesAskToBuy {
            record.state = .pendingApproval
        } else if settings.interruptedPurchasesEnabled {
            record.state = .interrupted
        }
        if case .failed = record.state { record.amountCharged = 0 }
        let completion = record.state.isCompleted ? try completionChanges(&record) : []
        let shares = try familyShares(of: record, buyer: account)
        // An account is saved on its first purchase in an app, which is its download of the app unless a device reported
        // one earlier; rewriting an unchanged account cost a purchase two more pages in SQLite.
        if account.download(of: request.bundleID) == nil {
            account.appDownloads.append(AppDownload(bundleID: request.bundleID, date: purchaseDate, originalVersion: StoreDefaults.appVersion))
        }
        let accountChange: [StorageChange] = account == stored ? [] : [.saveAccount(account)]
        try storage.write(accountChange + [.saveTransaction(record)] + completion + shares.map(StorageChange.saveTransaction))
        return [record] + shares + (try catchUp(backDated: record, request: request))
    }

    /// When the purchase happened: now, or the past date a test store was asked for
    /// (``PurchaseRequest/purchaseDate``).
    ///
    /// - Throws: ``StoreError`` `invalidTransactionState` for a back-dated purchase in a Production store, after now,
    ///   or of a subscription in a group the account already subscribes to.
    private func dateOfPurchase(_ request: PurchaseRequest, product: CatalogProduct) throws -> Date {
        guard let date = request.purchaseDate else { return now }
        guard AppStoreEnvironment(rawValue: settings.environment) != .production else {
            throw StoreError.invalidTransactionState("A Production store does not back-date purchases; purchaseDate(_:renewalBehavior:) is for test stores (Sandbox or Xcode).")
        }
        guard date <= now else {
            throw StoreError.invalidTransactionState("The purchase date \(date) is after the store's now (\(now)); back-date a purchase to a past date, or move the store's clock.")
        }
        if let terms = product.subscription,
           try storage.subscriptions(accountID: request.accountID, bundleID: request.bundleID).contains(where: { $0.groupID == terms.groupID }) {
            throw StoreError.invalidTransactionState("Account \(request.accountID) already has a subscription in group \(terms.groupID); a back-dated purchase starts a new subscription. Clear the transactions first.")
        }
        return date
    }

    /// Brings a back-dated subscription up to now: with ``PurchaseRequest/RenewalBehavior/cancelImmediately`` its
    /// auto-renew goes off, then every period that ended since its purchase renews (or it expires).
    ///
    /// - Returns: the renewal transactions made.
    private func catchUp(backDated record: TransactionRecord, request: PurchaseRequest) throws -> [TransactionRecord] {
        guard request.purchaseDate != nil, record.state.isCompleted, record.productType == .autoRenewable else { return [] }
        if request.renewalBehavior == .cancelImmediately {
            var cancelled = try subscription(record.originalID)
            cancelled.autoRenewEnabled = false
            try storage.write(.saveSubscription(cancelled))
        }
        return try applyDueSubscriptionEvents()
    }

    /// What completing a purchase writes besides the transaction: the subscription it starts or changes, and the
    /// notification the app's server receives (`ONE_TIME_CHARGE` for a charged one-time purchase).
    ///
    /// - Returns: the writes; `record` is adjusted in place.
    func completionChanges(_ record: inout TransactionRecord) throws -> [StorageChange] {
        if catalog.product(record.productID)?.subscription != nil { return try subscribe(&record) }
        guard record.origin == .purchase, record.amountCharged > 0 else { return [] }
        return [.saveNotification(notification(.oneTimeCharge, about: record))]
    }

    // MARK: Subscriptions

    /// Starts, resumes or changes the subscription a completed purchase of an auto-renewable subscription buys.
    ///
    /// One subscription per group per account and app, as the App Store keeps it:
    /// - buying the product the account is subscribed to makes an uncharged repurchase of the current period (and
    ///   cancels a pending downgrade);
    /// - buying a higher level of the group, or another product of the same level and period, upgrades at once:
    ///   the current period ends now, its transaction `isUpgraded`, and a new period of the new product starts with
    ///   the same original transaction (`DID_CHANGE_RENEWAL_PREF`/`UPGRADE`);
    /// - buying a lower level, or a product of another period at the same level, downgrades at the next renewal:
    ///   the current period runs on, the subscription renews into the new product (`autoRenewProductId` changes now,
    ///   `DID_CHANGE_RENEWAL_PREF`/`DOWNGRADE`, or `OFFER_REDEEMED`/`DOWNGRADE` with an offer, which then prices the
    ///   new product's first period), and the purchase is an uncharged transaction of the new product that ends with
    ///   the current period;
    /// - buying into a group whose subscription lapsed resubscribes, keeping the original transaction
    ///   (`SUBSCRIBED`/`RESUBSCRIBE`), and its recent start date unless the lapse was longer than 60 days; otherwise a new subscription starts now (`SUBSCRIBED`/`INITIAL_BUY`).
    ///
    /// - Returns: the writes that record the subscription and its notification; `record` is adjusted in place.
    func subscribe(_ record: inout TransactionRecord) throws -> [StorageChange] {
        guard let terms = catalog.product(record.productID)?.subscription else { return [] }
        let existing = try storage.subscriptions(accountID: record.accountID, bundleID: record.bundleID)
            .first { $0.groupID == terms.groupID && $0.status != .revoked }
        // Redeeming a promotional offer, an offer code or a win-back offer is told as OFFER_REDEEMED; an
        // introductory offer as the purchase it comes with.
        let redeemed = record.offer.map { $0.type != .introductoryOffer } ?? false
        let startType: NotificationTypeV2 = redeemed ? .offerRedeemed : .subscribed
        let changeType: NotificationTypeV2 = redeemed ? .offerRedeemed : .didChangeRenewalPref
        guard var subscription = existing else {
            var subscription = SubscriptionRecord(
                id: record.id, accountID: record.accountID, bundleID: record.bundleID, groupID: terms.groupID,
                productID: record.productID, latestTransactionID: record.id, originalPurchaseDate: record.originalPurchaseDate,
                appAccountToken: record.appAccountToken, periodStartDate: record.purchaseDate, expiresDate: record.expiresDate ?? now
            )
            subscription.offer = record.offer
            subscription.commitment = record.commitment
            subscription.renewalBillingPlanType = record.billingPlanType == .monthly ? .monthly : nil
            subscription.advancedCommerceInfo = record.advancedCommerceRenewal
            return [.saveSubscription(subscription), .saveNotification(notification(startType, .initialBuy, about: record, subscription: subscription))]
        }
        record.originalID = subscription.id
        record.originalPurchaseDate = subscription.originalPurchaseDate
        guard subscription.isActive(at: now) else {
            subscription.productID = record.productID
            subscription.autoRenewProductID = record.productID
            subscription.autoRenewEnabled = true
            subscription.latestTransactionID = record.id
            // Apple's recentSubscriptionStartDate ignores lapses of paid service of 60 days or fewer.
            if record.purchaseDate.timeIntervalSince(subscription.expiresDate) > SubscriptionRecord.longestIgnoredLapse {
                subscription.recentStartDate = record.purchaseDate
            }
            subscription.periodStartDate = record.purchaseDate
            subscription.expiresDate = record.expiresDate ?? now
            subscription.status = .active
            subscription.expirationIntent = nil
            subscription.priceIncrease = nil
            subscription.offer = record.offer
            subscription.pendingOffer = nil
            subscription.commitment = record.commitment
            subscription.renewalBillingPlanType = record.billingPlanType == .monthly ? .monthly : nil
            subscription.advancedCommerceInfo = record.advancedCommerceRenewal
            subscription.clearBillingRetry()
            return [.saveSubscription(subscription), .saveNotification(notification(startType, .resubscribe, about: record, subscription: subscription))]
        }
        if subscription.productID == record.productID {
            // An offer redeemed for the current product starts at the next renewal.
            let offer = record.offer
            let cancelsDowngrade = subscription.autoRenewProductID != record.productID
            makeUncharged(&record, endingWith: subscription)
            record.purchaseDate = subscription.periodStartDate
            guard cancelsDowngrade || offer != nil else { return [] }
            subscription.autoRenewProductID = record.productID
            // An offer redeemed with the downgrade this cancels was for the other product.
            subscription.pendingOffer = offer ?? (cancelsDowngrade ? nil : subscription.pendingOffer)
            return [.saveSubscription(subscription), .saveNotification(notification(changeType, about: record, subscription: subscription))]
        }
        let current = catalog.product(subscription.productID)?.subscription
        let immediate = current.map { terms.level < $0.level || (terms.level == $0.level && terms.period == $0.period) } ?? true
        guard immediate else {
            // An offer code (or promotional offer) redeemed with a downgrade prices the new product's first period
            // (OFFER_REDEEMED/DOWNGRADE), as Apple's does.
            let offer = redeemed ? record.offer : nil
            // The plan chosen with the change bills the new product from the renewal into it.
            subscription.renewalBillingPlanType = record.billingPlanType == .monthly ? .monthly : nil
            makeUncharged(&record, endingWith: subscription)
            // The new product's service starts when the current period ends, never before, at any time rate.
            record.purchaseDate = subscription.expiresDate
            subscription.autoRenewProductID = record.productID
            subscription.autoRenewEnabled = true
            subscription.pendingOffer = offer
            return [.saveSubscription(subscription), .saveNotification(notification(changeType, .downgrade, about: record, subscription: subscription))]
        }
        var previous = try storage.knownTransaction(id: subscription.latestTransactionID)
        previous.isUpgraded = true
        subscription.productID = record.productID
        subscription.autoRenewProductID = record.productID
        subscription.autoRenewEnabled = true
        subscription.latestTransactionID = record.id
        subscription.periodStartDate = record.purchaseDate
        subscription.expiresDate = record.expiresDate ?? now
        subscription.status = .active
        subscription.expirationIntent = nil
        subscription.offer = record.offer
        subscription.pendingOffer = nil
        subscription.commitment = record.commitment
        subscription.renewalBillingPlanType = record.billingPlanType == .monthly ? .monthly : nil
        subscription.advancedCommerceInfo = nil
        subscription.clearBillingRetry()
        return [
            .saveTransaction(previous), .saveSubscription(subscription),
            .saveNotification(notification(changeType, .upgrade, about: record, subscription: subscription)),
        ]
    }

    /// Makes `record` an uncharged transaction of its product that ends with the subscription's current period: a
    /// repurchase of the current product, or a plan change that waits for the next renewal. An offer it claimed
    /// does not price it.
    private func makeUncharged(_ record: inout TransactionRecord, endingWith subscription: SubscriptionRecord) {
        record.origin = .repurchase
        record.amountCharged = 0
        record.unitPrice = catalog.product(record.productID)?.price ?? record.unitPrice
        record.offer = nil
        record.commitment = nil
        record.expiresDate = subscription.expiresDate
    }

    /// Applies every subscription event due by now, earliest first: each subscription renews at the end of each
    /// period while auto-renew is on, and expires at the end of the first period it does not renew.
    ///
    /// Running it twice changes nothing the second time: a subscription's next due date moves past now as it is
    /// handled, and the due dates are stored, so a store nobody ran for months catches up when next opened.
    ///
    /// - Returns: the renewal transactions made.
    func applyDueSubscriptionEvents() throws -> [TransactionRecord] {
        var renewals: [TransactionRecord] = []
        while true {
            let due = try storage.subscriptionsDue(by: now, limit: Self.dueBatchSize)
            guard !due.isEmpty else { return renewals }
            // The batch's accounts in one read, rather than one read per renewal; nothing a renewal writes changes them.
            let accounts = try storage.accounts(ids: due.map(\.accountID))
            for var subscription in due {
                let account = accounts[subscription.accountID] ?? Account(id: subscription.accountID, storefront: settings.storefront)
                renewals += try advance(&subscription, through: now, account: account)
                try storage.write(.saveSubscription(subscription))
            }
        }
    }

    /// Moves `subscription` of `account` through every event due up to `date`, in order: at a period's end it renews while
    /// auto-renew is on, fails to bill when renewal billing issues are on (entering billing retry, with a grace
    /// period when that is on), or expires; a grace period's end leaves it in billing retry, and billing retry's end
    /// expires it.
    private func advance(_ subscription: inout SubscriptionRecord, through date: Date, account: Account) throws -> [TransactionRecord] {
        var renewals: [TransactionRecord] = []
        while let due = subscription.nextEventDate, due <= date {
            switch subscription.status {
            case .gracePeriod:
                subscription.status = .billingRetry
                try storage.write(.saveNotification(notification(.gracePeriodExpired, about: subscription, at: due)))
                continue
            case .billingRetry:
                try expire(&subscription, at: due, because: .billingError)
                continue
            case .expired, .revoked:
                return renewals
            case .active:
                break
            }
            // The monthly billings of a commitment go on whatever auto-renew says; it decides the next commitment.
            let committed = subscription.commitment?.hasBillingsLeft == true
            guard committed || (subscription.autoRenewEnabled && subscription.priceIncrease != .pending) else {
                let declinedPrice = subscription.priceIncrease == .pending || subscription.priceIncrease == .declined
                try expire(&subscription, at: due, because: declinedPrice ? .customerDidNotConsentToPriceIncrease : .customerCancelled)
                continue
            }
            guard let product = catalog.product(subscription.nextBillingProductID), let terms = product.subscription else {
                try expire(&subscription, at: due, because: .productNotAvailable)
                continue
            }
            if let limit = settings.renewalLimit, subscription.renewalCount >= limit {
                try expire(&subscription, at: due, because: .other)
                continue
            }
            if settings.renewalBillingIssuesEnabled {
                let period = subscription.nextBilling(of: product, startingAt: due, timeRate: settings.timeRate)?.period ?? terms.period
                try failToRenew(&subscription, at: due, period: period)
                continue
            }
            renewals += try renew(&subscription, product: product, period: terms.period, startingAt: due, account: account)
        }
        return renewals
    }

    /// Starts the next period of `subscription` at `start` with a renewal transaction, and writes the transaction, its
    /// `DID_RENEW` notification (subtype `BILLING_RECOVERY` when billing recovered) and the family's shares of it.
    ///
    /// - Returns: the renewal, then its family shares.
    @discardableResult
    func renew(
        _ subscription: inout SubscriptionRecord, product: CatalogProduct, period: SubscriptionPeriod, startingAt start: Date,
        account: Account, subtype: Subtype? = nil
    ) throws -> [TransactionRecord] {
        guard let storefront = Storefront.named(account.storefront) else { throw Self.unknownStorefront(account.storefront) }
        let billing = subscription.nextBilling(of: product, startingAt: start, timeRate: settings.timeRate)
            ?? NextBilling(period: period, price: product.price)
        let id = try storage.allocateTransactionID()
        var renewal = TransactionRecord(
            id: id, originalID: subscription.id, accountID: subscription.accountID, bundleID: subscription.bundleID,
            productID: product.id, productType: .autoRenewable, quantity: 1, purchaseDate: start,
            originalPurchaseDate: subscription.originalPurchaseDate, storefront: storefront, unitPrice: billing.price,
            amountCharged: billing.price, origin: .renewal, state: .purchased, appAccountToken: subscription.appAccountToken
        )
        renewal.subscriptionGroupID = subscription.groupID
        // An Advanced Commerce subscription renews on the period its request (or a migration) set.
        let period = Self.advancedCommercePeriod(of: subscription) ?? billing.period
        renewal.expiresDate = settings.timeRate.endOfPeriod(period, startingAt: start)
        renewal.billingPlanType = billing.planType
        renewal.commitment = billing.commitment
        // A pay-as-you-go offer goes on for its periods, and an offer redeemed during the last period starts now; on
        // a change of product, only an offer redeemed for the new one (with a downgrade) does. Monthly billings of a
        // commitment take no offer.
        let offer = billing.commitment != nil ? nil : product.id == subscription.productID ? subscription.nextPeriodOffer : subscription.pendingOffer
        if let offer { apply(offer, to: &renewal) }
        subscription.commitment = billing.commitment
        applyAdvancedCommerceRenewal(&renewal, of: &subscription)
        subscription.offer = offer
        subscription.pendingOffer = nil
        subscription.productID = product.id
        subscription.latestTransactionID = id
        subscription.periodStartDate = start
        subscription.expiresDate = renewal.expiresDate ?? start
        subscription.renewalCount += 1
        subscription.priceIncrease = nil
        let shares = try familyShares(of: renewal)
        try storage.write([
            .saveTransaction(renewal),
            .saveNotification(notification(.didRenew, subtype, about: renewal, subscription: subscription, at: start)),
        ] + shares.map(StorageChange.saveTransaction))
        return [renewal] + shares
    }

    /// A renewal at `date` fails to bill: the subscription enters billing retry, in a grace period when that is on,
    /// and the app's server hears `DID_FAIL_TO_RENEW` (subtype `GRACE_PERIOD` with a grace period).
    private func failToRenew(_ subscription: inout SubscriptionRecord, at date: Date, period: SubscriptionPeriod) throws {
        subscription.expirationIntent = .billingError
        subscription.billingRetryEndDate = date.addingTimeInterval(settings.timeRate.billingRetryDuration)
        if settings.billingGracePeriodEnabled {
            subscription.status = .gracePeriod
            subscription.gracePeriodExpiresDate = date.addingTimeInterval(settings.timeRate.gracePeriod(for: period))
        } else {
            subscription.status = .billingRetry
            subscription.gracePeriodExpiresDate = nil
        }
        let subtype: Subtype? = settings.billingGracePeriodEnabled ? .gracePeriod : nil
        try storage.write(.saveNotification(notification(.didFailToRenew, subtype, about: subscription, at: date)))
    }

    /// Ends `subscription` at `date` and writes its `EXPIRED` notification, whose subtype says why.
    private func expire(_ subscription: inout SubscriptionRecord, at date: Date, because intent: ExpirationIntent) throws {
        subscription.status = .expired
        subscription.expirationIntent = intent
        subscription.expiresDate = min(subscription.expiresDate, date)
        subscription.clearBillingRetry()
        let subtype: Subtype? = switch intent {
        case .customerCancelled: .voluntary
        case .billingError: .billingRetry
        case .customerDidNotConsentToPriceIncrease: .priceIncrease
        case .productNotAvailable: .productNotForSale
        default: nil
        }
        try storage.write(.saveNotification(notification(.expired, subtype, about: subscription, at: date)))
    }

    /// The subscription with the original transaction identifier.
    func subscription(_ id: UInt64) throws -> SubscriptionRecord {
        guard let subscription = try storage.subscription(id: id) else {
            throw StoreError.unknownTransaction("No subscription has original transaction \(id) in this store. List them with `storekit subscriptions`.")
        }
        return subscription
    }

    /// Turns auto-renew on or off (`DID_CHANGE_RENEWAL_STATUS`). An expired or revoked subscription is not changed.
    func setAutoRenew(_ id: UInt64, enabled: Bool) throws -> SubscriptionRecord {
        var subscription = try subscription(id)
        guard subscription.status != .expired && subscription.status != .revoked else {
            throw StoreError.invalidTransactionState("Subscription \(id) is \(subscription.status.rawValue); only a subscription that has not lapsed can change its auto-renew. Buy it again to resubscribe.")
        }
        guard subscription.autoRenewEnabled != enabled else { return subscription }
        subscription.autoRenewEnabled = enabled
        if enabled, subscription.priceIncrease == .declined { subscription.priceIncrease = nil }
        try storage.write([
            .saveSubscription(subscription),
            .saveNotification(notification(.didChangeRenewalStatus, enabled ? .autoRenewEnabled : .autoRenewDisabled, about: subscription, at: now)),
        ])
        return subscription
    }

    /// Renews a subscription now, as `SKTestSession.forceRenewalOfSubscription` does: the current period ends
    /// now, a new one starts with a renewal transaction, and auto-renew is on.
    ///
    /// - Returns: the renewal, then its family shares.
    func renewNow(_ id: UInt64) throws -> [TransactionRecord] {
        var subscription = try subscription(id)
        guard subscription.status != .revoked else {
            throw StoreError.invalidTransactionState("Subscription \(id) was refunded; buy it again to resubscribe.")
        }
        guard let product = catalog.product(subscription.nextBillingProductID), let terms = product.subscription else {
            throw StoreError.unknownProduct("The store no longer sells \(subscription.nextBillingProductID), so subscription \(id) cannot renew.")
        }
        try endCurrentPeriodNow(of: subscription)
        subscription.status = .active
        subscription.expirationIntent = nil
        subscription.autoRenewEnabled = true
        subscription.clearBillingRetry()
        let renewal = try renew(&subscription, product: product, period: terms.period, startingAt: now, account: try account(subscription.accountID))
        try storage.write(.saveSubscription(subscription))
        return renewal
    }

    /// Extends an active subscription's current period by `days` days (`RENEWAL_EXTENDED`); at most twice in 365 days.
    func extendRenewalDate(_ id: UInt64, byDays days: Int) throws -> SubscriptionRecord {
        var subscription = try subscription(id)
        guard subscription.status == .active, subscription.isActive(at: now) else {
            throw StoreError.invalidTransactionState("Subscription \(id) is \(subscription.status.rawValue); only an active subscription's renewal date can be extended.")
        }
        let recent = (subscription.renewalExtensionDates ?? []).filter { $0 > now.addingTimeInterval(-365 * 86_400) }
        guard recent.count < 2 else {
            throw StoreError.invalidTransactionState("Subscription \(id) was extended twice in the last 365 days, the most the App Store allows.")
        }
        var latest = try transaction(subscription.latestTransactionID)
        let extended = subscription.expiresDate.addingTimeInterval(Double(days) * 86_400)
        latest.expiresDate = extended
        subscription.expiresDate = extended
        subscription.renewalExtensionDates = (subscription.renewalExtensionDates ?? []) + [now]
        try storage.write([
            .saveTransaction(latest), .saveSubscription(subscription),
            .saveNotification(notification(.renewalExtended, about: latest, subscription: subscription)),
        ])
        return subscription
    }

    /// Asks the customer to consent to a price increase (`PRICE_INCREASE`/`PENDING`): without consent by the
    /// renewal date the subscription expires, `expirationIntent` 3.
    func requestPriceIncreaseConsent(_ id: UInt64) throws -> SubscriptionRecord {
        var subscription = try subscription(id)
        guard subscription.status == .active || subscription.status == .gracePeriod, subscription.autoRenewEnabled else {
            throw StoreError.invalidTransactionState("Subscription \(id) is \(subscription.status.rawValue)\(subscription.autoRenewEnabled ? "" : " with auto-renew off"); only a subscription that will renew can be asked to consent to a price increase.")
        }
        guard subscription.priceIncrease != .pending else { return subscription }
        subscription.priceIncrease = .pending
        try storage.write([
            .saveSubscription(subscription),
            .saveNotification(notification(.priceIncrease, .pending, about: subscription, at: now)),
        ])
        return subscription
    }

    /// Marks every subscription that renews into a plan `catalog` prices higher than ``catalog`` as told of the
    /// increase (`priceIncreaseStatus` 1, `PRICE_INCREASE`/`ACCEPTED`): an increase that needs no consent. The
    /// renewal then charges the new price, as every renewal charges the catalog's.
    func acceptPriceIncreases(to new: Catalog) throws {
        var changes: [StorageChange] = []
        for account in try storage.accounts() {
            for var subscription in try storage.subscriptions(accountID: account.id, bundleID: nil) {
                guard subscription.autoRenewEnabled, [.active, .gracePeriod, .billingRetry].contains(subscription.status),
                      let before = catalog.product(subscription.autoRenewProductID)?.price,
                      let after = new.product(subscription.autoRenewProductID)?.price, after > before else { continue }
                subscription.priceIncrease = .agreed
                changes += [.saveSubscription(subscription), .saveNotification(notification(.priceIncrease, .accepted, about: subscription, at: now))]
            }
        }
        if !changes.isEmpty { try storage.write(changes) }
    }

    /// Records the customer's answer to a pending price increase: consent renews at the new price
    /// (`PRICE_INCREASE`/`ACCEPTED`); declining turns auto-renew off (`DID_CHANGE_RENEWAL_STATUS`/`AUTO_RENEW_DISABLED`)
    /// and the subscription expires at the period's end, `expirationIntent` 3.
    func answerPriceIncrease(_ id: UInt64, consented: Bool) throws -> SubscriptionRecord {
        var subscription = try subscription(id)
        guard subscription.priceIncrease == .pending else {
            throw StoreError.invalidTransactionState("Subscription \(id) has no price increase waiting for an answer. Request consent first (requestPriceIncreaseConsentForTransaction).")
        }
        subscription.priceIncrease = consented ? .agreed : .declined
        if !consented { subscription.autoRenewEnabled = false }
        let event = consented
            ? notification(.priceIncrease, .accepted, about: subscription, at: now)
            : notification(.didChangeRenewalStatus, .autoRenewDisabled, about: subscription, at: now)
        try storage.write([.saveSubscription(subscription), .saveNotification(event)])
        return subscription
    }

    /// Resolves the billing issue of a subscription in billing retry: billing recovers now and the subscription
    /// renews (`DID_RENEW`/`BILLING_RECOVERY`). Recovered in a grace period, the new period starts where the paid
    /// one ended, so the customer loses no time; recovered later, it starts now.
    ///
    /// - Returns: the renewal, then its family shares.
    func recoverBilling(_ id: UInt64) throws -> [TransactionRecord] {
        var subscription = try subscription(id)
        guard subscription.isInBillingRetry else {
            throw StoreError.invalidTransactionState("Subscription \(id) is \(subscription.status.rawValue), not in billing retry: there is no billing issue to resolve. Renewals fail only while renewal billing issues are on.")
        }
        guard let product = catalog.product(subscription.nextBillingProductID), let terms = product.subscription else {
            throw StoreError.unknownProduct("The store no longer sells \(subscription.nextBillingProductID), so subscription \(id) cannot renew.")
        }
        let start = subscription.status == .gracePeriod ? subscription.expiresDate : now
        subscription.status = .active
        subscription.expirationIntent = nil
        subscription.clearBillingRetry()
        let renewal = try renew(
            &subscription, product: product, period: terms.period, startingAt: start,
            account: try account(subscription.accountID), subtype: .billingRecovery
        )
        try storage.write(.saveSubscription(subscription))
        return renewal
    }

    /// Expires a subscription now, as `SKTestSession.expireSubscription` does: auto-renew off, the period ends now.
    func expireNow(_ id: UInt64) throws -> SubscriptionRecord {
        var subscription = try subscription(id)
        guard subscription.status != .expired && subscription.status != .revoked else { return subscription }
        try endCurrentPeriodNow(of: subscription)
        subscription.autoRenewEnabled = false
        try expire(&subscription, at: now, because: .customerCancelled)
        try storage.write(.saveSubscription(subscription))
        return subscription
    }

    /// Ends the subscription's current period now, as StoreKit Test's forced renewal and expiry do: its latest
    /// transaction, and the family's shares of it, expire now when they would have run longer.
    private func endCurrentPeriodNow(of subscription: SubscriptionRecord) throws {
        let latest = try transaction(subscription.latestTransactionID)
        let shares = try storage.transactions(matching: TransactionQuery(originalID: subscription.id))
            .filter { $0.origin == .familyShare && $0.purchaseDate == latest.purchaseDate }
        let ended = ([latest] + shares).compactMap { record -> TransactionRecord? in
            guard let expires = record.expiresDate, expires > now else { return nil }
            var record = record
            record.expiresDate = now
            return record
        }
        if !ended.isEmpty { try storage.write(ended.map(StorageChange.saveTransaction)) }
    }

    /// Moves a transaction from `expected` to `newState` (Ask to Buy answers, resolved billing issues).
    ///
    /// - Returns: the transaction, then the family shares a completed purchase creates.
    func complete(_ id: UInt64, from expected: TransactionState, to newState: TransactionState, action: String) throws -> [TransactionRecord] {
        var record = try transaction(id)
        guard record.state == expected else {
            throw StoreError.invalidTransactionState("Cannot \(action) for transaction \(id): it is \(record.state), not \(expected).")
        }
        record.state = newState
        var completion: [StorageChange] = []
        if newState.isCompleted {
            record.purchaseDate = now
            record.originalPurchaseDate = now
            if var commitment = record.commitment {
                // A monthly billing approved later starts its month, and its commitment, now.
                record.expiresDate = settings.timeRate.endOfPeriod(SubscriptionBillingPlan.monthlyBillingPeriod, startingAt: now)
                commitment.expiresDate = settings.timeRate.endOfCommitment(startingAt: now)
                record.commitment = commitment
            } else if let offer = record.offer {
                apply(offer, to: &record)
            } else if let period = catalog.product(record.productID)?.subscription?.period {
                record.expiresDate = settings.timeRate.endOfPeriod(period, startingAt: now)
            }
            completion = try completionChanges(&record)
        } else {
            record.amountCharged = 0
        }
        let shares = try familyShares(of: record)
        try storage.write([.saveTransaction(record)] + completion + shares.map(StorageChange.saveTransaction))
        return [record] + shares
    }

    /// Marks a transaction finished on a device.
    func finish(_ id: UInt64, deviceID: UUID) throws {
        let record = try transaction(id)
        guard record.state != .pendingApproval && record.state != .interrupted else {
            throw StoreError.invalidTransactionState("Transaction \(id) is \(record.state) and cannot be finished yet. Finish it once it is purchased, failed or declined.")
        }
        try storage.write(.markFinished(transactionID: id, deviceID: deviceID))
    }

    /// One new `.restore` transaction per restorable purchase of the account.
    func restore(accountID: String, bundleID: String, deviceID: UUID?) throws -> [TransactionRecord] {
        var restored: [TransactionRecord] = []
        for original in try storage.restorableTransactions(accountID: accountID, bundleID: bundleID) {
            var record = original
            record.id = try storage.allocateTransactionID()
            record.restoredTransactionID = original.id
            record.restoredPurchaseDate = original.purchaseDate
            record.purchaseDate = now
            record.amountCharged = 0
            record.origin = .restore
            record.deviceID = deviceID
            restored.append(record)
        }
        try storage.write(restored.map(StorageChange.saveTransaction))
        return restored
    }

    // MARK: Refunds and deletions

    /// Deletes a transaction and, for an original purchase, the restores and repurchases derived from it.
    func delete(_ id: UInt64) throws -> [UInt64] {
        let record = try transaction(id)
        var ids = [id]
        if record.id == record.originalID {
            ids += try storage.transactions(matching: TransactionQuery(originalID: id)).map(\.id).filter { $0 != id }
        }
        try storage.write(.deleteTransactions(ids))
        if record.id == record.originalID, record.productType == .autoRenewable {
            try storage.write(.deleteSubscriptions([id]))
        }
        return ids
    }

    // MARK: Accounts and Family Sharing

    /// Saves an account; returns the storefront it had before.
    func saveAccount(_ account: Account) throws -> String {
        guard Storefront.named(account.storefront) != nil else { throw Self.unknownStorefront(account.storefront) }
        let previous = try self.account(account.id)
        var account = account
        // The apps the account downloaded are the store's record, not something a caller edits.
        account.appDownloads = previous.appDownloads
        try storage.write(.saveAccount(account))
        return previous.storefront
    }

    /// Puts an account in a family and shares the family's purchases both ways.
    func joinFamily(accountID: String, familyID: String) throws -> (shared: [TransactionRecord], revoked: [TransactionRecord]) {
        var account = try self.account(accountID)
        guard account.familyID != familyID else { return ([], []) }
        let revoked = account.familyID == nil ? [] : try leaveFamily(accountID: accountID)
        account = try self.account(accountID)
        account.familyID = familyID
        try storage.write(.saveAccount(account))
        var shares: [TransactionRecord] = []
        for purchase in try storage.transactions(matching: TransactionQuery()) where purchase.isActive {
            if purchase.productType == .autoRenewable {
                // Only the current period of a subscription that still runs.
                guard let subscription = try storage.subscription(id: purchase.originalID),
                      subscription.latestTransactionID == purchase.id, subscription.isActive(at: now) else { continue }
            }
            let new = try familyShares(of: purchase)
            try storage.write(new.map(StorageChange.saveTransaction))
            shares += new
        }
        return (shares, revoked)
    }

    /// Takes an account out of its family and revokes what was shared with it and by it.
    func leaveFamily(accountID: String) throws -> [TransactionRecord] {
        var account = try self.account(accountID)
        guard account.familyID != nil else { return [] }
        let ownPurchases = Set(try storage.transactions(matching: TransactionQuery(accountID: accountID)).filter { $0.origin == .purchase }.map(\.originalID))
        var revoked = try storage.transactions(matching: TransactionQuery()).filter { record in
            record.origin == .familyShare && record.isActive
                && (record.accountID == accountID || ownPurchases.contains(record.originalID))
        }
        for index in revoked.indices {
            revoked[index].revocationDate = now
            revoked[index].revocationType = .familyRevoke
        }
        account.familyID = nil
        try storage.write([.saveAccount(account)] + revoked.map(StorageChange.saveTransaction))
        try storage.write(revoked.map { .saveNotification(notification(.revoke, about: $0)) })
        return revoked
    }

    /// The transactions that share a completed purchase with the buyer's family: one per other member that does
    /// not hold it yet, for family-shareable non-consumables, and for each paid period (the purchase and every
    /// renewal) of a family-shareable auto-renewable subscription. Allocates their identifiers; does not write them.
    ///
    /// - Parameter buyer: The buyer's account when the caller holds it already; read otherwise.
    func familyShares(of purchase: TransactionRecord, buyer: Account? = nil) throws -> [TransactionRecord] {
        let shareable = switch purchase.productType {
        case .nonConsumable: purchase.origin == .purchase
        case .autoRenewable: purchase.origin == .purchase || purchase.origin == .renewal
        case .consumable, .nonRenewable: false
        }
        guard shareable, purchase.isActive, catalog.product(purchase.productID)?.isFamilyShareable == true,
              let familyID = try (buyer ?? account(purchase.accountID)).familyID else { return [] }
        var shares: [TransactionRecord] = []
        for member in try storage.accounts() where member.familyID == familyID && member.id != purchase.accountID {
            let held = try storage.transactions(matching: TransactionQuery(accountID: member.id, originalID: purchase.originalID))
            // A non-consumable is shared once; a subscription once per period.
            guard !held.contains(where: { $0.origin == .familyShare && (purchase.productType == .nonConsumable || $0.purchaseDate == purchase.purchaseDate) })
            else { continue }
            var share = purchase
            share.id = try storage.allocateTransactionID()
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

    // MARK: Notifications

    /// A notification about a transaction, dated now unless `date` is given.
    func notification(
        _ type: NotificationTypeV2, _ subtype: Subtype? = nil, about record: TransactionRecord,
        subscription: SubscriptionRecord? = nil, at date: Date? = nil
    ) -> NotificationRecord {
        NotificationRecord(
            type: type, subtype: subtype, date: date ?? now, accountID: record.accountID, bundleID: record.bundleID,
            transactionID: record.id, originalTransactionID: record.originalID, subscription: subscription
        )
    }

    /// A notification about a subscription as it stands, carrying its latest transaction.
    func notification(_ type: NotificationTypeV2, _ subtype: Subtype? = nil, about subscription: SubscriptionRecord, at date: Date) -> NotificationRecord {
        NotificationRecord(
            type: type, subtype: subtype, date: date, accountID: subscription.accountID, bundleID: subscription.bundleID,
            transactionID: subscription.latestTransactionID, subscription: subscription
        )
    }

    // MARK: Constants

    /// `SKError.Code.paymentNotAllowed`.
    static let paymentNotAllowedCode = 4

    /// How many due subscriptions one catch-up step reads at a time.
    static let dueBatchSize = 512

    static func unknownStorefront(_ code: String) -> StoreError {
        StoreError.unknownStorefront("Unknown storefront \"\(code)\". Use an ISO 3166-1 alpha-3 code such as USA, GBR, FRA, DEU or JPN.")
    }
}

/// Reads the engine's operations and queries share.
extension StorageReader {
    /// The transaction with the identifier.
    ///
    /// - Throws: ``StoreError`` `unknownTransaction` when there is none.
    func knownTransaction(id: UInt64) throws -> TransactionRecord {
        guard let record = try transaction(id: id) else {
            throw StoreError.unknownTransaction("No transaction \(id) in this store. List them with `storekit tx list`.")
        }
        return record
    }

    /// The completed, unrevoked transactions of an account in an app.
    func activeTransactions(accountID: String, bundleID: String) throws -> [TransactionRecord] {
        try transactions(matching: TransactionQuery(accountID: accountID, bundleID: bundleID)).filter(\.isActive)
    }

    /// The transactions a device has finished, and those finished for every device.
    func transactionsFinished(on deviceID: UUID) throws -> Set<UInt64> {
        try finishedTransactionIDs(deviceID: deviceID).union(finishedTransactionIDs(deviceID: StoreDefaults.everyDevice))
    }

    /// What a restore would replay: the original purchase of each non-consumable the account still owns.
    ///
    /// For auto-renewable subscriptions, as StoreKit's restore does: every period the account paid for, the
    /// purchase and each renewal, whether or not the subscription is still active.
    func restorableTransactions(accountID: String, bundleID: String) throws -> [TransactionRecord] {
        var seen = Set<UInt64>()
        return try activeTransactions(accountID: accountID, bundleID: bundleID).filter { record in
            switch record.productType {
            case .nonConsumable: seen.insert(record.originalID).inserted
            case .autoRenewable: record.origin == .purchase || record.origin == .renewal
            case .consumable, .nonRenewable: false
            }
        }
    }
}
