import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import Testing

/// The refund loop as the App Store runs it: a request waits, the app's server hears CONSUMPTION_REQUEST and may send
/// consumption information, App Store review refunds (in full or prorated) or declines, and a refund can be reversed.
@Suite("Refund requests")
struct RefundRequestTests {
    let awaiting = StoreSettings(refundRequestsAwaitDecision: true)

    @Test("By default a refund request is decided at once, as before: refunded (REFUND) or declined (REFUND_DECLINED), nothing kept pending")
    func decidedAtOnceByDefault() async throws {
        let (store, _) = try makeStore()
        let coins = try await store.buy("coins")
        let kept = try await store.buy("coins")
        let revoked = try await store.requestRefund(transactionID: coins.id, accountID: StoreDefaults.accountID, approve: true)
        #expect(revoked.map(\.id) == [coins.id])
        try await store.requestRefund(transactionID: kept.id, accountID: StoreDefaults.accountID, approve: false)
        #expect(try await store.notifications().map(\.summary) == ["ONE_TIME_CHARGE", "ONE_TIME_CHARGE", "REFUND", "REFUND_DECLINED"])
        #expect(try await store.transaction(coins.id).refundRequest == nil)
        #expect(try await store.transaction(kept.id).isActive)
    }

    @Test("A request that awaits a decision stays pending, sends CONSUMPTION_REQUEST with its reason, keeps consumption information, and a prorated refund signs REFUND_PRORATED with its percentage")
    func pendingThenProrated() async throws {
        let (store, clock) = try makeStore(settings: awaiting)
        let coins = try await store.buy("coins")
        try await clock.advance(by: 60)
        let revoked = try await store.requestRefund(
            transactionID: coins.id, accountID: StoreDefaults.accountID, approve: true, reason: .unintendedPurchase
        )
        #expect(revoked.isEmpty, "nothing is refunded before a decision")
        var record = try await store.transaction(coins.id)
        #expect(record.isActive)
        #expect(record.refundRequest == RefundRequestRecord(requestDate: testStart.addingTimeInterval(60), reason: .unintendedPurchase))
        let request = try #require(try await store.notifications().last)
        #expect(request.summary == "CONSUMPTION_REQUEST")
        #expect(request.consumptionRequestReason == .unintendedPurchase)

        // Apple's data carries the reason, verified as the app's server reads it.
        let verifier = try JWSVerifier(rootCertificates: [try store.signer.certificateAuthority.jwsRootCertificateDER], bundleID: app, environment: .sandbox)
        let payload = try await verifier.verifyNotification(try await store.signedNotification(request)).get()
        #expect(payload.notificationType == .consumptionRequest)
        #expect(payload.data?.consumptionRequestReason == .unintendedPurchase)

        await #expect(throws: StoreError.invalidTransactionState, "one request waits at a time") {
            try await store.requestRefund(transactionID: coins.id, accountID: StoreDefaults.accountID, approve: true)
        }
        #expect(try await store.recordConsumptionInformation(transactionID: coins.id, version: 2, fields: #"{"customerConsented":true}"#))
        let other = try await store.buy("coins")
        #expect(try await !store.recordConsumptionInformation(transactionID: other.id, version: 1, fields: "{}"), "no request asked for it")
        #expect(try await store.transaction(other.id).refundRequest == nil)

        await #expect(throws: StoreError.invalidRefundDecision) {
            try await store.decideRefundRequest(transactionID: coins.id, .refundProrated(percentage: 100_001))
        }
        try await clock.advance(by: 3_600)
        let refunded = try await store.decideRefundRequest(transactionID: coins.id, .refundProrated(percentage: 25_000), reason: .refundedDueToIssue)
        #expect(refunded.map(\.id) == [coins.id])
        record = try await store.transaction(coins.id)
        #expect(record.revocationDate == testStart.addingTimeInterval(3_660))
        #expect(record.revocationType == .refundProrated && record.revocationPercentage == 25_000)
        #expect(record.refundRequest?.status == .refunded)
        #expect(record.refundRequest?.decisionDate == testStart.addingTimeInterval(3_660))
        #expect(record.refundRequest?.consumption.map(\.fields) == [#"{"customerConsented":true}"#])
        #expect(record.refundRequest?.consumption.first?.date == testStart.addingTimeInterval(60))
        let refund = try #require(try await store.notifications().last)
        #expect(refund.summary == "REFUND")
        let signed = try await verifier.verifyNotification(try await store.signedNotification(refund)).get()
        let transaction = try await verifier.verifyTransaction(try #require(signed.data?.signedTransactionInfo)).get()
        #expect(transaction.revocationType == .refundProrated)
        #expect(transaction.revocationPercentage == 25_000)
        #expect(transaction.revocationReason == .refundedDueToIssue)

        await #expect(throws: StoreError.invalidTransactionState, "a decided request is not decided again") {
            try await store.decideRefundRequest(transactionID: coins.id, .decline)
        }
    }

    @Test("A declined request sends REFUND_DECLINED and the purchase stays; the customer may ask again")
    func declined() async throws {
        let (store, _) = try makeStore(settings: awaiting)
        let pass = try await store.buy("season.pass")
        try await store.requestRefund(transactionID: pass.id, accountID: StoreDefaults.accountID, approve: false, reason: .other)
        let declined = try await store.decideRefundRequest(transactionID: pass.id, .decline)
        #expect(declined.map(\.id) == [pass.id])
        #expect(try await store.transaction(pass.id).isActive)
        #expect(try await store.transaction(pass.id).refundRequest?.status == .declined)
        #expect(try await store.notifications().map(\.summary) == ["ONE_TIME_CHARGE", "CONSUMPTION_REQUEST", "REFUND_DECLINED"])
        try await store.requestRefund(transactionID: pass.id, accountID: StoreDefaults.accountID, approve: true, reason: .legal)
        #expect(try await store.transaction(pass.id).refundRequest?.status == .pending)
        await #expect(throws: StoreError.invalidTransactionState, "only a refunded transaction can have its refund reversed") {
            try await store.reverseRefund(transactionID: pass.id)
        }
    }

    @Test("A non-consumable's request sends no CONSUMPTION_REQUEST; refunding it sends REFUND to the purchaser and REVOKE for each family member, and a reversal gives every one of them the purchase back with REFUND_REVERSED")
    func familyRefundAndReversal() async throws {
        let (store, _) = try makeStore(settings: awaiting)
        try await store.joinFamily(accountID: "parent", familyID: "smiths")
        try await store.joinFamily(accountID: "kid", familyID: "smiths")
        let bought = try await store.buy("premium", account: "parent")
        try await store.requestRefund(transactionID: bought.id, accountID: "parent", approve: true)
        #expect(try await store.notifications().map(\.summary) == ["ONE_TIME_CHARGE"], "Apple asks no consumption information for a non-consumable")
        let revoked = try await store.decideRefundRequest(transactionID: bought.id, .refundFull)
        #expect(revoked.map(\.accountID) == ["parent", "kid"])
        #expect(revoked.allSatisfy { $0.revocationType == .refundFull })
        let afterRefund = try await store.notifications()
        #expect(afterRefund.map(\.summary) == ["ONE_TIME_CHARGE", "REFUND", "REVOKE"])
        #expect(afterRefund.last?.accountID == "kid")
        #expect(try await store.ownedProducts(accountID: "kid", bundleID: app).isEmpty)

        let restored = try await store.reverseRefund(transactionID: bought.id)
        #expect(restored.map(\.accountID) == ["parent", "kid"])
        #expect(try await store.ownedProducts(accountID: "parent", bundleID: app).count == 1)
        #expect(try await store.ownedProducts(accountID: "kid", bundleID: app).count == 1)
        #expect(try await store.transaction(bought.id).refundRequest?.status == .reversed)
        #expect(try await store.notifications().last?.summary == "REFUND_REVERSED")
        let payload = store.transactionPayload(try await store.transaction(bought.id))
        #expect(payload.revocationDate == nil && payload.revocationType == nil && payload.revocationPercentage == nil)
    }

    @Test("A declined refund request for a subscription leaves it running to its period's end with auto-renew off, whether it awaited a decision or not; asking again sends no second DID_CHANGE_RENEWAL_STATUS")
    func declinedSubscriptionRequestStopsRenewal() async throws {
        for settings in [StoreSettings(), awaiting] {
            let (store, clock) = try makeStore(settings: settings)
            let bought = try await store.buy("monthly")
            try await store.requestRefund(transactionID: bought.id, accountID: StoreDefaults.accountID, approve: false)
            if settings.refundRequestsAwaitDecision { try await store.decideRefundRequest(transactionID: bought.id, .decline) }
            try await store.requestRefund(transactionID: bought.id, accountID: StoreDefaults.accountID, approve: false)
            let summaries = try await store.notifications().map(\.summary)
            #expect(summaries.filter { $0 == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED" }.count == 1, "\(summaries)")
            #expect(summaries.last == (settings.refundRequestsAwaitDecision ? "CONSUMPTION_REQUEST" : "REFUND_DECLINED"), "\(summaries)")
            let subscription = try await store.subscription(forTransaction: bought.id)
            #expect(subscription.status == .active && !subscription.autoRenewEnabled)
            try await clock.advance(to: try #require(bought.expiresDate).addingTimeInterval(1))
            #expect(try await store.subscription(forTransaction: bought.id).status == .expired, "it does not renew")
        }
    }

    @Test("Refunding a subscription's current period ends the subscription now; reversing it runs the period to its end and renewals go on")
    func subscriptionRefundAndReversal() async throws {
        let (store, clock) = try makeStore(settings: awaiting)
        let bought = try await store.buy("monthly")
        try await clock.advance(by: 86_400)
        try await store.requestRefund(transactionID: bought.id, accountID: StoreDefaults.accountID, approve: true, reason: .unsatisfiedWithPurchase)
        let sent = try await store.notifications().suffix(2)
        #expect(sent.map(\.summary) == ["DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "CONSUMPTION_REQUEST"], "Apple turns auto-renew off when a customer asks for a refund")
        let request = try #require(sent.last)
        #expect(request.subscription?.status == .active, "the notification carries the subscription as it stands")
        #expect(request.subscription?.autoRenewEnabled == false)
        try await store.decideRefundRequest(transactionID: bought.id, .refundFull)
        var subscription = try await store.subscription(forTransaction: bought.id)
        #expect(subscription.status == .revoked)
        #expect(subscription.expiresDate == testStart.addingTimeInterval(86_400))

        try await clock.advance(by: 86_400)
        try await store.reverseRefund(transactionID: bought.id)
        subscription = try await store.subscription(forTransaction: bought.id)
        #expect(subscription.status == .active && subscription.autoRenewEnabled)
        #expect(subscription.expiresDate == bought.expiresDate)
        let reversed = try #require(try await store.notifications().last)
        #expect(reversed.summary == "REFUND_REVERSED")
        #expect(reversed.subscription?.status == .active)
        try await clock.advance(to: try #require(bought.expiresDate).addingTimeInterval(1))
        #expect(try await store.notifications().last?.summary == "DID_RENEW")
    }
}
