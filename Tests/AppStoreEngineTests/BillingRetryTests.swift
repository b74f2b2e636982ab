import AppStoreEngine
import AppStoreFormats
import Foundation
import Testing

/// Renewals that fail to bill: billing retry, the grace period, recovery, and what each step tells the app's server.
@Suite("Billing retry and grace period")
struct BillingRetryTests {
    let oneMonthLater = Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart)!
    let day: TimeInterval = 86_400

    /// A store whose renewals fail to bill, with or without a grace period, and one monthly subscription in it.
    func failingStore(grace: Bool) async throws -> (StoreEngine, VirtualClock, TransactionRecord) {
        let (store, clock) = try makeStore(settings: StoreSettings(renewalBillingIssuesEnabled: true, billingGracePeriodEnabled: grace))
        return (store, clock, try await store.buy("monthly"))
    }

    @Test("Without a grace period a failed renewal enters billing retry: no service, expiration intent 2, no new transaction")
    func billingRetry() async throws {
        let (store, clock, purchase) = try await failingStore(grace: false)
        try await clock.advance(to: oneMonthLater.addingTimeInterval(60))
        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.status == .billingRetry)
        #expect(subscription.isInBillingRetry)
        #expect(!subscription.isActive(at: clock.now()))
        #expect(subscription.expirationIntent == .billingError)
        #expect(subscription.billingRetryEndDate == oneMonthLater.addingTimeInterval(60 * day))
        #expect(subscription.appleStatus == .billingRetry)
        #expect(try await store.transactions(TransactionQuery(originalID: purchase.id)).count == 1)

        let info = await store.renewalInfoPayload(subscription, storefront: "USA")
        #expect(info.isInBillingRetryPeriod == true)
        #expect(info.rawExpirationIntent == 2)
        #expect(info.gracePeriodExpiresDate == nil)
        let failure = try #require(try await store.notifications().last)
        #expect(failure.summary == "DID_FAIL_TO_RENEW")
        #expect(failure.date == oneMonthLater)
        #expect(failure.transactionID == purchase.id)
        #expect(failure.subscription?.status == .billingRetry)
    }

    @Test("When billing retry runs out, the subscription expires with a billing error (EXPIRED/BILLING_RETRY)")
    func billingRetryExpires() async throws {
        let (store, clock, purchase) = try await failingStore(grace: false)
        try await clock.advance(to: oneMonthLater.addingTimeInterval(61 * day))
        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.status == .expired)
        #expect(subscription.expirationIntent == .billingError)
        #expect(subscription.expiresDate == oneMonthLater)
        #expect(!subscription.isInBillingRetry)
        let notifications = try await store.notifications()
        #expect(notifications.map(\.summary) == ["SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW", "EXPIRED/BILLING_RETRY"])
        #expect(notifications.last?.date == oneMonthLater.addingTimeInterval(60 * day))
        await #expect(throws: StoreError.invalidTransactionState) { try await store.resolveIssue(transactionID: purchase.id) }
    }

    @Test("With a grace period the customer keeps the service for 16 days, then billing retry goes on without it")
    func gracePeriod() async throws {
        let (store, clock, purchase) = try await failingStore(grace: true)
        try await clock.advance(to: oneMonthLater.addingTimeInterval(day))
        var subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.status == .gracePeriod)
        #expect(subscription.isActive(at: clock.now()))
        #expect(subscription.gracePeriodExpiresDate == oneMonthLater.addingTimeInterval(16 * day))
        #expect(subscription.appleStatus == .billingGracePeriod)
        let info = await store.renewalInfoPayload(subscription, storefront: "USA")
        #expect(info.isInBillingRetryPeriod == true)
        #expect(info.gracePeriodExpiresDate == oneMonthLater.addingTimeInterval(16 * day))
        #expect(try await store.notifications().last?.summary == "DID_FAIL_TO_RENEW/GRACE_PERIOD")

        try await clock.advance(to: oneMonthLater.addingTimeInterval(17 * day))
        subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.status == .billingRetry)
        #expect(!subscription.isActive(at: clock.now()))
        let expiry = try #require(try await store.notifications().last)
        #expect(expiry.summary == "GRACE_PERIOD_EXPIRED")
        #expect(expiry.date == oneMonthLater.addingTimeInterval(16 * day))
    }

    @Test("Resolving the issue in the grace period renews from the period's end, so no time is lost (DID_RENEW/BILLING_RECOVERY)")
    func recoveryInGracePeriod() async throws {
        let (store, clock, purchase) = try await failingStore(grace: true)
        try await clock.advance(to: oneMonthLater.addingTimeInterval(3 * day))
        try await store.updateSettings { $0.renewalBillingIssuesEnabled = false }
        let renewal = try await store.resolveIssue(transactionID: purchase.id)
        #expect(renewal.origin == .renewal)
        #expect(renewal.originalID == purchase.id)
        #expect(renewal.purchaseDate == oneMonthLater)
        #expect(renewal.expiresDate == Calendar.gregorianUTC.date(byAdding: .month, value: 2, to: testStart))
        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.status == .active)
        #expect(subscription.expirationIntent == nil)
        #expect(subscription.gracePeriodExpiresDate == nil && subscription.billingRetryEndDate == nil)
        let recovery = try #require(try await store.notifications().last)
        #expect(recovery.summary == "DID_RENEW/BILLING_RECOVERY")
        #expect(recovery.transactionID == renewal.id)
    }

    @Test("Resolving the issue in billing retry renews from now; the subscription then renews normally")
    func recoveryInBillingRetry() async throws {
        let (store, clock, purchase) = try await failingStore(grace: false)
        try await clock.advance(to: oneMonthLater.addingTimeInterval(10 * day))
        try await store.updateSettings { $0.renewalBillingIssuesEnabled = false }
        let renewal = try await store.resolveIssue(transactionID: purchase.id)
        #expect(renewal.purchaseDate == clock.now())
        let next = try #require(renewal.expiresDate)
        try await clock.advance(to: next)
        #expect(try await store.transactions(TransactionQuery(originalID: purchase.id)).count == 3)
        #expect(try await store.subscription(forTransaction: purchase.id).status == .active)
    }

    @Test("A subscription with no billing issue has nothing to resolve")
    func nothingToResolve() async throws {
        let (store, _) = try makeStore()
        let purchase = try await store.buy("monthly")
        await #expect(throws: StoreError.invalidTransactionState) { try await store.resolveIssue(transactionID: purchase.id) }
    }

    @Test("Time rates shorten grace and retry: at one renewal every ten seconds, grace lasts 10 s and retry 20 s")
    func timeRateScalesGraceAndRetry() async throws {
        let (store, clock) = try makeStore(settings: StoreSettings(
            timeRate: .oneRenewalEveryTenSeconds, renewalBillingIssuesEnabled: true, billingGracePeriodEnabled: true
        ))
        let purchase = try await store.buy("monthly")
        try await clock.advance(by: 11)
        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.gracePeriodExpiresDate == testStart.addingTimeInterval(20))
        #expect(subscription.billingRetryEndDate == testStart.addingTimeInterval(30))
        try await clock.advance(by: 30)
        #expect(try await store.notifications().map(\.summary) == [
            "SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED", "EXPIRED/BILLING_RETRY",
        ])
    }
}
