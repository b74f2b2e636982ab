import AppStoreEngine
import AppStoreFormats
import Foundation
import Testing

/// The notifications a store owes app servers: one record per change, written with the change.
@Suite("Notification outbox")
struct NotificationOutboxTests {
    let oneMonthLater = Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart)!

    @Test("A subscription's life, told in Apple's types and subtypes, dated when each change happened")
    func subscriptionLifecycle() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 2, to: testStart)!)
        try await store.setAutoRenew(subscription: purchase.id, enabled: false)
        try await store.setAutoRenew(subscription: purchase.id, enabled: false)
        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 4, to: testStart)!)
        let again = try await store.buy("monthly")
        _ = try await store.refund(transactionID: again.id)

        let notifications = try await store.notifications()
        #expect(notifications.map(\.summary) == [
            "SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
            "EXPIRED/VOLUNTARY", "SUBSCRIBED/RESUBSCRIBE", "REFUND",
        ])
        #expect(notifications.map(\.date) == [
            testStart, oneMonthLater, Calendar.gregorianUTC.date(byAdding: .month, value: 2, to: testStart)!,
            Calendar.gregorianUTC.date(byAdding: .month, value: 2, to: testStart)!,
            Calendar.gregorianUTC.date(byAdding: .month, value: 3, to: testStart)!,
            Calendar.gregorianUTC.date(byAdding: .month, value: 4, to: testStart)!,
            Calendar.gregorianUTC.date(byAdding: .month, value: 4, to: testStart)!,
        ])
        #expect(notifications.allSatisfy { $0.bundleID == app && $0.accountID == StoreDefaults.accountID })
        #expect(notifications.last?.transactionID == again.id)
        #expect(notifications.last?.subscription?.status == .revoked)
        #expect(Set(notifications.map(\.id)).count == notifications.count)
    }

    @Test("One-time purchases send ONE_TIME_CHARGE; an uncharged repurchase sends nothing; refunds send REFUND")
    func oneTimeCharges() async throws {
        let (store, _) = try makeStore()
        let coins = try await store.buy("coins", quantity: 3)
        let premium = try await store.buy("premium")
        _ = try await store.buy("premium")
        _ = try await store.refund(transactionID: premium.id)
        let notifications = try await store.notifications()
        #expect(notifications.map(\.summary) == ["ONE_TIME_CHARGE", "ONE_TIME_CHARGE", "REFUND"])
        #expect(notifications.map(\.transactionID) == [coins.id, premium.id, premium.id])
        #expect(notifications.allSatisfy { $0.subscription == nil })
    }

    @Test("Purchases that wait send their notification when they complete, not before")
    func askToBuy() async throws {
        let (store, _) = try makeStore(settings: StoreSettings(askToBuyEnabled: true))
        let pending = try await store.buy("monthly")
        #expect(try await store.notifications().isEmpty)
        _ = try await store.approveAskToBuy(transactionID: pending.id)
        #expect(try await store.notifications().map(\.summary) == ["SUBSCRIBED/INITIAL_BUY"])
    }

    @Test("Leaving a family revokes its shares with REVOKE, one per member's share")
    func familyRevoke() async throws {
        let (store, _) = try makeStore()
        _ = try await store.joinFamily(accountID: StoreDefaults.accountID, familyID: "F")
        _ = try await store.joinFamily(accountID: "kid", familyID: "F")
        _ = try await store.buy("premium")
        _ = try await store.leaveFamily(accountID: "kid")
        let revokes = try await store.notifications().filter { $0.type == .revoke }
        #expect(revokes.count == 1)
        #expect(revokes.first?.accountID == "kid")
    }

    @Test("Deleting a transaction deletes the notifications that carry it; clearing empties the outbox")
    func deletion() async throws {
        let (store, _) = try makeStore()
        let coins = try await store.buy("coins")
        _ = try await store.buy("premium")
        try await store.deleteTransaction(coins.id)
        #expect(try await store.notifications().map(\.transactionID).contains(coins.id) == false)
        #expect(try await store.notifications().count == 1)
        try await store.clearTransactions()
        #expect(try await store.notifications().isEmpty)
    }

    @Test("A query selects by app and date range and limits the count, oldest first")
    func query() async throws {
        let (store, clock) = try makeStore()
        _ = try await store.buy("monthly")
        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 3, to: testStart)!)
        let window = try await store.notifications(NotificationQuery(bundleID: app, startDate: oneMonthLater, endDate: Calendar.gregorianUTC.date(byAdding: .month, value: 3, to: testStart)!))
        #expect(window.map(\.summary) == ["DID_RENEW", "DID_RENEW"])
        #expect(try await store.notifications(NotificationQuery(limit: 1)).map(\.summary) == ["SUBSCRIBED/INITIAL_BUY"])
        #expect(try await store.notifications(NotificationQuery(bundleID: "com.example.other")).isEmpty)
    }
}
