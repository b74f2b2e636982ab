import AppStoreEngine
import AppStoreFormats
import Crypto
import Foundation
import StoreKitConfiguration
import TestProcesses
import Testing

/// Every subscription scenario of Apple's testing guides, run on the engine, and everything each one signs —
/// every transaction, every subscription's renewal info, every notification — and the receipts, checked by Apple's
/// app-store-server-library (`SignedDataVerifier`, `ReceiptUtility`) in one Python process per scenario.
@Suite("Subscription scenarios verified by Apple's library")
struct SubscriptionScenarioParityTests {
    static let month = SubscriptionPeriod(value: 1, unit: .month)
    static let signer = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "KEY1", bundleID: app)

    /// One group with two levels and a yearly plan, a plan with a free-week trial, a promotion and a code, and a
    /// family-shareable plan.
    static let catalog = Catalog(products: [
        CatalogProduct(id: "basic", type: .autoRenewable, price: Decimal(string: "2.99")!,
                       subscription: SubscriptionTerms(groupID: "G", level: 2, period: month)),
        CatalogProduct(id: "premium", type: .autoRenewable, price: Decimal(string: "5.99")!,
                       subscription: SubscriptionTerms(groupID: "G", level: 1, period: month)),
        CatalogProduct(id: "premium.family", type: .autoRenewable, price: Decimal(string: "7.99")!,
                       subscription: SubscriptionTerms(groupID: "G", level: 1, period: month)),
        CatalogProduct(id: "premium.yearly", type: .autoRenewable, price: 59,
                       subscription: SubscriptionTerms(groupID: "G", level: 1, period: SubscriptionPeriod(value: 1, unit: .year))),
        CatalogProduct(id: "trial", type: .autoRenewable, price: Decimal(string: "4.99")!, subscription: SubscriptionTerms(
            groupID: "T", level: 1, period: month,
            introductoryOffer: OfferDefinition(paymentMode: .freeTrial, period: SubscriptionPeriod(value: 1, unit: .week)),
            promotionalOffers: [OfferDefinition(paymentMode: .payAsYouGo, period: month, numberOfPeriods: 2, displayPrice: "1.99", offerID: "promo")],
            offerCodes: [OfferDefinition(paymentMode: .freeTrial, period: month, referenceName: "CODE")]
        )),
        CatalogProduct(id: "family", type: .autoRenewable, price: Decimal(string: "9.99")!, isFamilyShareable: true,
                       subscription: SubscriptionTerms(groupID: "F", level: 1, period: month)),
    ])

    /// A scenario: what it does to a fresh store, and the notifications it must leave, in order.
    struct Scenario: Sendable, CustomTestStringConvertible {
        let name: String
        let notifications: [String]
        let settings: StoreSettings
        let run: @Sendable (StoreEngine, VirtualClock) async throws -> Void
        var testDescription: String { name }

        init(_ name: String, _ notifications: [String], settings: StoreSettings = StoreSettings(), run: @escaping @Sendable (StoreEngine, VirtualClock) async throws -> Void) {
            self.name = name
            self.notifications = notifications
            self.settings = settings
            self.run = run
        }
    }

    static func months(_ count: Int, after date: Date = testStart) -> Date {
        Calendar.gregorianUTC.date(byAdding: .month, value: count, to: date)!
    }

    static let scenarios: [Scenario] = [
        Scenario("renewal", ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW"]) { store, clock in
            _ = try await store.buy("premium")
            try await clock.advance(to: months(1))
        },
        Scenario("auto-renew off, then expiry", ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/VOLUNTARY"]) { store, clock in
            let purchase = try await store.buy("premium")
            try await store.setAutoRenew(subscription: purchase.id, enabled: false)
            try await clock.advance(to: months(1))
        },
        Scenario("expiry now", ["SUBSCRIBED/INITIAL_BUY", "EXPIRED/VOLUNTARY"]) { store, _ in
            try await store.expireSubscription(try await store.buy("premium").id)
        },
        Scenario("upgrade", ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/UPGRADE"]) { store, clock in
            _ = try await store.buy("basic")
            try await clock.advance(by: 86_400)
            _ = try await store.buy("premium")
        },
        Scenario("downgrade", ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_RENEW"]) { store, clock in
            _ = try await store.buy("premium")
            _ = try await store.buy("basic")
            try await clock.advance(to: months(1))
        },
        Scenario("crossgrade of the same duration", ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/UPGRADE"]) { store, _ in
            _ = try await store.buy("premium")
            _ = try await store.buy("premium.family")
        },
        Scenario("crossgrade to another duration", ["SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "DID_RENEW"]) { store, clock in
            _ = try await store.buy("premium")
            _ = try await store.buy("premium.yearly")
            try await clock.advance(to: months(1))
        },
        Scenario("resubscribe", ["SUBSCRIBED/INITIAL_BUY", "EXPIRED/VOLUNTARY", "SUBSCRIBED/RESUBSCRIBE"]) { store, clock in
            try await store.expireSubscription(try await store.buy("premium").id)
            try await clock.advance(by: 86_400)
            _ = try await store.buy("premium")
        },
        Scenario("introductory offer", ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW"]) { store, clock in
            _ = try await store.buy("trial")
            try await clock.advance(by: 7 * 86_400)
        },
        Scenario("promotional offer", ["SUBSCRIBED/INITIAL_BUY", "EXPIRED/VOLUNTARY", "OFFER_REDEEMED/RESUBSCRIBE", "DID_RENEW"]) { store, clock in
            // Promotional offers are for current and lapsed subscribers.
            try await store.expireSubscription(try await store.buy("trial").id)
            let signed = try signer.signV1(productID: "trial", offerID: "promo", nonce: UUID(), timestamp: Int64(testStart.timeIntervalSince1970 * 1000))
            _ = try await store.purchase(PurchaseRequest(productID: "trial", bundleID: app, offer: .promotional(
                offerID: signed.offerID, keyID: signed.keyID, nonce: signed.nonce, timestamp: signed.timestamp, signature: signed.signature
            )))
            try await clock.advance(to: months(1))
        },
        Scenario("offer code", ["OFFER_REDEEMED/INITIAL_BUY"]) { store, _ in
            _ = try await store.redeemOfferCode("CODE", bundleID: app)
        },
        Scenario(
            "billing retry, recovered", ["SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW", "DID_RENEW/BILLING_RECOVERY"],
            settings: StoreSettings(renewalBillingIssuesEnabled: true)
        ) { store, clock in
            let purchase = try await store.buy("premium")
            try await clock.advance(to: months(1).addingTimeInterval(86_400))
            try await store.updateSettings { $0.renewalBillingIssuesEnabled = false }
            _ = try await store.resolveIssue(transactionID: purchase.id)
        },
        Scenario(
            "billing retry, expired", ["SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW", "EXPIRED/BILLING_RETRY"],
            settings: StoreSettings(renewalBillingIssuesEnabled: true)
        ) { store, clock in
            _ = try await store.buy("premium")
            try await clock.advance(to: months(1).addingTimeInterval(61 * 86_400))
        },
        Scenario(
            "grace period", ["SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED"],
            settings: StoreSettings(renewalBillingIssuesEnabled: true, billingGracePeriodEnabled: true)
        ) { store, clock in
            _ = try await store.buy("premium")
            try await clock.advance(to: months(1).addingTimeInterval(20 * 86_400))
        },
        Scenario("price increase accepted", ["SUBSCRIBED/INITIAL_BUY", "PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED", "DID_RENEW"]) { store, clock in
            let purchase = try await store.buy("premium")
            try await store.requestPriceIncreaseConsent(subscription: purchase.id)
            try await store.answerPriceIncrease(subscription: purchase.id, consented: true)
            try await clock.advance(to: months(1))
        },
        Scenario(
            "price increase declined",
            ["SUBSCRIBED/INITIAL_BUY", "PRICE_INCREASE/PENDING", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/PRICE_INCREASE"]
        ) { store, clock in
            let purchase = try await store.buy("premium")
            try await store.requestPriceIncreaseConsent(subscription: purchase.id)
            try await store.answerPriceIncrease(subscription: purchase.id, consented: false)
            try await clock.advance(to: months(1))
        },
        Scenario("refund", ["SUBSCRIBED/INITIAL_BUY", "REFUND"]) { store, _ in
            _ = try await store.refund(transactionID: try await store.buy("premium").id)
        },
        Scenario("Family Sharing", ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW"]) { store, clock in
            _ = try await store.joinFamily(accountID: StoreDefaults.accountID, familyID: "F")
            _ = try await store.joinFamily(accountID: "kid", familyID: "F")
            _ = try await store.buy("family")
            try await clock.advance(to: months(1))
            #expect(try await store.transactions(TransactionQuery(accountID: "kid")).count == 2)
        },
    ]

    @Test("Every transaction, renewal info, notification and receipt of the scenario verifies", arguments: scenarios)
    func scenarioVerifies(_ scenario: Scenario) async throws {
        let clock = VirtualClock(start: testStart)
        let store = StoreEngine(
            catalog: Self.catalog, settings: scenario.settings, storage: InMemoryStorage(), clock: clock, signer: .ephemeral,
            promotionalOfferKeys: [Self.signer.key]
        )
        try await scenario.run(store, clock)

        let notifications = try await store.notifications()
        #expect(notifications.map(\.summary) == scenario.notifications)

        var batch: [[String: String]] = []
        let transactions = try await store.transactions().filter(\.state.isCompleted)
        for record in transactions { batch.append(["kind": "transaction", "data": try store.signedTransaction(record)]) }
        var subscriptions: [SubscriptionRecord] = []
        for account in Set(transactions.map(\.accountID)).sorted() {
            subscriptions += try await store.subscriptions(accountID: account)
            let receipt = try await store.appReceipt(accountID: account, bundleID: app, deviceID: UUID())
            batch.append(["kind": "receipt", "data": receipt.base64EncodedString()])
        }
        for subscription in subscriptions {
            batch.append(["kind": "renewal-info", "data": try await store.signedRenewalInfo(subscription: subscription.id)])
        }
        for notification in notifications { batch.append(["kind": "notification", "data": try await store.signedNotification(notification)]) }

        let results = try await appleVerifyBatch(batch, store: store)
        #expect(results.count == batch.count)
        for (item, result) in zip(batch, results) {
            #expect(result["status"] as? String == "OK", "\(item["kind"]!): \(result)")
        }
        let decodedTypes = zip(batch, results).filter { $0.0["kind"] == "notification" }.map { _, result in
            let payload = result["payload"] as? [String: Any]
            return [payload?["rawNotificationType"] as? String, payload?["rawSubtype"] as? String].compactMap { $0 }.joined(separator: "/")
        }
        #expect(decodedTypes == scenario.notifications)
        let receiptIDs = zip(batch, results).filter { $0.0["kind"] == "receipt" }.map { ($0.1["payload"] as? [String: Any])?["transactionId"] as? String }
        #expect(receiptIDs.allSatisfy { $0 != nil }, "ReceiptUtility finds a transaction in every receipt")
        let decodedRenewals = zip(batch, results).filter { $0.0["kind"] == "renewal-info" }.compactMap { $0.1["payload"] as? [String: Any] }
        #expect(decodedRenewals.map { $0["originalTransactionId"] as? String } == subscriptions.map { String($0.id) })
    }
}
