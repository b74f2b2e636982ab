import AppStoreFormats
import StoreKitConfiguration
public import Foundation

extension StoreEngine {
    /// The auto-renewable subscriptions of an account, every app's unless `bundleID` is given.
    public func subscriptions(accountID: String, bundleID: String? = nil) async throws(StoreError) -> [SubscriptionRecord] {
        try await read { try $0.subscriptions(accountID: accountID, bundleID: bundleID) }
    }

    /// The subscription a transaction belongs to: the one whose original transaction is the transaction's original.
    ///
    /// - Throws: `StoreError.unknownTransaction` when the transaction does not exist, `invalidProductType` when
    ///   it is not of an auto-renewable subscription.
    public func subscription(forTransaction id: UInt64) async throws(StoreError) -> SubscriptionRecord {
        try await read { storage in
            let record = try storage.knownTransaction(id: id)
            guard let subscription = try storage.subscription(id: record.originalID) else {
                throw StoreError.invalidProductType("Transaction \(id) (\(record.productID)) is not part of an auto-renewable subscription.")
            }
            return subscription
        }
    }

    /// Turns a subscription's auto-renew on or off, as the customer does in their account settings.
    ///
    /// - Parameters:
    ///   - id: The subscription's original transaction identifier.
    ///   - enabled: Whether the subscription renews at the end of its period.
    /// - Throws: `StoreError.invalidTransactionState` for a subscription that is not active.
    @discardableResult
    public func setAutoRenew(subscription id: UInt64, enabled: Bool) async throws(StoreError) -> SubscriptionRecord {
        try await perform { try $0.setAutoRenew(id, enabled: enabled) }
    }

    /// Renews a subscription now: the current period ends, a new one starts with a renewal transaction, and
    /// auto-renew is on (`SKTestSession.forceRenewalOfSubscription`).
    ///
    /// - Parameter id: The subscription's original transaction identifier.
    /// - Returns: the renewal transaction.
    @discardableResult
    public func renewSubscription(_ id: UInt64) async throws(StoreError) -> TransactionRecord {
        let records = try await perform { try $0.renewNow(id) }
        for record in records { publish(.transactionUpdated(record)) }
        return records[0]
    }

    /// Expires a subscription now: auto-renew off and the period ends (`SKTestSession.expireSubscription`).
    ///
    /// - Parameter id: The subscription's original transaction identifier.
    @discardableResult
    public func expireSubscription(_ id: UInt64) async throws(StoreError) -> SubscriptionRecord {
        try await perform { try $0.expireNow(id) }
    }

    /// Asks the customer to consent to a price increase of a subscription (`SKTestSession.requestPriceIncreaseConsentForTransaction`).
    ///
    /// The renewal info says `priceIncreaseStatus` 0 until the customer answers; without consent by the renewal
    /// date, the subscription expires (`expirationIntent` 3). Apps hear of the request through
    /// ``StoreEvent/priceIncreaseConsentRequested(_:)``.
    ///
    /// - Parameter id: The subscription's original transaction identifier.
    /// - Throws: `StoreError.invalidTransactionState` for a subscription that will not renew.
    @discardableResult
    public func requestPriceIncreaseConsent(subscription id: UInt64) async throws(StoreError) -> SubscriptionRecord {
        let subscription = try await perform { try $0.requestPriceIncreaseConsent(id) }
        publish(.priceIncreaseConsentRequested(subscription))
        return subscription
    }

    /// Answers a pending price increase: consent renews the subscription at the new price; declining turns
    /// auto-renew off and the subscription expires at the period's end, `expirationIntent` 3.
    ///
    /// - Parameters:
    ///   - id: The subscription's original transaction identifier.
    ///   - consented: Whether the customer agrees to the new price.
    /// - Throws: `StoreError.invalidTransactionState` when no price increase waits for an answer.
    @discardableResult
    public func answerPriceIncrease(subscription id: UInt64, consented: Bool) async throws(StoreError) -> SubscriptionRecord {
        try await perform { try $0.answerPriceIncrease(id, consented: consented) }
    }

    /// Whether an account may still get the introductory offer of a subscription product: it is not subscribed to
    /// the product's group now and never redeemed an introductory offer in it (`SKProduct`'s
    /// `isEligibleForIntroOffer`, `Product.SubscriptionInfo.isEligibleForIntroOffer`).
    ///
    /// - Throws: `StoreError.unknownProduct`, or `invalidProductType` for a product that is not an auto-renewable subscription.
    public func isEligibleForIntroductoryOffer(productID: String, accountID: String, bundleID: String) async throws(StoreError) -> Bool {
        let catalog = try await catalog { $0.product(productID) != nil }
        guard let product = catalog.product(productID) else {
            throw StoreError.unknownProduct("No product \"\(productID)\" in this store.")
        }
        guard let groupID = product.subscription?.groupID else {
            throw StoreError.invalidProductType("\(productID) is not an auto-renewable subscription; only subscriptions have introductory offers.")
        }
        return try await perform { try $0.isEligibleForIntroductoryOffer(accountID: accountID, bundleID: bundleID, groupID: groupID) }
    }

    /// Redeems an offer code outside any app, as the App Store's code redemption does: the code's product is
    /// bought with the offer (`OFFER_REDEEMED`), and the app's queue delivers the transaction at its next look.
    ///
    /// - Parameters:
    ///   - code: The code offer's reference name (or offer identifier) in the configuration.
    ///   - accountID: The customer's account.
    ///   - bundleID: The app the subscription is for.
    /// - Throws: `StoreError.invalidOfferIdentifier` when no product has the code, `ineligibleForOffer` when the
    ///   code's eligibility excludes the account.
    @discardableResult
    public func redeemOfferCode(_ code: String, accountID: String = StoreDefaults.accountID, bundleID: String) async throws(StoreError) -> TransactionRecord {
        func hasCode(_ product: CatalogProduct) -> Bool {
            product.subscription?.offerCodes.contains { $0.referenceName == code || $0.offerID == code } == true
        }
        let catalog = try await catalog { $0.products.contains(where: hasCode) }
        guard let product = catalog.products.first(where: hasCode) else {
            let codes = catalog.products.flatMap { $0.subscription?.offerCodes.compactMap { $0.referenceName ?? $0.offerID } ?? [] }
            throw StoreError.invalidOfferIdentifier("No product has the offer code \"\(code)\". The configuration's codes: \(codes.isEmpty ? "none" : codes.joined(separator: ", ")).")
        }
        return try await purchase(PurchaseRequest(productID: product.id, accountID: accountID, bundleID: bundleID, offer: .code(code)))
    }

    /// The notifications the store owes app servers, oldest first: one per change Apple reports (purchases,
    /// renewals, expiries, billing problems, auto-renew and plan changes, refunds, revocations), kept in the
    /// tenant's outbox in the same storage transaction as the change.
    public func notifications(_ query: NotificationQuery = NotificationQuery()) async throws(StoreError) -> [NotificationRecord] {
        try await read { try $0.notifications(matching: query) }
    }

    // MARK: Developer actions

    /// Extends an active subscription's current period, as the App Store Server API's "Extend a subscription renewal
    /// date" does: the period and its transaction end `days` days later, the renewal moves with them, and the app's
    /// server hears `RENEWAL_EXTENDED`.
    ///
    /// - Parameters:
    ///   - id: The subscription's original transaction identifier.
    ///   - days: How many days to add, 1 to 90.
    /// - Returns: the extended subscription.
    /// - Throws: `StoreError.invalidQuantity` for a number of days outside 1–90; `invalidTransactionState` for a
    ///   subscription that is not active, or that was extended twice in the last 365 days.
    @discardableResult
    public func extendRenewalDate(subscription id: UInt64, byDays days: Int) async throws(StoreError) -> SubscriptionRecord {
        guard (1...90).contains(days) else {
            throw StoreError.invalidQuantity("A renewal date extends by 1 to 90 days, not \(days).")
        }
        return try await perform { try $0.extendRenewalDate(id, byDays: days) }
    }

    /// Extends the current period of every active subscription to a product in an app, as the App Store Server
    /// API's "Extend subscription renewal dates for all active subscribers" does; each extended subscription's
    /// server hears `RENEWAL_EXTENDED`.
    ///
    /// - Parameters:
    ///   - productID: The subscription product.
    ///   - bundleID: The app.
    ///   - days: How many days to add, 1 to 90.
    ///   - storefronts: Only subscribers in these storefronts (ISO 3166-1 alpha-3); every storefront when empty.
    /// - Returns: how many subscriptions were extended, and how many could not be (extended twice in 365 days
    ///   already).
    public func extendRenewalDates(
        productID: String, bundleID: String, byDays days: Int, storefronts: Set<String> = []
    ) async throws(StoreError) -> (succeeded: Int, failed: Int) {
        guard (1...90).contains(days) else {
            throw StoreError.invalidQuantity("A renewal date extends by 1 to 90 days, not \(days).")
        }
        return try await perform { operation in
            try Self.extendRenewalDates(operation, productID: productID, bundleID: bundleID, byDays: days, storefronts: storefronts)
        }
    }

    /// Runs a mass renewal-date extension request and records it with its outcome, in one storage transaction, as
    /// the App Store Server API's "Extend Subscription Renewal Dates for All Active Subscribers" does: each extended
    /// subscription's server hears `RENEWAL_EXTENDED`, each one that cannot be extended `RENEWAL_EXTENSION`/`FAILURE`,
    /// and the app's server `RENEWAL_EXTENSION`/`SUMMARY` with the counts when the request completes.
    /// ``massExtension(productID:requestIdentifier:)`` then answers its status through any engine on the storage.
    ///
    /// - Parameters:
    ///   - requestIdentifier: The developer's identifier for the request.
    ///   - productID: The subscription product.
    ///   - bundleID: The app.
    ///   - days: How many days to add, 1 to 90.
    ///   - reasonCode: Apple's `extendReasonCode`, 0 to 3.
    ///   - storefronts: Only subscribers in these storefronts (ISO 3166-1 alpha-3); every storefront when empty.
    /// - Returns: The request as recorded, complete.
    /// - Throws: ``StoreError/invalidQuantity`` for days out of range; nothing changes then.
    public func massExtendRenewalDates(
        requestIdentifier: String, productID: String, bundleID: String, byDays days: Int, reasonCode: Int, storefronts: Set<String> = []
    ) async throws(StoreError) -> MassExtensionRecord {
        guard (1...90).contains(days) else {
            throw StoreError.invalidQuantity("A renewal date extends by 1 to 90 days, not \(days).")
        }
        return try await perform { operation in
            let (succeeded, failed) = try Self.extendRenewalDates(
                operation, productID: productID, bundleID: bundleID, byDays: days, storefronts: storefronts, notifyFailures: true
            )
            let record = MassExtensionRecord(
                requestIdentifier: requestIdentifier, productID: productID, bundleID: bundleID, storefrontCountryCodes: storefronts.sorted(),
                extendByDays: days, extendReasonCode: reasonCode, requestDate: operation.now, completeDate: operation.now,
                succeededCount: succeeded, failedCount: failed
            )
            try operation.storage.write([
                .saveMassExtension(record),
                .saveNotification(NotificationRecord(
                    type: .renewalExtension, subtype: .summary, date: operation.now, accountID: "", bundleID: bundleID, transactionID: 0,
                    massExtension: record
                )),
            ])
            return record
        }
    }

    /// The mass renewal-date extension request of a product with the identifier, made through any engine on the
    /// storage; `nil` when none was.
    ///
    /// - Throws: ``StoreError/storageFailure`` when the storage cannot be read.
    public func massExtension(productID: String, requestIdentifier: String) async throws(StoreError) -> MassExtensionRecord? {
        try await read { try $0.massExtension(productID: productID, requestIdentifier: requestIdentifier) }
    }

    /// Extends every active subscription of a product in an app; with `notifyFailures`, each one that cannot be extended
    /// gets `RENEWAL_EXTENSION`/`FAILURE`. Returns how many were extended and how many not.
    private static func extendRenewalDates(
        _ operation: StoreOperation, productID: String, bundleID: String, byDays days: Int, storefronts: Set<String>, notifyFailures: Bool = false
    ) throws -> (succeeded: Int, failed: Int) {
        var succeeded = 0, failed = 0
        for account in try operation.storage.accounts() where storefronts.isEmpty || storefronts.contains(account.storefront) {
            for subscription in try operation.storage.subscriptions(accountID: account.id, bundleID: bundleID)
            where subscription.productID == productID && subscription.status == .active && subscription.isActive(at: operation.now) {
                do {
                    _ = try operation.extendRenewalDate(subscription.id, byDays: days)
                    succeeded += 1
                } catch let error as StoreError where error == .invalidTransactionState {
                    failed += 1
                    if notifyFailures {
                        try operation.storage.write(.saveNotification(operation.notification(.renewalExtension, .failure, about: subscription, at: operation.now)))
                    }
                }
            }
        }
        return (succeeded, failed)
    }

    /// Sets the app account token of every transaction of a purchase, and of its subscription, as the App Store Server
    /// API's "Set app account token" does.
    ///
    /// - Parameters:
    ///   - token: The app's UUID for the customer.
    ///   - originalTransactionID: The purchase's original transaction identifier.
    /// - Returns: the transactions changed.
    /// - Throws: `StoreError.unknownTransaction` when no transaction has that original.
    @discardableResult
    public func setAppAccountToken(_ token: UUID, originalTransactionID: UInt64) async throws(StoreError) -> [TransactionRecord] {
        try await perform { operation in
            var records = try operation.storage.transactions(matching: TransactionQuery(originalID: originalTransactionID))
            guard !records.isEmpty else {
                throw StoreError.unknownTransaction("No transaction has original transaction \(originalTransactionID).")
            }
            for index in records.indices where records[index].origin != .familyShare { records[index].appAccountToken = token }
            try operation.storage.write(records.map(StorageChange.saveTransaction))
            if var subscription = try operation.storage.subscription(id: originalTransactionID) {
                subscription.appAccountToken = token
                try operation.storage.write(.saveSubscription(subscription))
            }
            return records
        }
    }
}
