import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import Testing

/// The life of an auto-renewable subscription on the store's clock: periods, renewals, auto-renew, expiry.
@Suite("Auto-renewable subscriptions")
struct SubscriptionTests {
    /// 2026-02-15T12:00:00Z, one calendar month after ``testStart``.
    let oneMonthLater = Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart)!

    @Test("A purchase starts a subscription whose period ends one calendar month later")
    func purchaseStartsSubscription() async throws {
        let (store, _) = try makeStore()
        let purchase = try await store.buy("monthly")
        #expect(purchase.expiresDate == oneMonthLater)
        let subscription = try #require(try await store.subscriptions(accountID: StoreDefaults.accountID).first)
        #expect(subscription.id == purchase.id)
        #expect(subscription.status == .active)
        #expect(subscription.autoRenewEnabled)
        #expect(subscription.expiresDate == oneMonthLater)
        #expect(subscription.nextEventDate == oneMonthLater)
    }

    @Test("At each period's end the subscription renews: a new transaction with the same original, dated at the period's start")
    func renewalsOnTheClock() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        let events = await store.events()
        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 3, to: testStart)!.addingTimeInterval(60))

        let transactions = try await store.transactions(TransactionQuery(originalID: purchase.id))
        #expect(transactions.count == 4)
        let renewals = Array(transactions.dropFirst())
        #expect(renewals.allSatisfy { $0.origin == .renewal && $0.originalID == purchase.id && $0.amountCharged == Decimal(string: "2.99")! })
        let starts = (1...3).map { Calendar.gregorianUTC.date(byAdding: .month, value: $0, to: testStart)! }
        #expect(renewals.map(\.purchaseDate) == starts)
        #expect(renewals.map(\.expiresDate) == (2...4).map { Calendar.gregorianUTC.date(byAdding: .month, value: $0, to: testStart)! })
        #expect(Set(transactions.map(\.id)).count == 4)

        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.renewalCount == 3)
        #expect(subscription.recentStartDate == testStart)
        #expect(subscription.latestTransactionID == renewals.last?.id)

        // Each renewal was announced, in order, after it was committed.
        var announced: [UInt64] = []
        for await event in events {
            if case .transactionUpdated(let record) = event { announced.append(record.id) }
            if announced.count == 3 { break }
        }
        #expect(announced == renewals.map(\.id))
    }

    @Test("Signed renewals say RENEWAL, keep the original transaction and carry their own period")
    func signedRenewal() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await clock.advance(to: oneMonthLater)
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: purchase.id)).last)
        let purchasePayload = store.transactionPayload(purchase)
        let renewalPayload = store.transactionPayload(renewal)
        #expect(purchasePayload.transactionReason == .purchase)
        #expect(renewalPayload.transactionReason == .renewal)
        #expect(renewalPayload.originalTransactionId == String(purchase.id))
        #expect(renewalPayload.transactionId == String(renewal.id))
        #expect(renewalPayload.webOrderLineItemId != purchasePayload.webOrderLineItemId)
        #expect(renewalPayload.purchaseDate == oneMonthLater)
        #expect(renewalPayload.expiresDate == Calendar.gregorianUTC.date(byAdding: .month, value: 2, to: testStart))
        #expect(renewalPayload.subscriptionGroupIdentifier == "G1")
    }

    @Test("Turning auto-renew off lets the period run out; the subscription expires at its end, voluntarily")
    func autoRenewOffThenExpiry() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await store.setAutoRenew(subscription: purchase.id, enabled: false)
        try await clock.advance(by: 10 * 86_400)
        #expect(try await store.subscription(forTransaction: purchase.id).status == .active)

        try await clock.advance(to: oneMonthLater.addingTimeInterval(86_400))
        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.status == .expired)
        #expect(subscription.expirationIntent == .customerCancelled)
        #expect(subscription.expiresDate == oneMonthLater)
        #expect(try await store.transactions(TransactionQuery(originalID: purchase.id)).count == 1)
        await #expect(throws: StoreError.invalidTransactionState) { try await store.setAutoRenew(subscription: purchase.id, enabled: true) }
    }

    @Test("Turning auto-renew back on before the period ends keeps the subscription renewing")
    func autoRenewBackOn() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await store.setAutoRenew(subscription: purchase.id, enabled: false)
        try await store.setAutoRenew(subscription: purchase.id, enabled: true)
        try await clock.advance(to: oneMonthLater)
        #expect(try await store.subscription(forTransaction: purchase.id).renewalCount == 1)
    }

    @Test("Buying again after expiry resubscribes: a new period now, the same original transaction")
    func resubscribe() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await store.expireSubscription(purchase.id)
        try await clock.advance(by: 5 * 86_400)
        let resubscription = try await store.buy("monthly")
        #expect(resubscription.originalID == purchase.id)
        #expect(resubscription.origin == .purchase)
        #expect(resubscription.purchaseDate == clock.now())
        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.status == .active)
        #expect(subscription.latestTransactionID == resubscription.id)
        #expect(subscription.recentStartDate == purchase.purchaseDate, "a lapse of 5 days does not restart the recent start date")
        #expect(subscription.expiresDate == resubscription.expiresDate)
    }

    @Test("recentSubscriptionStartDate ignores a lapse of 60 days or fewer, as Apple's does, and restarts after a longer one", arguments: [
        (59.0, false), (60.0, false), (60.5, true), (90.0, true),
    ])
    func recentStartDateIgnoresShortLapses(lapseDays: Double, restarts: Bool) async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await store.expireSubscription(purchase.id)
        let lapsedAt = try await store.subscription(forTransaction: purchase.id).expiresDate
        try await clock.advance(to: lapsedAt.addingTimeInterval(lapseDays * 86_400))
        let resubscription = try await store.buy("monthly")
        let renewalInfo = await store.renewalInfoPayload(try await store.subscription(forTransaction: purchase.id), storefront: "USA")
        #expect(renewalInfo.recentSubscriptionStartDate == (restarts ? resubscription.purchaseDate : purchase.purchaseDate))
    }

    @Test("Buying the product an account is subscribed to charges nothing and changes no period")
    func alreadySubscribed() async throws {
        let (store, _) = try makeStore()
        let purchase = try await store.buy("monthly")
        let again = try await store.buy("monthly")
        #expect(again.origin == .repurchase)
        #expect(again.amountCharged == 0)
        #expect(again.originalID == purchase.id)
        #expect(again.expiresDate == purchase.expiresDate)
        #expect(try await store.subscriptions(accountID: StoreDefaults.accountID).count == 1)
    }

    @Test("Forcing a renewal starts a new period now; expiring ends the period now with auto-renew off")
    func forceRenewalAndExpire() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await clock.advance(by: 3 * 86_400)
        let renewal = try await store.renewSubscription(purchase.id)
        #expect(renewal.purchaseDate == clock.now())
        #expect(renewal.originalID == purchase.id)
        #expect(renewal.expiresDate == Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: clock.now()))
        #expect(try await store.transaction(purchase.id).expiresDate == renewal.purchaseDate, "the forced renewal ends the period it cut short")

        try await clock.advance(by: 86_400)
        let expired = try await store.expireSubscription(purchase.id)
        #expect(expired.status == .expired)
        #expect(!expired.autoRenewEnabled)
        #expect(expired.expiresDate == clock.now())
        #expect(try await store.transaction(renewal.id).expiresDate == clock.now(), "expiring ends the current period's transaction now")
        try await clock.advance(by: 60 * 86_400)
        #expect(try await store.transactions(TransactionQuery(originalID: purchase.id)).count == 2)
    }

    @Test("A time rate shortens periods: at one renewal every ten seconds, a minute brings six renewals")
    func timeRate() async throws {
        let (store, clock) = try makeStore(settings: StoreSettings(timeRate: .oneRenewalEveryTenSeconds))
        let purchase = try await store.buy("monthly")
        #expect(purchase.expiresDate == testStart.addingTimeInterval(10))
        try await clock.advance(by: 60)
        #expect(try await store.transactions(TransactionQuery(originalID: purchase.id)).count == 7)
    }

    @Test("Refunding the current period revokes the subscription: it never renews again")
    func refundRevokes() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        _ = try await store.refund(transactionID: purchase.id)
        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.status == .revoked)
        try await clock.advance(by: 90 * 86_400)
        #expect(try await store.transactions(TransactionQuery(originalID: purchase.id)).count == 1)
    }

    @Test("A crossgrade to another period takes effect at the next renewal: the month runs out, then the year starts")
    func crossgradeToAnotherPeriod() async throws {
        let catalog = Catalog(products: testCatalog.products + [
            CatalogProduct(
                id: "yearly", type: .autoRenewable, price: 29,
                subscription: SubscriptionTerms(groupID: "G1", level: 1, period: SubscriptionPeriod(value: 1, unit: .year))
            ),
        ])
        let clock = VirtualClock(start: testStart)
        let store = StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: clock, signer: .ephemeral)
        let monthly = try await store.buy("monthly")
        let change = try await store.buy("yearly")
        #expect(change.originalID == monthly.id)
        #expect(change.amountCharged == 0)
        #expect(change.expiresDate == oneMonthLater)
        var subscription = try await store.subscription(forTransaction: monthly.id)
        #expect(subscription.productID == "monthly")
        #expect(subscription.autoRenewProductID == "yearly")
        #expect(try await store.notifications().last?.summary == "DID_CHANGE_RENEWAL_PREF/DOWNGRADE")

        try await clock.advance(to: oneMonthLater)
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: monthly.id)).last)
        #expect(renewal.productID == "yearly")
        #expect(renewal.purchaseDate == oneMonthLater)
        #expect(renewal.expiresDate == Calendar.gregorianUTC.date(byAdding: .year, value: 1, to: oneMonthLater))
        #expect(renewal.amountCharged == 29)
        subscription = try await store.subscription(forTransaction: monthly.id)
        #expect(subscription.productID == "yearly")
    }

    @Test("Deleting the purchase deletes the subscription and its renewals; clearing deletes every subscription")
    func deleteAndClear() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await clock.advance(to: oneMonthLater)
        try await store.deleteTransaction(purchase.id)
        #expect(try await store.transactions().isEmpty)
        #expect(try await store.subscriptions(accountID: StoreDefaults.accountID).isEmpty)

        _ = try await store.buy("monthly")
        try await store.clearTransactions()
        #expect(try await store.subscriptions(accountID: StoreDefaults.accountID).isEmpty)
    }

    @Test("A restore replays every period of a subscription, each pointing at the transaction it replays")
    func restoreReplaysEveryPeriod() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 2, to: testStart)!)
        let periods = try await store.transactions(TransactionQuery(originalID: purchase.id))
        #expect(periods.count == 3)
        let restored = try await store.restoreCompletedTransactions(accountID: StoreDefaults.accountID, bundleID: app, deviceID: nil)
        #expect(restored.map(\.restoredTransactionID) == periods.map(\.id))
        #expect(restored.map(\.restoredPurchaseDate) == periods.map(\.purchaseDate))
        #expect(restored.allSatisfy { $0.origin == .restore && $0.originalID == purchase.id && $0.amountCharged == 0 })
        #expect(restored.map(\.expiresDate) == periods.map(\.expiresDate))
    }

    /// A group with two levels: premium (1) above basic (2), and a second level-1 product of the same period.
    func levelsStore() -> (StoreEngine, VirtualClock) {
        let month = SubscriptionPeriod(value: 1, unit: .month)
        let catalog = Catalog(products: [
            CatalogProduct(id: "basic", type: .autoRenewable, price: Decimal(string: "2.99")!,
                           subscription: SubscriptionTerms(groupID: "G", level: 2, period: month)),
            CatalogProduct(id: "premium", type: .autoRenewable, price: Decimal(string: "5.99")!,
                           subscription: SubscriptionTerms(groupID: "G", level: 1, period: month)),
            CatalogProduct(id: "premium.family", type: .autoRenewable, price: Decimal(string: "7.99")!,
                           subscription: SubscriptionTerms(groupID: "G", level: 1, period: month)),
        ])
        let clock = VirtualClock(start: testStart)
        return (StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: clock, signer: .ephemeral), clock)
    }

    @Test("An upgrade takes effect at once: the current period's transaction is upgraded, a new period starts with the same original")
    func upgrade() async throws {
        let (store, clock) = levelsStore()
        let basic = try await store.buy("basic")
        try await clock.advance(by: 10 * 86_400)
        let premium = try await store.buy("premium")
        #expect(premium.originalID == basic.id)
        #expect(premium.origin == .purchase)
        #expect(premium.purchaseDate == clock.now())
        #expect(premium.expiresDate == Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: clock.now()))
        #expect(premium.amountCharged == Decimal(string: "5.99")!)
        #expect(try await store.transaction(basic.id).isUpgraded == true)
        let upgradedBasic = try await store.transaction(basic.id)
        #expect(store.transactionPayload(upgradedBasic).isUpgraded == true)

        let subscription = try await store.subscription(forTransaction: basic.id)
        #expect(subscription.productID == "premium")
        #expect(subscription.autoRenewProductID == "premium")
        try await clock.advance(to: premium.expiresDate!)
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: basic.id)).last)
        #expect(renewal.productID == "premium")
        #expect(renewal.origin == .renewal)
    }

    @Test("A crossgrade to a product of the same level and period takes effect at once")
    func crossgradeSamePeriod() async throws {
        let (store, _) = levelsStore()
        let premium = try await store.buy("premium")
        let family = try await store.buy("premium.family")
        #expect(family.originalID == premium.id)
        #expect(family.amountCharged == Decimal(string: "7.99")!)
        #expect(try await store.transaction(premium.id).isUpgraded == true)
        #expect(try await store.subscription(forTransaction: premium.id).productID == "premium.family")
        #expect(try await store.notifications().map(\.summary) == ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/UPGRADE"])
    }

    @Test("A downgrade takes effect at the next renewal: the higher level runs to the period's end, then renews as the lower")
    func downgrade() async throws {
        let (store, clock) = levelsStore()
        let premium = try await store.buy("premium")
        try await clock.advance(by: 5 * 86_400)
        let basic = try await store.buy("basic")
        #expect(basic.productID == "basic")
        #expect(basic.originalID == premium.id)
        #expect(basic.amountCharged == 0)
        #expect(basic.expiresDate == oneMonthLater)
        #expect(basic.purchaseDate == oneMonthLater, "the lower level starts when the current period ends")
        #expect(try await store.transaction(premium.id).isUpgraded == nil)
        let pending = try await store.subscription(forTransaction: premium.id)
        #expect(pending.productID == "premium")
        #expect(pending.autoRenewProductID == "basic")
        #expect(await store.renewalInfoPayload(pending, storefront: "USA").autoRenewProductId == "basic")

        try await clock.advance(to: oneMonthLater)
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: premium.id)).last)
        #expect(renewal.origin == .renewal)
        #expect(renewal.productID == "basic")
        #expect(renewal.amountCharged == Decimal(string: "2.99")!)
        #expect(try await store.notifications().map(\.summary) == ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_RENEW"])
    }

    @Test("Buying the current product again cancels a pending downgrade: the subscription renews as it was")
    func cancelDowngrade() async throws {
        let (store, clock) = levelsStore()
        let premium = try await store.buy("premium")
        _ = try await store.buy("basic")
        let again = try await store.buy("premium")
        #expect(again.amountCharged == 0)
        #expect(try await store.subscription(forTransaction: premium.id).autoRenewProductID == "premium")
        try await clock.advance(to: oneMonthLater)
        #expect(try await store.transactions(TransactionQuery(originalID: premium.id)).last?.productID == "premium")
        #expect(try await store.notifications().map(\.summary) == [
            "SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_CHANGE_RENEWAL_PREF", "DID_RENEW",
        ])
    }

    @Test("A renewal limit, as the sandbox's twelve, stops the subscription after that many renewals; none by default")
    func renewalLimit() async throws {
        let (store, clock) = try makeStore(settings: StoreSettings(timeRate: .oneRenewalEveryTenSeconds, renewalLimit: 12))
        let purchase = try await store.buy("monthly")
        try await clock.advance(by: 600)
        #expect(try await store.transactions(TransactionQuery(originalID: purchase.id)).count == 13)
        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.status == .expired)
        #expect(subscription.expirationIntent == .other)
        #expect(subscription.expiresDate == testStart.addingTimeInterval(130))
        #expect(try await store.notifications().last?.summary == "EXPIRED")

        let (unlimited, unlimitedClock) = try makeStore(settings: StoreSettings(timeRate: .oneRenewalEveryTenSeconds))
        let other = try await unlimited.buy("monthly")
        try await unlimitedClock.advance(by: 600)
        #expect(try await unlimited.subscription(forTransaction: other.id).renewalCount == 60)
    }
}
