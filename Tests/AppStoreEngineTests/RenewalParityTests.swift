import AppStoreEngine
import AppStoreFormats
import Foundation
import TestProcesses
import Testing

/// Subscriptions signed by the engine, verified by code we did not write: Apple's app-store-server-library
/// (Python) with `SignedDataVerifier`. Fails, rather than skips, when python3 or the library is missing.
@Suite("Subscriptions verified by Apple's library")
struct RenewalParityTests {
    @Test("Apple's SignedDataVerifier accepts a renewal the store made on its clock, with RENEWAL and the original transaction")
    func appleLibraryAcceptsRenewal() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart)!)
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: purchase.id)).last)
        #expect(renewal.origin == .renewal)

        let payload = try await appleVerify("transaction", try store.signedTransaction(renewal), store: store)
        #expect(payload["transactionId"] as? String == String(renewal.id))
        #expect(payload["originalTransactionId"] as? String == String(purchase.id))
        #expect(payload["transactionReason"] as? String == "RENEWAL")
        let expires = try #require(renewal.expiresDate)
        #expect((payload["expiresDate"] as? NSNumber)?.int64Value == Int64(expires.timeIntervalSince1970 * 1000))
    }

    @Test("Apple's SignedDataVerifier accepts renewal info as auto-renew is on, off, and the subscription expired")
    func appleLibraryAcceptsRenewalInfo() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        let oneMonthLater = Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart)!

        let renewing = try await appleVerify("renewal-info", try await store.signedRenewalInfo(subscription: purchase.id), store: store)
        #expect(renewing["originalTransactionId"] as? String == String(purchase.id))
        #expect(renewing["autoRenewProductId"] as? String == "monthly")
        #expect((renewing["autoRenewStatus"] as? NSNumber)?.intValue == 1)
        #expect((renewing["renewalDate"] as? NSNumber)?.int64Value == Int64(oneMonthLater.timeIntervalSince1970 * 1000))
        #expect((renewing["renewalPrice"] as? NSNumber)?.int64Value == 2_990)
        #expect((renewing["recentSubscriptionStartDate"] as? NSNumber)?.int64Value == Int64(testStart.timeIntervalSince1970 * 1000))

        try await store.setAutoRenew(subscription: purchase.id, enabled: false)
        let cancelled = try await appleVerify("renewal-info", try await store.signedRenewalInfo(subscription: purchase.id), store: store)
        #expect((cancelled["autoRenewStatus"] as? NSNumber)?.intValue == 0)
        #expect((cancelled["renewalPrice"] as? NSNumber) == nil)

        try await clock.advance(to: oneMonthLater.addingTimeInterval(60))
        let expired = try await appleVerify("renewal-info", try await store.signedRenewalInfo(subscription: purchase.id), store: store)
        #expect((expired["expirationIntent"] as? NSNumber)?.intValue == 1)
        #expect((expired["renewalDate"] as? NSNumber) == nil)
    }

    @Test("Apple's SignedDataVerifier accepts the outbox's notifications: a failed renewal in a grace period, with its renewal info and status")
    func appleLibraryAcceptsNotifications() async throws {
        let (store, clock) = try makeStore(settings: StoreSettings(renewalBillingIssuesEnabled: true, billingGracePeriodEnabled: true))
        let purchase = try await store.buy("monthly")
        let oneMonthLater = Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart)!
        try await clock.advance(to: oneMonthLater.addingTimeInterval(60))
        let failure = try #require(try await store.notifications().last)

        let payload = try await appleVerify("notification", try await store.signedNotification(failure), store: store)
        #expect(payload["rawNotificationType"] as? String == "DID_FAIL_TO_RENEW")
        #expect(payload["rawSubtype"] as? String == "GRACE_PERIOD")
        #expect(payload["notificationUUID"] as? String == failure.id.uuidString.lowercased())
        #expect(payload["version"] as? String == "2.0")
        let data = try #require(payload["data"] as? [String: Any])
        #expect(data["bundleId"] as? String == app)
        #expect((data["rawStatus"] as? NSNumber)?.intValue == 4)

        let transaction = try await appleVerify("transaction", try #require(data["signedTransactionInfo"] as? String), store: store)
        #expect(transaction["transactionId"] as? String == String(purchase.id))
        let renewalInfo = try await appleVerify("renewal-info", try #require(data["signedRenewalInfo"] as? String), store: store)
        #expect(renewalInfo["isInBillingRetryPeriod"] as? Bool == true)
        #expect((renewalInfo["rawExpirationIntent"] as? NSNumber)?.intValue == 2)
        let graceEnd = oneMonthLater.addingTimeInterval(16 * 86_400)
        #expect((renewalInfo["gracePeriodExpiresDate"] as? NSNumber)?.int64Value == Int64(graceEnd.timeIntervalSince1970 * 1000))
    }
}
