import AppStoreEngine
import AppStoreFormats
import Crypto
import Foundation
import StoreKitConfiguration
import Testing

/// Subscription offers: introductory offers once per group, promotional offers with signatures checked the way the
/// App Store checks them, offer codes and win-back offers, and the fields each leaves in signed data and receipts.
@Suite("Subscription offers")
struct OfferTests {
    static let month = SubscriptionPeriod(value: 1, unit: .month)
    static let week = SubscriptionPeriod(value: 1, unit: .week)
    static let signer = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "KEY1", bundleID: app)

    /// A group with a monthly plan (free-week trial, a comeback promotion, a code, a win-back offer), a yearly plan
    /// paid up front for its first six months, and a quarterly plan paid as you go for three months.
    static let catalog = Catalog(products: [
        CatalogProduct(id: "monthly", type: .autoRenewable, price: Decimal(string: "4.99")!, subscription: SubscriptionTerms(
            groupID: "G", level: 1, period: month,
            introductoryOffer: OfferDefinition(paymentMode: .freeTrial, period: week),
            promotionalOffers: [
                OfferDefinition(paymentMode: .payAsYouGo, period: month, numberOfPeriods: 2, displayPrice: "1.99", offerID: "comeback"),
                OfferDefinition(paymentMode: .payAsYouGo, period: month, displayPrice: "9.99", offerID: "too.dear"),
            ],
            offerCodes: [OfferDefinition(paymentMode: .freeTrial, period: month, referenceName: "LAUNCH", eligibility: [.new, .expired])],
            winBackOffers: [OfferDefinition(paymentMode: .freeTrial, period: month, offerID: "winback")]
        )),
        CatalogProduct(id: "yearly", type: .autoRenewable, price: 40, subscription: SubscriptionTerms(
            groupID: "Y", level: 1, period: SubscriptionPeriod(value: 1, unit: .year),
            introductoryOffer: OfferDefinition(paymentMode: .payUpFront, period: SubscriptionPeriod(value: 6, unit: .month), displayPrice: "15")
        )),
        CatalogProduct(id: "quarterly", type: .autoRenewable, price: 12, subscription: SubscriptionTerms(
            groupID: "Q", level: 1, period: SubscriptionPeriod(value: 3, unit: .month),
            introductoryOffer: OfferDefinition(paymentMode: .payAsYouGo, period: SubscriptionPeriod(value: 3, unit: .month), numberOfPeriods: 2, displayPrice: "6")
        )),
        CatalogProduct(id: "coins", type: .consumable, price: 1),
    ])

    func makeOfferStore() -> (StoreEngine, VirtualClock) {
        let clock = VirtualClock(start: testStart)
        let store = StoreEngine(
            catalog: Self.catalog, storage: InMemoryStorage(), clock: clock, signer: .ephemeral, promotionalOfferKeys: [Self.signer.key]
        )
        return (store, clock)
    }

    func months(_ count: Int, after date: Date = testStart) -> Date {
        Calendar.gregorianUTC.date(byAdding: .month, value: count, to: date)!
    }

    func buy(_ store: StoreEngine, _ productID: String, offer: OfferRedemption? = nil, username: String? = nil) async throws -> TransactionRecord {
        try await store.purchase(PurchaseRequest(productID: productID, bundleID: app, applicationUsername: username, offer: offer))
    }

    /// A promotional offer signed now with the store's key, as an app's server would sign it.
    func promotion(_ offerID: String, product: String = "monthly", at date: Date = testStart, signer: PromotionalOfferSigner = OfferTests.signer, username: String = "") throws -> OfferRedemption {
        let signed = try signer.signV1(productID: product, offerID: offerID, appAccountToken: username, nonce: UUID(), timestamp: Int64(date.timeIntervalSince1970 * 1000))
        return .promotional(offerID: signed.offerID, keyID: signed.keyID, nonce: signed.nonce, timestamp: signed.timestamp, signature: signed.signature)
    }

    @Test("A free trial: the first period is the trial's week at no charge, then the subscription renews monthly at its price")
    func freeTrial() async throws {
        let (store, clock) = makeOfferStore()
        #expect(try await store.isEligibleForIntroductoryOffer(productID: "monthly", accountID: StoreDefaults.accountID, bundleID: app))
        let purchase = try await buy(store, "monthly")
        let trialEnd = testStart.addingTimeInterval(7 * 86_400)
        #expect(purchase.amountCharged == 0)
        #expect(purchase.expiresDate == trialEnd)
        #expect(purchase.offer?.type == .introductoryOffer)
        #expect(purchase.offer?.discountType == .freeTrial)
        let payload = store.transactionPayload(purchase)
        #expect(payload.offerType == .introductoryOffer)
        #expect(payload.offerDiscountType == .freeTrial)
        #expect(payload.offerPeriod == "P1W")
        #expect(payload.offerIdentifier == nil)
        #expect(payload.price == 0)

        try await clock.advance(to: trialEnd)
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: purchase.id)).last)
        #expect(renewal.origin == .renewal)
        #expect(renewal.offer == nil)
        #expect(renewal.amountCharged == Decimal(string: "4.99")!)
        #expect(renewal.expiresDate == months(1, after: trialEnd))
        #expect(try await store.notifications().map(\.summary) == ["SUBSCRIBED/INITIAL_BUY", "DID_RENEW"])

        let receipt = try AppReceipt(receiptData: try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: UUID()))
        let entries = receipt.inAppPurchases.sorted { $0.transactionID < $1.transactionID }
        #expect(entries.map(\.isTrialPeriod) == [true, false])
        #expect(entries.map(\.isInIntroOfferPeriod) == [false, false])
    }

    @Test("An introductory offer is redeemed once per group: not while subscribed, not after a lapse")
    func introductoryOfferOnce() async throws {
        let (store, clock) = makeOfferStore()
        let purchase = try await buy(store, "monthly")
        #expect(try await store.isEligibleForIntroductoryOffer(productID: "monthly", accountID: StoreDefaults.accountID, bundleID: app) == false)
        try await store.setAutoRenew(subscription: purchase.id, enabled: false)
        try await clock.advance(by: 30 * 86_400)
        #expect(try await store.subscription(forTransaction: purchase.id).status == .expired)
        #expect(try await store.isEligibleForIntroductoryOffer(productID: "monthly", accountID: StoreDefaults.accountID, bundleID: app) == false)
        let again = try await buy(store, "monthly")
        #expect(again.offer == nil)
        #expect(again.amountCharged == Decimal(string: "4.99")!)
        // Another account, and another group, are still eligible.
        #expect(try await store.isEligibleForIntroductoryOffer(productID: "monthly", accountID: "someone.else", bundleID: app))
        #expect(try await store.isEligibleForIntroductoryOffer(productID: "yearly", accountID: StoreDefaults.accountID, bundleID: app))
    }

    @Test("Pay up front: six months at the offer's price in one period, marked in the receipt as an introductory period")
    func payUpFront() async throws {
        let (store, clock) = makeOfferStore()
        let purchase = try await buy(store, "yearly")
        #expect(purchase.amountCharged == 15)
        #expect(purchase.expiresDate == months(6))
        try await clock.advance(to: months(6))
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: purchase.id)).last)
        #expect(renewal.amountCharged == 40)
        #expect(renewal.expiresDate == months(18))
        let receipt = try AppReceipt(receiptData: try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: UUID()))
        #expect(receipt.inAppPurchases.sorted { $0.transactionID < $1.transactionID }.map(\.isInIntroOfferPeriod) == [true, false])
    }

    @Test("Pay as you go: the offer's price for each of its periods, renewal info announcing the discounted renewal, then the full price")
    func payAsYouGo() async throws {
        let (store, clock) = makeOfferStore()
        let purchase = try await buy(store, "quarterly")
        #expect(purchase.amountCharged == 6)
        var subscription = try await store.subscription(forTransaction: purchase.id)
        var info = await store.renewalInfoPayload(subscription, storefront: "USA")
        #expect(info.offerType == .introductoryOffer)
        #expect(info.offerDiscountType == .payAsYouGo)
        #expect(info.renewalPrice == 6_000)

        try await clock.advance(to: months(6))
        let periods = try await store.transactions(TransactionQuery(originalID: purchase.id))
        #expect(periods.map(\.amountCharged) == [6, 6, 12])
        #expect(periods.map { $0.offer?.type } == [.introductoryOffer, .introductoryOffer, nil])
        subscription = try await store.subscription(forTransaction: purchase.id)
        info = await store.renewalInfoPayload(subscription, storefront: "USA")
        #expect(info.offerType == nil)
        #expect(info.renewalPrice == 12_000)
    }

    @Test("A promotional offer with a valid signature: a lapsed subscriber comes back at the offer's price, told as OFFER_REDEEMED")
    func promotionalOffer() async throws {
        let (store, clock) = makeOfferStore()
        let first = try await buy(store, "monthly")
        try await store.setAutoRenew(subscription: first.id, enabled: false)
        try await clock.advance(by: 40 * 86_400)
        let back = try await buy(store, "monthly", offer: try promotion("comeback", at: clock.now().addingTimeInterval(-3_600)))
        #expect(back.amountCharged == Decimal(string: "1.99")!)
        #expect(back.offer?.type == .promotionalOffer)
        #expect(back.offer?.identifier == "comeback")
        let payload = store.transactionPayload(back)
        #expect(payload.offerType == .promotionalOffer)
        #expect(payload.offerIdentifier == "comeback")
        #expect(payload.offerDiscountType == .payAsYouGo)
        #expect(try await store.notifications().last?.summary == "OFFER_REDEEMED/RESUBSCRIBE")
        let receipt = try AppReceipt(receiptData: try await store.appReceipt(accountID: StoreDefaults.accountID, bundleID: app, deviceID: UUID()))
        #expect(receipt.inAppPurchases.first { $0.transactionID == String(back.id) }?.promotionalOfferID == "comeback")

        // Two discounted months, then the full price.
        try await clock.advance(to: months(2, after: back.purchaseDate))
        let prices = try await store.transactions(TransactionQuery(originalID: first.id)).filter { $0.purchaseDate >= back.purchaseDate }.map(\.amountCharged)
        #expect(prices == [Decimal(string: "1.99")!, Decimal(string: "1.99")!, Decimal(string: "4.99")!])
    }

    @Test("A current subscriber's promotional offer prices the next renewal (OFFER_REDEEMED with no subtype)")
    func promotionalOfferForCurrentSubscriber() async throws {
        let (store, clock) = makeOfferStore()
        let purchase = try await buy(store, "monthly")
        let redeemed = try await buy(store, "monthly", offer: try promotion("comeback"))
        #expect(redeemed.amountCharged == 0)
        #expect(try await store.notifications().last?.summary == "OFFER_REDEEMED")
        let info = await store.renewalInfoPayload(try await store.subscription(forTransaction: purchase.id), storefront: "USA")
        #expect(info.offerIdentifier == "comeback")
        #expect(info.renewalPrice == 1_990)
        try await clock.advance(to: testStart.addingTimeInterval(7 * 86_400))
        let renewal = try #require(try await store.transactions(TransactionQuery(originalID: purchase.id)).last)
        #expect(renewal.amountCharged == Decimal(string: "1.99")!)
        #expect(renewal.offer?.identifier == "comeback")
    }

    @Test(
        "Each bad promotional offer fails with Apple's error and records nothing",
        arguments: ["missing", "unknown offer", "wrong key", "tampered", "expired", "another user", "too dear", "not a subscription"]
    )
    func promotionalOfferErrors(_ problem: String) async throws {
        let (store, clock) = makeOfferStore()
        let stranger = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "KEY1", bundleID: app)
        let expected: StoreError
        var productID = "monthly"
        var redemption: OfferRedemption
        switch problem {
        case "missing":
            redemption = .promotional(offerID: "comeback", keyID: "KEY1", nonce: UUID(), timestamp: 0, signature: "")
            expected = .missingOfferParameters
        case "unknown offer":
            redemption = try promotion("nope")
            expected = .invalidOfferIdentifier
        case "wrong key":
            redemption = try promotion("comeback", signer: stranger)
            expected = .invalidOfferSignature
        case "tampered":
            guard case .promotional(_, let keyID, let nonce, let timestamp, let signature) = try promotion("comeback") else { return }
            redemption = .promotional(offerID: "too.dear", keyID: keyID, nonce: nonce, timestamp: timestamp, signature: signature)
            expected = .invalidOfferSignature
        case "expired":
            redemption = try promotion("comeback", at: clock.now().addingTimeInterval(-25 * 3_600))
            expected = .invalidOfferSignature
        case "another user":
            redemption = try promotion("comeback", username: "someone-else")
            expected = .invalidOfferSignature
        case "too dear":
            redemption = try promotion("too.dear")
            expected = .invalidOfferPrice
        default:
            productID = "coins"
            redemption = try promotion("comeback", product: "coins")
            expected = .invalidOfferIdentifier
        }
        await #expect(throws: expected) { try await buy(store, productID, offer: redemption) }
        #expect(try await store.transactions().isEmpty)
        #expect(try await store.notifications().isEmpty)
    }

    @Test("A promotional offer is refused, with ineligibleForOffer, to a customer who never subscribed to the group")
    func promotionalOfferForNewCustomer() async throws {
        let (store, _) = makeOfferStore()
        await #expect(throws: StoreError.ineligibleForOffer) { try await buy(store, "monthly", offer: try promotion("comeback")) }
        let token = try Self.signer.signV2(productID: "monthly", offerID: "comeback", issuerID: "issuer", nonce: UUID(), issuedAt: Int64(testStart.timeIntervalSince1970))
        await #expect(throws: StoreError.ineligibleForOffer) { try await buy(store, "monthly", offer: .signedPromotional(compactJWS: token)) }
        #expect(try await store.transactions().isEmpty)
    }

    @Test("A version 2 signed promotional offer is checked and redeemed too")
    func signedPromotionalOffer() async throws {
        let (store, clock) = makeOfferStore()
        let first = try await buy(store, "monthly")
        try await store.expireSubscription(first.id)
        try await clock.advance(by: 86_400)
        let token = try Self.signer.signV2(productID: "monthly", offerID: "comeback", issuerID: "issuer", nonce: UUID(), issuedAt: Int64(clock.now().timeIntervalSince1970))
        let purchase = try await buy(store, "monthly", offer: .signedPromotional(compactJWS: token))
        #expect(purchase.offer?.identifier == "comeback")
        let other = try Self.signer.signV2(productID: "yearly", offerID: "comeback", issuerID: "issuer", nonce: UUID(), issuedAt: Int64(clock.now().timeIntervalSince1970))
        await #expect(throws: StoreError.invalidOfferSignature) { try await buy(store, "monthly", offer: .signedPromotional(compactJWS: other)) }
    }

    @Test("A promotional offer redeemed with a downgrade is OFFER_REDEEMED/DOWNGRADE and prices the lower plan's first period, then the plan's price")
    func offerWithDowngrade() async throws {
        let clock = VirtualClock(start: testStart)
        let catalog = Catalog(products: [
            CatalogProduct(id: "premium", type: .autoRenewable, price: Decimal(string: "9.99")!, subscription: SubscriptionTerms(groupID: "G", level: 1, period: Self.month)),
            CatalogProduct(id: "basic", type: .autoRenewable, price: Decimal(string: "4.99")!, subscription: SubscriptionTerms(
                groupID: "G", level: 2, period: Self.month,
                promotionalOffers: [OfferDefinition(paymentMode: .payAsYouGo, period: Self.month, numberOfPeriods: 1, displayPrice: "1.99", offerID: "stay")]
            )),
        ])
        let store = StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: clock, signer: .ephemeral, promotionalOfferKeys: [Self.signer.key])
        let premium = try await buy(store, "premium")
        let downgrade = try await buy(store, "basic", offer: try promotion("stay", product: "basic"))
        #expect(try await store.notifications().last?.summary == "OFFER_REDEEMED/DOWNGRADE")
        #expect(downgrade.amountCharged == 0, "the downgrade waits for the renewal")
        let pending = try await store.subscription(forTransaction: premium.id)
        #expect(pending.productID == "premium" && pending.autoRenewProductID == "basic")

        try await clock.advance(to: months(1).addingTimeInterval(1))
        let renewal = try #require(try await store.transactions().last)
        #expect(renewal.productID == "basic")
        #expect(renewal.amountCharged == Decimal(string: "1.99")!)
        #expect(renewal.offer?.identifier == "stay" && renewal.offer?.type == .promotionalOffer)
        try await clock.advance(to: months(2).addingTimeInterval(1))
        let next = try #require(try await store.transactions().last)
        #expect(next.productID == "basic" && next.amountCharged == Decimal(string: "4.99")! && next.offer == nil)
    }

    @Test("An offer code is redeemed outside the app by its reference name, for new and lapsed customers only")
    func offerCode() async throws {
        let (store, clock) = makeOfferStore()
        let redeemed = try await store.redeemOfferCode("LAUNCH", bundleID: app)
        #expect(redeemed.productID == "monthly")
        #expect(redeemed.deviceID == nil)
        #expect(redeemed.amountCharged == 0)
        #expect(redeemed.expiresDate == months(1))
        #expect(redeemed.offer?.type == .subscriptionOfferCode)
        #expect(redeemed.offer?.identifier == "LAUNCH")
        #expect(try await store.notifications().last?.summary == "OFFER_REDEEMED/INITIAL_BUY")
        await #expect(throws: StoreError.ineligibleForOffer) { try await store.redeemOfferCode("LAUNCH", bundleID: app) }
        await #expect(throws: StoreError.invalidOfferIdentifier) { try await store.redeemOfferCode("NOPE", bundleID: app) }
        _ = clock
    }

    @Test("A win-back offer is for lapsed subscribers only")
    func winBack() async throws {
        let (store, clock) = makeOfferStore()
        await #expect(throws: StoreError.ineligibleForOffer) { try await buy(store, "monthly", offer: .winBack(offerID: "winback")) }
        let first = try await buy(store, "monthly")
        try await store.setAutoRenew(subscription: first.id, enabled: false)
        try await clock.advance(by: 10 * 86_400)
        let back = try await buy(store, "monthly", offer: .winBack(offerID: "winback"))
        #expect(back.offer?.type == .winBackOffer)
        #expect(back.amountCharged == 0)
        #expect(try await store.notifications().last?.summary == "OFFER_REDEEMED/RESUBSCRIBE")
    }

    @Test("A lapsed subscription's renewal info lists the group's eligible win-back offers, cheapest first, as Apple's library reads them; an active one lists none")
    func eligibleWinBackOffersInRenewalInfo() async throws {
        let clock = VirtualClock(start: testStart)
        let catalog = Catalog(products: [
            CatalogProduct(id: "monthly", type: .autoRenewable, price: 5, subscription: SubscriptionTerms(
                groupID: "G", level: 2, period: Self.month,
                winBackOffers: [
                    OfferDefinition(paymentMode: .payAsYouGo, period: Self.month, numberOfPeriods: 2, displayPrice: "1.99", offerID: "two.cheap.months"),
                    OfferDefinition(paymentMode: .freeTrial, period: Self.month, offerID: "free.month", isEligible: true),
                    OfferDefinition(paymentMode: .freeTrial, period: Self.month, offerID: "not.for.you", isEligible: false),
                ]
            )),
            CatalogProduct(id: "yearly", type: .autoRenewable, price: 50, subscription: SubscriptionTerms(
                groupID: "G", level: 1, period: SubscriptionPeriod(value: 1, unit: .year),
                winBackOffers: [OfferDefinition(paymentMode: .payUpFront, period: SubscriptionPeriod(value: 1, unit: .year), displayPrice: "30", offerID: "year.back")]
            )),
        ])
        let store = StoreEngine(catalog: catalog, storage: InMemoryStorage(), clock: clock, signer: .ephemeral)
        let first = try await buy(store, "monthly")
        let active = try await appleVerify("renewal-info", try await store.signedRenewalInfo(subscription: first.originalID), store: store)
        #expect(active["eligibleWinBackOfferIds"] as? [String] == nil)

        try await store.setAutoRenew(subscription: first.originalID, enabled: false)
        try await clock.advance(to: months(1).addingTimeInterval(86_400))
        let lapsed = try await appleVerify("renewal-info", try await store.signedRenewalInfo(subscription: first.originalID), store: store)
        #expect(lapsed["eligibleWinBackOfferIds"] as? [String] == ["free.month", "two.cheap.months", "year.back"])

        _ = try await buy(store, "monthly", offer: .winBack(offerID: "free.month"))
        let back = try await appleVerify("renewal-info", try await store.signedRenewalInfo(subscription: first.originalID), store: store)
        #expect(back["eligibleWinBackOfferIds"] as? [String] == nil, "a subscriber who came back is offered no win-back")
    }
}
