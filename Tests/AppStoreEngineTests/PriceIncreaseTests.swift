import AppStoreEngine
import AppStoreFormats
import Foundation
import Testing

/// Price-increase consent: the request, the customer's answer or silence, and what each tells the app's server.
@Suite("Price-increase consent")
struct PriceIncreaseTests {
    let oneMonthLater = Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart)!

    @Test("Consent renews the subscription at the store's price; the renewal info says pending, then consented")
    func consentRenews() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        let pending = try await store.requestPriceIncreaseConsent(subscription: purchase.id)
        #expect(pending.priceIncrease == .pending)
        #expect(await store.renewalInfoPayload(pending, storefront: "USA").priceIncreaseStatus == .customerHasNotResponded)
        let agreed = try await store.answerPriceIncrease(subscription: purchase.id, consented: true)
        #expect(await store.renewalInfoPayload(agreed, storefront: "USA").priceIncreaseStatus == .customerConsentedOrWasNotifiedWithoutNeedingConsent)

        try await clock.advance(to: oneMonthLater)
        let renewed = try await store.subscription(forTransaction: purchase.id)
        #expect(renewed.status == .active)
        #expect(renewed.renewalCount == 1)
        #expect(renewed.priceIncrease == nil)
        #expect(try await store.notifications().map(\.summary) == [
            "SUBSCRIBED/INITIAL_BUY", "PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED", "DID_RENEW",
        ])
    }

    @Test("A catalog that raises a plan's price tells its subscribers without asking (PRICE_INCREASE/ACCEPTED), and the renewal charges the new price; a cut tells no one")
    func priceChangeNeedingNoConsent() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        func catalog(monthly price: String) -> Catalog {
            Catalog(products: testCatalog.products.map { product in
                var product = product
                if product.id == "monthly" { product.price = Decimal(string: price)! }
                return product
            })
        }
        try await store.announcePriceIncreases(to: catalog(monthly: "1.99"))
        #expect(try await store.notifications().map(\.summary) == ["SUBSCRIBED/INITIAL_BUY"], "a cut needs no notification")

        let raised = catalog(monthly: "3.99")
        try await store.announcePriceIncreases(to: raised)
        await store.replaceCatalog(raised)
        #expect(try await store.notifications().map(\.summary) == ["SUBSCRIBED/INITIAL_BUY", "PRICE_INCREASE/ACCEPTED"])
        let told = try await store.subscription(forTransaction: purchase.id)
        let renewalInfo = await store.renewalInfoPayload(told, storefront: "USA")
        #expect(renewalInfo.priceIncreaseStatus == .customerConsentedOrWasNotifiedWithoutNeedingConsent)
        #expect(renewalInfo.renewalPrice == 3990)

        try await clock.advance(to: oneMonthLater)
        let renewal = try #require(try await store.transactions().last)
        #expect(renewal.origin == .renewal && renewal.amountCharged == Decimal(string: "3.99")!)
        #expect(try await store.subscription(forTransaction: purchase.id).priceIncrease == nil)
        try await store.announcePriceIncreases(to: raised)
        #expect(try await store.notifications().last?.summary == "DID_RENEW", "the same price again tells no one")
    }

    @Test("Without an answer by the renewal date the subscription expires, expiration intent 3 (EXPIRED/PRICE_INCREASE)")
    func noAnswerExpires() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await store.requestPriceIncreaseConsent(subscription: purchase.id)
        try await clock.advance(to: oneMonthLater.addingTimeInterval(60))
        let expired = try await store.subscription(forTransaction: purchase.id)
        #expect(expired.status == .expired)
        #expect(expired.expirationIntent == .customerDidNotConsentToPriceIncrease)
        #expect(try await store.transactions(TransactionQuery(originalID: purchase.id)).count == 1)
        #expect(try await store.notifications().last?.summary == "EXPIRED/PRICE_INCREASE")
    }

    @Test("Declining turns auto-renew off at once and the subscription expires at the period's end because of the price")
    func declineExpires() async throws {
        let (store, clock) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await store.requestPriceIncreaseConsent(subscription: purchase.id)
        let declined = try await store.answerPriceIncrease(subscription: purchase.id, consented: false)
        #expect(!declined.autoRenewEnabled)
        #expect(await store.renewalInfoPayload(declined, storefront: "USA").priceIncreaseStatus == nil)
        try await clock.advance(to: oneMonthLater)
        #expect(try await store.subscription(forTransaction: purchase.id).expirationIntent == .customerDidNotConsentToPriceIncrease)
        #expect(try await store.notifications().map(\.summary) == [
            "SUBSCRIBED/INITIAL_BUY", "PRICE_INCREASE/PENDING", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "EXPIRED/PRICE_INCREASE",
        ])
    }

    @Test("Answers need a pending request, and a request needs a subscription that will renew")
    func refusals() async throws {
        let (store, _) = try makeStore()
        let purchase = try await store.buy("monthly")
        await #expect(throws: StoreError.invalidTransactionState) { try await store.answerPriceIncrease(subscription: purchase.id, consented: true) }
        try await store.setAutoRenew(subscription: purchase.id, enabled: false)
        await #expect(throws: StoreError.invalidTransactionState) { try await store.requestPriceIncreaseConsent(subscription: purchase.id) }
    }

    @Test("A forced renewal clears a pending price increase")
    func forcedRenewalClears() async throws {
        let (store, _) = try makeStore()
        let purchase = try await store.buy("monthly")
        try await store.requestPriceIncreaseConsent(subscription: purchase.id)
        try await store.renewSubscription(purchase.id)
        #expect(try await store.subscription(forTransaction: purchase.id).priceIncrease == nil)
    }
}
