import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import Testing

/// Every `notificationType`/`subtype` pair Apple documents, each caused on a fresh store by the action that causes it
/// at Apple's, found in the outbox, signed, and verified by Apple's `SignedDataVerifier` (one Python process per
/// environment) in Sandbox and in Production, with what it carries inside (transaction, renewal info, app
/// transaction) verified too.
@Suite("Every notification Apple documents, caused and verified by Apple's library")
struct NotificationParityTests {
    /// A `notificationType` with its `subtype`, or none.
    struct Pair: Hashable, Sendable, CustomStringConvertible {
        let type: NotificationTypeV2
        let subtype: Subtype?
        var description: String { subtype.map { "\(type.rawValue)/\($0.rawValue)" } ?? type.rawValue }

        init(_ type: NotificationTypeV2, _ subtype: Subtype? = nil) {
            self.type = type
            self.subtype = subtype
        }
    }

    /// Which of the payload's exclusive members carries the notification's content.
    enum Body: String, Sendable, CaseIterable {
        case data, summary, externalPurchaseToken, appData
    }

    /// The pairs Apple documents (formats.md §3.5 "Usual pairings", Advanced Commerce's three types, External
    /// Purchase's token subtypes), by type: `nil` is the type without a subtype.
    static let documented: [NotificationTypeV2: [Subtype?]] = [
        .subscribed: [.initialBuy, .resubscribe],
        .didChangeRenewalPref: [.upgrade, .downgrade, nil],
        .didChangeRenewalStatus: [.autoRenewEnabled, .autoRenewDisabled],
        .offerRedeemed: [.initialBuy, .resubscribe, .upgrade, .downgrade, nil],
        .didRenew: [nil, .billingRecovery],
        .expired: [.voluntary, .billingRetry, .priceIncrease, .productNotForSale],
        .didFailToRenew: [nil, .gracePeriod],
        .gracePeriodExpired: [nil],
        .priceIncrease: [.pending, .accepted],
        .refund: [nil],
        .refundDeclined: [nil],
        .consumptionRequest: [nil],
        .renewalExtended: [nil],
        .revoke: [nil],
        .test: [nil],
        .renewalExtension: [.summary, .failure],
        .refundReversed: [nil],
        .externalPurchaseToken: [.created, .activeTokenReminder, .unreported],
        .oneTimeCharge: [nil],
        .rescindConsent: [nil],
        .metadataUpdate: [nil],
        .migration: [nil],
        .priceChange: [nil],
    ]

    static var documentedPairs: Set<Pair> {
        Set(documented.flatMap { type, subtypes in subtypes.map { Pair(type, $0) } })
    }

    /// A pair no action of ours causes in an environment, and why.
    struct Gap: Sendable {
        let pair: Pair
        let environment: AppStoreEnvironment
        let reason: String
    }

    static let gaps = [
        Gap(
            pair: Pair(.externalPurchaseToken, .activeTokenReminder), environment: .sandbox,
            reason: "a sandbox custom link token is active for an hour (Apple's \"Testing transactions that use custom link tokens\"), so no monthly reminder falls due; Production sends it"
        ),
    ]

    /// What causes a pair: the action a user of the store takes, on a fresh store with these settings.
    struct Cause: Sendable, CustomTestStringConvertible {
        let pair: Pair
        let body: Body
        let action: String
        let settings: StoreSettings
        /// Runs the action; returns the signed payload when the action hands it out rather than leaving it in the
        /// outbox (`TEST`).
        let run: @Sendable (StoreEngine, VirtualClock) async throws -> String?
        var testDescription: String { "\(pair): \(action)" }

        /// A cause whose notification waits in the outbox.
        init(
            _ pair: Pair, _ action: String, body: Body = .data, settings: StoreSettings = StoreSettings(),
            run: @escaping @Sendable (StoreEngine, VirtualClock) async throws -> Void
        ) {
            self.pair = pair
            self.body = body
            self.action = action
            self.settings = settings
            self.run = { store, clock in
                try await run(store, clock)
                return nil
            }
        }

        /// A cause that hands its signed payload out itself.
        init(handingOut pair: Pair, _ action: String, signing: @escaping @Sendable (StoreEngine) async throws -> String) {
            self.pair = pair
            self.body = .data
            self.action = action
            self.settings = StoreSettings()
            self.run = { store, _ in try await signing(store) }
        }
    }

    static let month = SubscriptionPeriod(value: 1, unit: .month)
    static let appAppleID: Int64 = 6_443_210_987

    /// One-time products, a group with two levels (each with an offer code) and a generic product to migrate to, and
    /// a family-shareable group.
    static let catalog: Catalog = {
        var catalog = Catalog(products: [
            CatalogProduct(id: "coins", type: .consumable, price: Decimal(string: "0.99")!),
            CatalogProduct(id: "unlock", type: .nonConsumable, price: Decimal(string: "4.99")!),
            CatalogProduct(id: "basic", type: .autoRenewable, price: Decimal(string: "2.99")!, subscription: SubscriptionTerms(
                groupID: "G", level: 2, period: month, offerCodes: [OfferDefinition(paymentMode: .freeTrial, period: month, referenceName: "BASICCODE")]
            )),
            CatalogProduct(id: "premium", type: .autoRenewable, price: Decimal(string: "5.99")!, subscription: SubscriptionTerms(
                groupID: "G", level: 1, period: month, offerCodes: [OfferDefinition(paymentMode: .freeTrial, period: month, referenceName: "PREMIUMCODE")]
            )),
            CatalogProduct(id: "premium.generic", type: .autoRenewable, price: Decimal(string: "5.99")!,
                           subscription: SubscriptionTerms(groupID: "G", level: 1, period: month)),
            CatalogProduct(id: "family", type: .autoRenewable, price: Decimal(string: "9.99")!, isFamilyShareable: true,
                           subscription: SubscriptionTerms(groupID: "F", level: 1, period: month)),
        ])
        catalog.appAppleID = appAppleID
        return catalog
    }()

    static func months(_ count: Int, plusDays days: Double = 0) -> Date {
        Calendar.gregorianUTC.date(byAdding: .month, value: count, to: testStart)!.addingTimeInterval(days * 86_400)
    }

    static let billingIssues = StoreSettings(renewalBillingIssuesEnabled: true)
    static let gracePeriod = StoreSettings(renewalBillingIssuesEnabled: true, billingGracePeriodEnabled: true)

    /// Migrates the account's `premium` subscription to Advanced Commerce (`MIGRATION`), as Migrate a Subscription does.
    static func migrate(_ store: StoreEngine) async throws -> UInt64 {
        let subscription = try await store.buy("premium")
        let request = AdvancedCommerceSubscriptionMigrateRequest(
            descriptors: AdvancedCommerceDescriptors(description: "Everything", displayName: "Premium"),
            items: [AdvancedCommerceSubscriptionMigrateRequest.Item(sku: "premium.all", description: "Everything", displayName: "Premium")],
            targetProductId: "premium.generic", taxCode: "C003-00-1"
        )
        _ = try await store.migrateToAdvancedCommerce(transactionID: subscription.id, request).get()
        return subscription.id
    }

    /// The table: every pair Apple documents that an action of ours causes, and the action.
    static let causes: [Cause] = [
        Cause(Pair(.subscribed, .initialBuy), "buy a subscription") { store, _ in _ = try await store.buy("premium") },
        Cause(Pair(.subscribed, .resubscribe), "buy, expire, buy again") { store, clock in
            try await store.expireSubscription(try await store.buy("premium").id)
            try await clock.advance(by: 86_400)
            _ = try await store.buy("premium")
        },
        Cause(Pair(.didChangeRenewalPref, .upgrade), "buy a higher level of the group") { store, _ in
            _ = try await store.buy("basic")
            _ = try await store.buy("premium")
        },
        Cause(Pair(.didChangeRenewalPref, .downgrade), "buy a lower level of the group") { store, _ in
            _ = try await store.buy("premium")
            _ = try await store.buy("basic")
        },
        Cause(Pair(.didChangeRenewalPref), "downgrade, then buy the current product again (the downgrade is cancelled)") { store, _ in
            _ = try await store.buy("premium")
            _ = try await store.buy("basic")
            _ = try await store.buy("premium")
        },
        Cause(Pair(.didChangeRenewalStatus, .autoRenewDisabled), "turn auto-renew off") { store, _ in
            _ = try await store.setAutoRenew(subscription: try await store.buy("premium").id, enabled: false)
        },
        Cause(Pair(.didChangeRenewalStatus, .autoRenewEnabled), "turn auto-renew off, then on") { store, _ in
            let id = try await store.buy("premium").id
            _ = try await store.setAutoRenew(subscription: id, enabled: false)
            _ = try await store.setAutoRenew(subscription: id, enabled: true)
        },
        Cause(Pair(.offerRedeemed, .initialBuy), "redeem an offer code, never subscribed") { store, _ in
            _ = try await store.redeemOfferCode("PREMIUMCODE", bundleID: app)
        },
        Cause(Pair(.offerRedeemed, .resubscribe), "buy, expire, redeem an offer code") { store, clock in
            try await store.expireSubscription(try await store.buy("premium").id)
            try await clock.advance(by: 86_400)
            _ = try await store.redeemOfferCode("PREMIUMCODE", bundleID: app)
        },
        Cause(Pair(.offerRedeemed, .upgrade), "subscribed to the lower level, redeem the higher level's code") { store, _ in
            _ = try await store.buy("basic")
            _ = try await store.redeemOfferCode("PREMIUMCODE", bundleID: app)
        },
        Cause(Pair(.offerRedeemed, .downgrade), "subscribed to the higher level, redeem the lower level's code") { store, _ in
            _ = try await store.buy("premium")
            _ = try await store.redeemOfferCode("BASICCODE", bundleID: app)
        },
        Cause(Pair(.offerRedeemed), "redeem a code for the product subscribed to (it prices the next period)") { store, _ in
            _ = try await store.buy("premium")
            _ = try await store.redeemOfferCode("PREMIUMCODE", bundleID: app)
        },
        Cause(Pair(.didRenew), "buy, a month passes") { store, clock in
            _ = try await store.buy("premium")
            try await clock.advance(to: months(1))
        },
        Cause(Pair(.didRenew, .billingRecovery), "billing fails at renewal, then the issue is resolved", settings: billingIssues) { store, clock in
            let purchase = try await store.buy("premium")
            try await clock.advance(to: months(1, plusDays: 1))
            try await store.updateSettings { $0.renewalBillingIssuesEnabled = false }
            _ = try await store.resolveIssue(transactionID: purchase.id)
        },
        Cause(Pair(.expired, .voluntary), "turn auto-renew off, the period ends") { store, clock in
            _ = try await store.setAutoRenew(subscription: try await store.buy("premium").id, enabled: false)
            try await clock.advance(to: months(1))
        },
        Cause(Pair(.expired, .billingRetry), "billing fails at renewal, billing retry runs out", settings: billingIssues) { store, clock in
            _ = try await store.buy("premium")
            try await clock.advance(to: months(1, plusDays: 61))
        },
        Cause(Pair(.expired, .priceIncrease), "decline a price increase, the period ends") { store, clock in
            let id = try await store.buy("premium").id
            _ = try await store.requestPriceIncreaseConsent(subscription: id)
            _ = try await store.answerPriceIncrease(subscription: id, consented: false)
            try await clock.advance(to: months(1))
        },
        Cause(Pair(.expired, .productNotForSale), "the product leaves the catalog, the period ends") { store, clock in
            _ = try await store.buy("premium")
            var withdrawn = Catalog(products: catalog.products.filter { $0.id != "premium" })
            withdrawn.appAppleID = appAppleID
            await store.replaceCatalog(withdrawn)
            try await clock.advance(to: months(1))
        },
        Cause(Pair(.didFailToRenew), "billing fails at renewal", settings: billingIssues) { store, clock in
            _ = try await store.buy("premium")
            try await clock.advance(to: months(1))
        },
        Cause(Pair(.didFailToRenew, .gracePeriod), "billing fails at renewal with a grace period", settings: gracePeriod) { store, clock in
            _ = try await store.buy("premium")
            try await clock.advance(to: months(1))
        },
        Cause(Pair(.gracePeriodExpired), "billing fails at renewal, the grace period ends", settings: gracePeriod) { store, clock in
            _ = try await store.buy("premium")
            try await clock.advance(to: months(1, plusDays: 20))
        },
        Cause(Pair(.priceIncrease, .pending), "a price increase asks for consent") { store, _ in
            _ = try await store.requestPriceIncreaseConsent(subscription: try await store.buy("premium").id)
        },
        Cause(Pair(.priceIncrease, .accepted), "the customer consents to a price increase") { store, _ in
            let id = try await store.buy("premium").id
            _ = try await store.requestPriceIncreaseConsent(subscription: id)
            _ = try await store.answerPriceIncrease(subscription: id, consented: true)
        },
        Cause(Pair(.refund), "refund a purchase") { store, _ in
            _ = try await store.refund(transactionID: try await store.buy("unlock").id)
        },
        Cause(Pair(.refundDeclined), "a refund request, declined") { store, _ in
            try await store.requestRefund(transactionID: try await store.buy("coins").id, accountID: StoreDefaults.accountID, approve: false)
        },
        Cause(
            Pair(.consumptionRequest), "a refund request waiting for App Store review",
            settings: StoreSettings(refundRequestsAwaitDecision: true)
        ) { store, _ in
            try await store.requestRefund(
                transactionID: try await store.buy("coins").id, accountID: StoreDefaults.accountID, approve: true, reason: .unintendedPurchase
            )
        },
        Cause(Pair(.renewalExtended), "extend a subscription's renewal date") { store, _ in
            _ = try await store.extendRenewalDate(subscription: try await store.buy("premium").id, byDays: 7)
        },
        Cause(Pair(.revoke), "refund a family-shared subscription: the family member loses it") { store, _ in
            _ = try await store.joinFamily(accountID: StoreDefaults.accountID, familyID: "F")
            _ = try await store.joinFamily(accountID: "kid", familyID: "F")
            _ = try await store.refund(transactionID: try await store.buy("family").id)
        },
        Cause(handingOut: Pair(.test), "request a test notification (the App Store Server API's; it is sent, not kept in the outbox)") { store in
            try await store.signedTestNotification(bundleID: app, id: UUID())
        },
        Cause(Pair(.renewalExtension, .summary), "extend every subscriber's renewal date", body: .summary) { store, _ in
            _ = try await store.buy("premium")
            _ = try await store.massExtendRenewalDates(requestIdentifier: "mass-1", productID: "premium", bundleID: app, byDays: 3, reasonCode: 1)
        },
        Cause(Pair(.renewalExtension, .failure), "extend every subscriber's renewal date, one already extended twice this year") { store, _ in
            let id = try await store.buy("premium").id
            _ = try await store.extendRenewalDate(subscription: id, byDays: 1)
            _ = try await store.extendRenewalDate(subscription: id, byDays: 1)
            _ = try await store.massExtendRenewalDates(requestIdentifier: "mass-2", productID: "premium", bundleID: app, byDays: 3, reasonCode: 1)
        },
        Cause(Pair(.refundReversed), "refund a purchase, then reverse the refund") { store, _ in
            let id = try await store.buy("unlock").id
            _ = try await store.refund(transactionID: id)
            _ = try await store.reverseRefund(transactionID: id)
        },
        Cause(Pair(.externalPurchaseToken, .created), "the app asks for a custom link token", body: .externalPurchaseToken) { store, _ in
            _ = try await store.externalPurchaseCustomLinkToken(type: .services, accountID: StoreDefaults.accountID, bundleID: app)
        },
        Cause(Pair(.externalPurchaseToken, .activeTokenReminder), "a custom link token stays active a month", body: .externalPurchaseToken) { store, clock in
            _ = try await store.externalPurchaseCustomLinkToken(type: .services, accountID: StoreDefaults.accountID, bundleID: app)
            try await clock.advance(to: months(1))
        },
        Cause(Pair(.externalPurchaseToken, .unreported), "a notice-sheet token goes unreported for 10 days", body: .externalPurchaseToken) { store, clock in
            _ = try await store.issueExternalPurchaseToken(accountID: StoreDefaults.accountID, bundleID: app)
            try await clock.advance(by: 10 * 86_400)
        },
        Cause(Pair(.oneTimeCharge), "buy a consumable") { store, _ in _ = try await store.buy("coins") },
        Cause(Pair(.rescindConsent), "a parent rescinds consent for a child's use of the app", body: .appData) { store, _ in
            _ = try await store.buy("unlock")
            try await store.rescindConsent(accountID: StoreDefaults.accountID, bundleID: app)
        },
        Cause(Pair(.migration), "migrate a subscription to Advanced Commerce") { store, _ in _ = try await migrate(store) },
        Cause(Pair(.metadataUpdate), "change an Advanced Commerce subscription's metadata") { store, _ in
            let id = try await migrate(store)
            let change = AdvancedCommerceSubscriptionChangeMetadataRequest(
                descriptors: .init(displayName: "Premium Plus", effective: AdvancedCommerceSubscriptionChangeMetadataRequest.immediately)
            )
            _ = try await store.changeAdvancedCommerceMetadata(transactionID: id, change).get()
        },
        Cause(Pair(.priceChange), "change an Advanced Commerce subscription's price") { store, _ in
            let id = try await migrate(store)
            _ = try await store.changeAdvancedCommercePrice(transactionID: id, items: [.init(sku: "premium.all", price: 4_990)]).get()
        },
    ]

    @Test("The table covers Apple's list: every type has its pairings, every subtype is paired, and every documented pair is caused or listed with a reason")
    func tableCoversApplesList() {
        #expect(Set(Self.documented.keys) == Set(NotificationTypeV2.allCases), "a type without documented pairings")
        #expect(Set(Self.documented.values.joined().compactMap { $0 }) == Set(Subtype.allCases), "a subtype no documented pair uses")
        let caused = Self.causes.map(\.pair)
        #expect(caused.count == Set(caused).count, "one action per pair")
        for environment in [AppStoreEnvironment.sandbox, .production] {
            let missing = Set(Self.gaps.filter { $0.environment == environment }.map(\.pair))
            let neither = Self.documentedPairs.subtracting(caused).subtracting(missing)
            #expect(neither.isEmpty, "\(environment): documented, neither caused nor listed: \(neither.map(\.description).sorted())")
        }
        #expect(Set(caused).isSubset(of: Self.documentedPairs), "a cause for a pair Apple does not document")
    }

    @Test("Each documented pair's action leaves it in the outbox; Apple's verifier accepts it and what it carries, and reads its type, subtype and body", arguments: [
        AppStoreEnvironment.sandbox, .production,
    ])
    func everyPairVerifies(_ environment: AppStoreEnvironment) async throws {
        let skipped = Set(Self.gaps.filter { $0.environment == environment }.map(\.pair))
        var batch: [[String: String]] = []
        var expected: [(cause: Cause, inner: [String])] = []
        var roots: StoreEngine?
        for cause in Self.causes where !skipped.contains(cause.pair) {
            var settings = cause.settings
            settings.environment = environment.rawValue
            let clock = VirtualClock(start: testStart)
            let store = StoreEngine(catalog: Self.catalog, settings: settings, storage: InMemoryStorage(), clock: clock, signer: .ephemeral)
            roots = store
            let handedOut = try await cause.run(store, clock)
            let signed: String
            if let handedOut {
                signed = handedOut
            } else {
                let outbox = try await store.notifications()
                let found = outbox.first { $0.type == cause.pair.type && $0.subtype == cause.pair.subtype }
                let notification = try #require(found, "\(cause.pair) after \"\(cause.action)\": \(outbox.map(\.summary))")
                signed = try await store.signedNotification(notification)
            }
            batch.append(["kind": "notification", "data": signed])
            let inner = try await Self.carried(signed, store: store, environment: environment)
            batch += inner
            expected.append((cause, inner.map { $0["kind"]! }))
        }
        let store = try #require(roots)
        let results = try await appleVerifyBatch(
            batch, store: store, environment: environment == .production ? "PRODUCTION" : "SANDBOX",
            appAppleID: environment == .production ? Self.appAppleID : nil
        )
        try #require(results.count == batch.count)
        var index = 0
        for (cause, inner) in expected {
            let result = results[index]
            #expect(result["status"] as? String == "OK", "\(cause.pair): \(result)")
            let payload = result["payload"] as? [String: Any] ?? [:]
            #expect(payload["rawNotificationType"] as? String == cause.pair.type.rawValue, "\(cause.pair)")
            #expect(payload["rawSubtype"] as? String == cause.pair.subtype?.rawValue, "\(cause.pair)")
            let bodies = Body.allCases.filter { payload[$0.rawValue] is [String: Any] }
            #expect(bodies == [cause.body], "\(cause.pair): carries \(bodies)")
            for (offset, kind) in inner.enumerated() {
                #expect(results[index + 1 + offset]["status"] as? String == "OK", "\(cause.pair)'s \(kind): \(results[index + 1 + offset])")
            }
            index += 1 + inner.count
        }
        #expect(expected.count == Self.causes.count - skipped.count)
    }

    /// The signed data a notification carries — transaction, renewal info, app transaction — as batch items.
    static func carried(_ signed: String, store: StoreEngine, environment: AppStoreEnvironment) async throws -> [[String: String]] {
        let verifier = try JWSVerifier(rootCertificates: [try store.signer.certificateAuthority.jwsRootCertificateDER], bundleID: app, environment: environment)
        let payload = try await verifier.verifyNotification(signed).get()
        let items: [(String, String?)] = [
            ("transaction", payload.data?.signedTransactionInfo),
            ("renewal-info", payload.data?.signedRenewalInfo),
            ("app-transaction", payload.appData?.signedAppTransactionInfo),
        ]
        return items.compactMap { kind, token in token.map { ["kind": kind, "data": $0] } }
    }
}
