import AppStoreEngine
import AppStoreFormats
import Foundation
import Synchronization
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
        // Version 7 UUIDs (RFC 9562) carry their notification's date, so they sort as the outbox was written.
        let identifiers = notifications.map(\.id.uuidString)
        #expect(identifiers.allSatisfy { Array($0)[14] == "7" && "89AB".contains(Array($0)[19]) }, "\(identifiers)")
        let milliseconds = identifiers.map { UInt64($0.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16) }
        #expect(milliseconds == notifications.map { UInt64($0.date.timeIntervalSince1970 * 1_000) })
        let sameDate = (0..<1_000).map { _ in
            NotificationRecord(type: .oneTimeCharge, date: testStart, accountID: "a", bundleID: app, transactionID: 1).id
        }
        #expect(Set(sameDate).count == 1_000, "74 random bits tell identifiers of one millisecond apart")
    }

    @Test(
        "A quiet outbox subscription, a sender's that found nowhere to send to, is signalled once for the notifications purchases record, not for each, until the destinations change"
    )
    func quietSubscriptionIsSignalledOnce() async throws {
        let (store, _) = try makeStore()
        let subscription = await store.outboxUpdates()
        final class Count: Sendable { let value = Mutex(0) }
        let count = Count()
        let listener = Task { for await _ in subscription.signals { count.value.withLock { $0 += 1 } } }
        defer { listener.cancel() }
        /// Waits, a few seconds at most, until the listener counted `expected` signals or more; returns the count.
        func signals(atLeast expected: Int) async throws -> Int {
            for _ in 0..<300 where count.value.withLock({ $0 }) < expected { try await Task.sleep(for: .milliseconds(10)) }
            return count.value.withLock { $0 }
        }
        _ = try await store.buy("coins")
        #expect(try await signals(atLeast: 1) == 1)

        await store.quietOutboxSignals(for: subscription.id)
        _ = try await store.buy("coins")
        #expect(try await signals(atLeast: 2) == 2)
        _ = try await store.buy("coins")
        _ = try await store.buy("coins")
        // Each purchase would have been signalled by now.
        try await Task.sleep(for: .milliseconds(200))
        #expect(count.value.withLock { $0 } == 2)

        // A change of the destinations is signalled (perhaps more than once), and so is each purchase again.
        try await store.setNotificationDestinations(NotificationDestinations(defaultURL: URL(string: "http://127.0.0.1:9/notifications")))
        let afterChange = try await signals(atLeast: 3)
        #expect(afterChange >= 3)
        try await Task.sleep(for: .milliseconds(100))
        let settled = count.value.withLock { $0 }
        _ = try await store.buy("coins")
        #expect(try await signals(atLeast: settled + 1) > settled)
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

/// Senders sharing one outbox: each notification is claimed by one sender at a time, in Apple's order per original
/// transaction, and the claims of a sender that died lapse on the senders' wall clock.
@Suite("Notification outbox claims")
struct NotificationOutboxClaimTests {
    let senderA = UUID(), senderB = UUID()
    let wallStart = Date(timeIntervalSince1970: 1_800_000_000)

    /// A store whose outbox holds a subscription's SUBSCRIBED and two DID_RENEW, and a consumable's ONE_TIME_CHARGE.
    func storeWithOutbox() async throws -> StoreEngine {
        let (store, clock) = try makeStore()
        _ = try await store.buy("monthly")
        _ = try await store.buy("coins")
        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 2, to: testStart)!)
        return store
    }

    func attempt(_ notifications: [NotificationRecord], result: String, at date: Date) -> [NotificationRecord] {
        notifications.map { notification in
            var attempted = notification
            attempted.delivery.record(.init(date: date, result: result))
            return attempted
        }
    }

    @Test("A second sender claims none of what the first holds, nor the later notifications of its originals")
    func claimsExcludeOtherSenders() async throws {
        let store = try await storeWithOutbox()
        let written = try await store.notifications().map(\.summary)
        #expect(written == ["SUBSCRIBED/INITIAL_BUY", "ONE_TIME_CHARGE", "DID_RENEW", "DID_RENEW"])
        let expiry = wallStart.addingTimeInterval(60)

        let first = try await store.claimDueNotifications(limit: 1, for: senderA, until: expiry, at: wallStart)
        #expect(first.map(\.summary) == ["SUBSCRIBED/INITIAL_BUY"])
        // The renewals wait behind the SUBSCRIBED the first sender holds; the one-time charge is free.
        let second = try await store.claimDueNotifications(limit: 10, for: senderB, until: expiry, at: wallStart)
        #expect(second.map(\.summary) == ["ONE_TIME_CHARGE"])
        let senderC = UUID()
        #expect(try await store.claimDueNotifications(limit: 10, for: senderC, until: expiry, at: wallStart).isEmpty)
        #expect(try await store.nextNotificationAttemptDate(for: senderC, at: wallStart) == nil)
        #expect(try await store.saveDelivery(of: attempt(second, result: "SUCCESS", at: testStart)[0], by: senderB))

        // Once the first sender saved its attempt, the renewals are the second sender's to take, in order.
        #expect(try await store.saveDelivery(of: attempt(first, result: "SUCCESS", at: testStart)[0], by: senderA))
        let renewals = try await store.claimDueNotifications(limit: 10, for: senderB, until: expiry, at: wallStart)
        #expect(renewals.map(\.summary) == ["DID_RENEW", "DID_RENEW"])
        #expect(renewals.map(\.date) == renewals.map(\.date).sorted())
        // A sender cannot save an outcome for a notification it does not hold.
        #expect(try await !store.saveDelivery(of: attempt(renewals, result: "SUCCESS", at: testStart)[0], by: senderA))
    }

    @Test("A failed attempt holds back the later notifications of its original until its retry, for every sender")
    func failureHoldsBackLaterNotifications() async throws {
        let store = try await storeWithOutbox()
        let expiry = wallStart.addingTimeInterval(60)
        let first = try await store.claimDueNotifications(limit: 1, for: senderA, until: expiry, at: wallStart)
        let failed = attempt(first, result: "UNSUCCESSFUL_HTTP_RESPONSE_CODE", at: store.clock.now())[0]
        let retry = try #require(failed.delivery.nextAttemptDate)
        try await store.saveDelivery(of: failed, by: senderA)

        let claimed = try await store.claimDueNotifications(limit: 10, for: senderB, until: expiry, at: wallStart)
        #expect(claimed.map(\.summary) == ["ONE_TIME_CHARGE"])
        try await store.saveDelivery(of: attempt(claimed, result: "SUCCESS", at: store.clock.now())[0], by: senderB)
        // The renewals were moved behind the retry, so nothing is due before it for either sender.
        let pending = try await store.notifications().filter { $0.type == .didRenew }
        #expect(pending.map(\.delivery.nextAttemptDate) == [retry, retry])
        #expect(try await store.nextNotificationAttemptDate(for: senderB, at: wallStart) == retry)
    }

    @Test("The claims of a sender that died lapse at their expiry on the wall clock, and another sender takes over")
    func lapsedClaimsAreTakenOver() async throws {
        let store = try await storeWithOutbox()
        let held = try await store.claimDueNotifications(limit: 10, for: senderA, until: wallStart.addingTimeInterval(60), at: wallStart)
        #expect(held.count == 4)
        #expect(try await store.claimDueNotifications(limit: 10, for: senderB, until: wallStart.addingTimeInterval(120), at: wallStart.addingTimeInterval(59)).isEmpty)
        let takenOver = try await store.claimDueNotifications(
            limit: 10, for: senderB, until: wallStart.addingTimeInterval(120), at: wallStart.addingTimeInterval(60)
        )
        #expect(takenOver.map(\.id) == held.map(\.id))
        // The first sender, back from the dead, cannot overwrite what is now the second's.
        #expect(try await !store.saveDelivery(of: attempt(held, result: "SUCCESS", at: testStart)[0], by: senderA))
        #expect(try await store.saveDelivery(of: attempt(takenOver, result: "SUCCESS", at: testStart)[0], by: senderB))
    }
}
