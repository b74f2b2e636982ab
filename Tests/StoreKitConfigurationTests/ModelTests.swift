import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("Model values")
struct ModelTests {
    @Test(
        "ISO-8601 periods: one component, n ≥ 1",
        arguments: [
            ("P1D", SubscriptionPeriod(value: 1, unit: .day)), ("P3D", SubscriptionPeriod(value: 3, unit: .day)),
            ("P1W", SubscriptionPeriod(value: 1, unit: .week)), ("P2W", SubscriptionPeriod(value: 2, unit: .week)),
            ("P6M", SubscriptionPeriod(value: 6, unit: .month)), ("P1Y", SubscriptionPeriod(value: 1, unit: .year)),
            ("P12M", SubscriptionPeriod(value: 12, unit: .month)),
        ])
    func validPeriods(text: String, period: SubscriptionPeriod) {
        #expect(SubscriptionPeriod(iso8601: text) == period)
        #expect(period.iso8601 == text)
    }

    @Test("Malformed periods are refused", arguments: ["", "P", "P0M", "P01M", "P1Q", "p1m", "P1m", "1M", "P1Y2M", "PT1H", "P-1M", "P1.5M", " P1M"])
    func invalidPeriods(text: String) {
        #expect(SubscriptionPeriod(iso8601: text) == nil)
    }

    @Test("Periods read naturally")
    func periodDescription() {
        #expect(SubscriptionPeriod(value: 1, unit: .month).description == "1 month")
        #expect(SubscriptionPeriod(value: 3, unit: .day).description == "3 days")
    }

    @Test("Prices are exact decimals parsed from the text, never binary floating point")
    func prices() {
        #expect(Price.decimal("0.5") == Decimal(sign: .plus, exponent: -1, significand: 5))
        #expect(Price.decimal("79") == Decimal(79))
        #expect(Price.decimal("699.00") == Decimal(699))
        #expect(Price.decimal("19.99") == Decimal(sign: .plus, exponent: -2, significand: 1999))
        #expect(Price.decimal("") == nil)
        for bad in ["4,99", "$1", "1.", ".5", "-1", "1e3", " 1", "1 000", "١٢"] {
            #expect(Price.decimal(bad) == nil, "\(bad)")
            #expect(!Price.isValid(bad), "\(bad)")
        }
        #expect(Price.isValid(""))
    }

    @Test("periodCount: numberOfPeriods for pay as you go, 1 otherwise")
    func periodCount() {
        let month = SubscriptionPeriod(value: 1, unit: .month)
        #expect(OfferDefinition(paymentMode: .payAsYouGo, period: month, numberOfPeriods: 3).periodCount == 3)
        #expect(OfferDefinition(paymentMode: .payAsYouGo, period: month).periodCount == 1)
        #expect(OfferDefinition(paymentMode: .payUpFront, period: month, numberOfPeriods: 3).periodCount == 1)
        #expect(OfferDefinition(paymentMode: .freeTrial, period: month, numberOfPeriods: 2).periodCount == 1)
    }

    @Test("introductoryOffer picks the default billing plan's offer; setting nil removes every intro offer")
    func introductoryOfferAccessor() {
        let week = SubscriptionPeriod(value: 1, unit: .week)
        let monthlyPlan = OfferDefinition(paymentMode: .freeTrial, period: week, billingPlanType: .monthly)
        let upfront = OfferDefinition(paymentMode: .freeTrial, period: SubscriptionPeriod(value: 2, unit: .week))
        var subscription = SubscriptionDefinition(
            productID: "p", displayPrice: "1", groupID: "g", groupLevel: 1, period: SubscriptionPeriod(value: 1, unit: .year))
        #expect(subscription.introductoryOffer == nil)
        subscription.introductoryOffers = [monthlyPlan, upfront]
        #expect(subscription.introductoryOffer == upfront)
        let replacement = OfferDefinition(paymentMode: .payUpFront, period: week, displayPrice: "0.99")
        subscription.introductoryOffer = replacement
        #expect(subscription.introductoryOffers == [monthlyPlan, replacement])
        subscription.introductoryOffer = nil
        #expect(subscription.introductoryOffers.isEmpty)
    }

    @Test("allProducts lists every kind in file order; product(withID:) finds any of them")
    func productLookup() throws {
        let file = try TestFiles.loadCorpus("hyochan__react-native-iap__Configuration.storekit")
        #expect(Set(file.allProducts.map(\.type)) == Set(ProductKind.allCases))
        #expect(file.allProducts.first?.type == .nonRenewingSubscription)
        #expect(file.allProducts.last?.type == .autoRenewable)
        for product in file.allProducts {
            #expect(file.product(withID: product.productID) == product)
        }
        #expect(file.product(withID: "no.such.product") == nil)
        let subscription = try #require(file.allSubscriptions.first)
        #expect(file.subscriptionGroup(withID: subscription.groupID)?.subscriptions.contains(subscription) == true)
    }

    @Test("Issue codes compare by kind and name themselves")
    func issueCodes() {
        #expect(ConfigurationIssue.Code.invalidPeriod == .invalidPeriod)
        #expect(ConfigurationIssue.Code.invalidPeriod != .invalidPrice)
        #expect(ConfigurationIssue.Code.duplicateProductID.description == "duplicateProductID")
        let error = ConfigurationError(
            sourceName: "x.storekit",
            issues: [
                ConfigurationIssue(code: .notAnObject, location: .file, message: "Bad.", fix: "Fix it."),
                ConfigurationIssue(code: .syntaxError, location: .position(line: 2, column: 3), message: "Oops.", fix: "Mend."),
            ])
        #expect(error.description == "x.storekit: Bad. Fix it.\nx.storekit:2:3: Oops. Mend.")
        #expect(error.localizedDescription == error.description)
        #expect(error.issues[1].description == "line 2, column 3: Oops. Mend.")
    }

    @Test("Issue ordering follows Xcode's key order")
    func pathOrdering() {
        let paths = [
            "subscriptionGroups[10].id", "products[2].type", "subscriptionGroups[2].id", "products[2].displayPrice",
            "nonRenewingSubscriptions[0].type", "products[2]", "settings._timeRate", "settings._storefront",
        ]
        let sorted = paths.sorted { JSONPath.compare(.path($0), .path($1)) == .orderedAscending }
        #expect(sorted == [
            "nonRenewingSubscriptions[0].type", "products[2]", "products[2].displayPrice", "products[2].type",
            "settings._storefront", "settings._timeRate", "subscriptionGroups[2].id", "subscriptionGroups[10].id",
        ])
    }
}
