import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import TestProcesses
import Testing

/// Monthly billing with a 12-month commitment (the `MONTHLY` billing plan of a `.storekit` 5.0 file), on the
/// store's virtual clock: twelve monthly billings, a new commitment after them, and a cancellation that stops only
/// the next commitment.
@Suite("Billing plans: monthly with a 12-month commitment")
struct BillingPlanTests {
    /// A yearly subscription billed 39.99 up front, or 3.50 a month over a 42.00 commitment, next to
    /// ``testCatalog``'s monthly subscription, which has no billing plans.
    static let catalog = Catalog(products: testCatalog.products + [
        CatalogProduct(
            id: "pro.yearly", type: .autoRenewable, price: Decimal(string: "39.99")!,
            subscription: SubscriptionTerms(
                groupID: "G2", level: 1, period: SubscriptionPeriod(value: 1, unit: .year),
                billingPlans: [
                    SubscriptionBillingPlan(type: .billedUpFront, price: Decimal(string: "39.99")!, commitmentPrice: Decimal(string: "39.99")!),
                    SubscriptionBillingPlan(type: .monthly, price: Decimal(string: "3.50")!, commitmentPrice: Decimal(42)),
                ]
            )
        ),
    ])

    func makeStore() -> (StoreEngine, VirtualClock) {
        let clock = VirtualClock(start: testStart)
        return (StoreEngine(tenantID: UUID().uuidString, catalog: Self.catalog, storage: InMemoryStorage(), clock: clock, signer: .ephemeral), clock)
    }

    func month(_ count: Int) -> Date { Calendar.gregorianUTC.date(byAdding: .month, value: count, to: testStart)! }

    func buyMonthly(_ store: StoreEngine, productID: String = "pro.yearly") async throws -> TransactionRecord {
        var request = PurchaseRequest(productID: productID, bundleID: app)
        request.billingPlanType = .monthly
        return try await store.purchase(request)
    }

    @Test("A monthly purchase bills the first instalment for a month and starts a 12-month commitment")
    func monthlyPurchaseStartsCommitment() async throws {
        let (store, _) = makeStore()
        let purchase = try await buyMonthly(store)
        #expect(purchase.amountCharged == Decimal(string: "3.50")!)
        #expect(purchase.expiresDate == month(1))
        #expect(purchase.billingPlanType == .monthly)
        #expect(purchase.commitment == BillingCommitment(billingPeriodNumber: 1, totalBillingPeriods: 12, expiresDate: month(12), price: 42))
        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.expiresDate == month(1))
        #expect(subscription.commitment?.billingPeriodNumber == 1)
        #expect(subscription.renewalBillingPlanType == .monthly)
    }

    @Test("Through a whole commitment on the clock: twelve monthly billings numbered 1 to 12, then a new commitment starts")
    func wholeCommitmentThenRenewal() async throws {
        let (store, clock) = makeStore()
        let purchase = try await buyMonthly(store)
        try await clock.advance(to: month(12).addingTimeInterval(60))

        let transactions = try await store.transactions(TransactionQuery(originalID: purchase.id))
        #expect(transactions.count == 13)
        #expect(transactions.map(\.purchaseDate) == (0...12).map(month))
        #expect(transactions.map(\.expiresDate) == (1...13).map(month))
        #expect(transactions.allSatisfy { $0.amountCharged == Decimal(string: "3.50")! && $0.billingPlanType == .monthly })
        #expect(transactions.map { $0.commitment?.billingPeriodNumber } == Array(1...12) + [1])
        #expect(transactions.prefix(12).allSatisfy { $0.commitment?.expiresDate == month(12) })
        #expect(transactions.last?.commitment == BillingCommitment(billingPeriodNumber: 1, totalBillingPeriods: 12, expiresDate: month(24), price: 42))

        let subscription = try await store.subscription(forTransaction: purchase.id)
        #expect(subscription.status == .active)
        #expect(subscription.commitment?.expiresDate == month(24))
        let renewals = try await store.notifications().filter { $0.type == .didRenew }
        #expect(renewals.count == 12)
    }

    @Test("Turning auto-renew off mid-commitment keeps the monthly billings until the commitment ends, then it expires")
    func cancellingMidCommitmentBillsUntilTheEnd() async throws {
        let (store, clock) = makeStore()
        let purchase = try await buyMonthly(store)
        try await clock.advance(to: month(3).addingTimeInterval(60))
        try await store.setAutoRenew(subscription: purchase.id, enabled: false)

        let subscription = try await store.subscription(forTransaction: purchase.id)
        let info = await store.renewalInfoPayload(subscription, storefront: "USA")
        #expect(info.autoRenewStatus == .on)
        #expect(info.renewalPrice == 3_500)
        #expect(info.renewalBillingPlanType == "MONTHLY")
        #expect(info.commitmentInfo?.commitmentAutoRenewStatus == .off)
        #expect(info.commitmentInfo?.commitmentRenewalDate == month(12))
        #expect(info.commitmentInfo?.commitmentRenewalPrice == nil)

        try await clock.advance(to: month(11).addingTimeInterval(60))
        let last = try await store.subscription(forTransaction: purchase.id)
        #expect(last.commitment?.billingPeriodNumber == 12)
        #expect(last.status == .active)
        #expect(await store.renewalInfoPayload(last, storefront: "USA").autoRenewStatus == .off)

        try await clock.advance(to: month(14))
        let transactions = try await store.transactions(TransactionQuery(originalID: purchase.id))
        #expect(transactions.count == 12)
        let ended = try await store.subscription(forTransaction: purchase.id)
        #expect(ended.status == .expired)
        #expect(ended.expirationIntent == .customerCancelled)
        #expect(ended.expiresDate == month(12))
        let expiry = try #require(try await store.notifications().last)
        #expect(expiry.type == .expired && expiry.subtype == .voluntary)
    }

    @Test("A committed subscription expired before its commitment ends (StoreKit Test's expiry) bills no more: its renewal info says auto-renew is off")
    func expiredMidCommitmentWillNotRenew() async throws {
        let (store, clock) = makeStore()
        let purchase = try await buyMonthly(store)
        try await clock.advance(to: month(2).addingTimeInterval(60))
        let expired = try await store.expireSubscription(purchase.id)
        #expect(expired.status == .expired)
        #expect(expired.commitment?.hasBillingsLeft == true)
        let info = await store.renewalInfoPayload(expired, storefront: "USA")
        #expect(info.autoRenewStatus == .off)
        #expect(info.renewalPrice == nil)

        try await clock.advance(to: month(6))
        #expect(try await store.transactions(TransactionQuery(originalID: purchase.id)).count == 3)
    }

    @Test("Renewal info of a committed subscription names the next commitment: date, plan, product and total price")
    func renewalInfoNamesTheNextCommitment() async throws {
        let (store, _) = makeStore()
        let purchase = try await buyMonthly(store)
        let subscription = try await store.subscription(forTransaction: purchase.id)
        let info = await store.renewalInfoPayload(subscription, storefront: "USA")
        #expect(info.autoRenewStatus == .on)
        #expect(info.renewalDate == month(1))
        #expect(info.renewalPrice == 3_500)
        #expect(info.renewalBillingPlanType == "MONTHLY")
        #expect(info.commitmentInfo == RenewalCommitmentInfo(
            commitmentAutoRenewProductId: "pro.yearly", commitmentAutoRenewStatus: .on, commitmentRenewalBillingPlanType: "MONTHLY",
            commitmentRenewalDate: month(12), commitmentRenewalPrice: 42_000
        ))
        let payload = store.transactionPayload(purchase)
        #expect(payload.billingPlanType == "MONTHLY")
        #expect(payload.price == 3_500)
        #expect(payload.commitmentInfo == TransactionCommitmentInfo(
            billingPeriodNumber: 1, commitmentExpiresDate: month(12), commitmentPrice: 42_000, totalBillingPeriods: 12
        ))
    }

    @Test("Without the option, a product with billing plans bills up front, BILLED_UPFRONT; one without plans is as before")
    func withoutTheOptionBillsUpFront() async throws {
        let (store, clock) = makeStore()
        let yearly = try await store.buy("pro.yearly")
        #expect(yearly.amountCharged == Decimal(string: "39.99")!)
        #expect(yearly.expiresDate == month(12))
        #expect(yearly.billingPlanType == .billedUpFront)
        #expect(yearly.commitment == nil)
        #expect(store.transactionPayload(yearly).billingPlanType == "BILLED_UPFRONT")
        #expect(store.transactionPayload(yearly).commitmentInfo == nil)
        let subscription = try await store.subscription(forTransaction: yearly.id)
        let info = await store.renewalInfoPayload(subscription, storefront: "USA")
        #expect(info.renewalBillingPlanType == "BILLED_UPFRONT")
        #expect(info.commitmentInfo == nil)
        try await clock.advance(to: month(12).addingTimeInterval(60))
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: yearly.id)).last)
        #expect(renewal.origin == .renewal && renewal.billingPlanType == .billedUpFront && renewal.amountCharged == Decimal(string: "39.99")!)

        let monthly = try await store.buy("monthly")
        #expect(monthly.billingPlanType == nil)
        #expect(store.transactionPayload(monthly).billingPlanType == nil)
    }

    @Test("Asking for the monthly plan of a product that has none fails and says which plans it has")
    func monthlyPlanMustExist() async throws {
        let (store, _) = makeStore()
        await #expect(throws: StoreError.invalidProductType) { try await buyMonthly(store, productID: "monthly") }
        await #expect(throws: StoreError.invalidProductType) { try await buyMonthly(store, productID: "coins") }
        #expect(try await store.transactions(TransactionQuery()).isEmpty)
    }

    @Test("A real 5.0 .storekit file's MONTHLY plan sells: 0.50 a month over a 6.00 commitment")
    func corpusFileMonthlyPlan() async throws {
        let repository = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = repository.deletingLastPathComponent().appending(path: "shared/corpus/storekit/RevenueCat__purchases-ios__UnitTestsConfiguration.storekit")
        let configuration = try StoreKitConfigurationFile.load(contentsOf: file)
        let catalog = Catalog(configuration: configuration)
        let terms = try #require(catalog.product("com.revenuecat.annual_with_commitment")?.subscription)
        #expect(terms.billingPlans == [
            SubscriptionBillingPlan(type: .billedUpFront, price: Decimal(string: "0.99")!, commitmentPrice: Decimal(string: "0.99")!),
            SubscriptionBillingPlan(type: .monthly, price: Decimal(string: "0.5")!, commitmentPrice: Decimal(6)),
        ])
        let clock = VirtualClock(start: testStart)
        let store = StoreEngine(tenantID: UUID().uuidString, catalog: catalog, storage: InMemoryStorage(), clock: clock, signer: .ephemeral)
        var request = PurchaseRequest(productID: "com.revenuecat.annual_with_commitment", bundleID: app)
        request.billingPlanType = .monthly
        let purchase = try await store.purchase(request)
        #expect(purchase.amountCharged == Decimal(string: "0.5")!)
        #expect(store.transactionPayload(purchase).commitmentInfo?.commitmentPrice == 6_000)
    }

    // MARK: Apple's library

    func milliseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    @Test("Apple's library verifies and parses a monthly billing's commitment and the renewal info's commitment fields")
    func appleLibraryParsesCommitments() async throws {
        let (store, clock) = makeStore()
        let purchase = try await buyMonthly(store)
        try await clock.advance(to: month(4).addingTimeInterval(60))
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: purchase.id)).last)

        let transaction = try await appleVerify("transaction", try store.signedTransaction(renewal), store: store)
        #expect(transaction["billingPlanType"] as? String == "MONTHLY")
        #expect(transaction["rawBillingPlanType"] as? String == "MONTHLY")
        #expect((transaction["price"] as? NSNumber)?.int64Value == 3_500)
        #expect(transaction["transactionReason"] as? String == "RENEWAL")
        let commitment = try #require(transaction["commitmentInfo"] as? [String: Any])
        #expect((commitment["billingPeriodNumber"] as? NSNumber)?.intValue == 5)
        #expect((commitment["totalBillingPeriods"] as? NSNumber)?.intValue == 12)
        #expect((commitment["commitmentExpiresDate"] as? NSNumber)?.int64Value == milliseconds(month(12)))
        #expect((commitment["commitmentPrice"] as? NSNumber)?.int64Value == 42_000)

        try await store.setAutoRenew(subscription: purchase.id, enabled: false)
        let info = try await appleVerify("renewal-info", try await store.signedRenewalInfo(subscription: purchase.id), store: store)
        #expect(info["renewalBillingPlanType"] as? String == "MONTHLY")
        #expect((info["autoRenewStatus"] as? NSNumber)?.intValue == 1)
        #expect((info["renewalPrice"] as? NSNumber)?.int64Value == 3_500)
        let renewalCommitment = try #require(info["commitmentInfo"] as? [String: Any])
        #expect(renewalCommitment["commitmentAutoRenewProductId"] as? String == "pro.yearly")
        #expect((renewalCommitment["commitmentAutoRenewStatus"] as? NSNumber)?.intValue == 0)
        #expect(renewalCommitment["commitmentRenewalBillingPlanType"] as? String == "MONTHLY")
        #expect((renewalCommitment["commitmentRenewalDate"] as? NSNumber)?.int64Value == milliseconds(month(12)))

        // The up-front plan of the same product, as Apple sends it.
        let (upFrontStore, _) = makeStore()
        let upFront = try await upFrontStore.buy("pro.yearly")
        let upFrontPayload = try await appleVerify("transaction", try upFrontStore.signedTransaction(upFront), store: upFrontStore)
        #expect(upFrontPayload["billingPlanType"] as? String == "BILLED_UPFRONT")
        #expect(upFrontPayload["commitmentInfo"] == nil || upFrontPayload["commitmentInfo"] is NSNull)
    }
}
