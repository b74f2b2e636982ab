import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("Parsed values of specific Xcode files")
struct CorpusSpotCheckTests {
    @Test("A 5.0 file: kinds, decimal prices, billing plans and both intro-offer keys")
    func version5File() throws {
        let file = try TestFiles.loadCorpus("RevenueCat__purchases-ios__UnitTestsConfiguration.storekit")
        #expect(file.version == ConfigurationVersion(major: 5, minor: 0))
        #expect(file.identifier == "B495CDA2")
        #expect(file.products.map(\.type) == [.nonConsumable, .consumable])
        #expect(file.nonRenewingSubscriptions.map(\.productID) == ["com.revenuecat.non_renewable"])
        #expect(file.subscriptionGroups.count == 2)
        #expect(file.allSubscriptions.count == 4)
        #expect(file.allProducts.count == 7)

        let lifetime = try #require(file.products.first)
        #expect(lifetime.productID == "lifetime")
        #expect(lifetime.price == Decimal(string: "199.99"))
        #expect(lifetime.familyShareable)

        let monthly = file.subscriptionGroups[0].subscriptions[0]
        #expect(monthly.period == SubscriptionPeriod(value: 1, unit: .month))
        #expect(monthly.groupID == "7096FF06")
        #expect(monthly.groupLevel == 1)
        let intro = try #require(monthly.introductoryOffer)
        #expect(intro.paymentMode == .freeTrial)
        #expect(intro.period.iso8601 == "P3M")
        #expect(intro.billingPlanType == .billedUpFront)
        #expect(monthly.introductoryOffers.count == 1)

        let yearDiscount = monthly.promotionalOffers[0]
        #expect(yearDiscount.paymentMode == .payUpFront)
        #expect(yearDiscount.price == Decimal(string: "40.99"))
        #expect(yearDiscount.periodCount == 1)
        let payAsYouGo = monthly.promotionalOffers[1]
        #expect(payAsYouGo.offerID == "com.revenuecat.monthly_4.99.1_week_intro.pay_as_you_go")
        #expect(payAsYouGo.numberOfPeriods == 2)
        #expect(payAsYouGo.periodCount == 2)

        let commitment = file.subscriptionGroups[0].subscriptions[2]
        #expect(commitment.introductoryOffer == nil)
        #expect(commitment.billingPlans.map(\.billingPlanType) == [.billedUpFront, .monthly])
        #expect(commitment.billingPlans[1].price == Decimal(string: "0.5"))
        #expect(commitment.billingPlans[1].commitmentPrice == Decimal(6))
        #expect(file.settings.storeKitErrors.isEmpty)
        #expect(file.appPolicies?.policies.first?.locale == "en_US")
    }

    @Test("A 1.0 file (Xcode 12): no identifier, no non-renewing list, empty settings, numberOfPeriods missing means 1")
    func version1File() throws {
        let file = try TestFiles.loadCorpus("RevenueCat__purchases-ios__Configuration__d7066945.storekit")
        #expect(file.version == ConfigurationVersion(major: 1, minor: 0))
        #expect(file.identifier == nil)
        #expect(file.nonRenewingSubscriptions.isEmpty)
        #expect(file.settings == Settings())
        let intro = try #require(file.subscriptionGroups[0].subscriptions[0].introductoryOffer)
        #expect(intro.numberOfPeriods == nil)
        #expect(intro.periodCount == 1)
        #expect(intro.period == SubscriptionPeriod(value: 1, unit: .week))
    }

    @Test("referenceName null on every product, storefront, locale and a legacy time rate")
    func nullReferenceNames() throws {
        let file = try TestFiles.loadCorpus("chemsims__chemistry__ColombiaConfig.storekit")
        #expect(file.products.count == 8)
        #expect(file.products.allSatisfy { $0.referenceName == nil })
        #expect(file.settings.storefront == "COL")
        #expect(file.settings.locale == "es_MX")
        #expect(file.settings.timeRate == 6)
    }

    @Test("An empty displayPrice reads as no price, not an error")
    func emptyPrices() throws {
        let file = try TestFiles.loadCorpus(
            "RevenueCat__react-native-purchases__RevenueCast_PurchaseTesterTypescriptConfiguration.storekit")
        let lifetime = try #require(file.product(withID: "com.revenuecat.lifetime.199.99"))
        #expect(lifetime.displayPrice == "")
        #expect(lifetime.price == nil)
        #expect(file.subscriptionGroups[0].subscriptions[0].price == nil)
    }

    @Test("Intro offers: payUpFront object, null, and the integer _compatibilityTimeRate of 2022 files")
    func appleSample2023() throws {
        let file = try TestFiles.loadCorpus("cntrump__SKDemo__Products__fe6fcc32.storekit")
        #expect(file.settings.timeRate == 15)
        #expect(file.settings.compatibilityTimeRate == .rate(6))
        #expect(file.products.count == 6)
        #expect(file.nonRenewingSubscriptions.first?.type == .nonRenewingSubscription)
        let levels = file.subscriptionGroups[0].subscriptions.map { "\($0.productID)@\($0.groupLevel)" }
        #expect(levels == ["subscription.standard@3", "subscription.premium@2", "subscription.pro@1"])
        #expect(file.subscriptionGroups[0].subscriptions[0].introductoryOffer == nil)
        let pro = try #require(file.subscriptionGroups[0].subscriptions[2].introductoryOffer)
        #expect(pro.paymentMode == .payUpFront)
        #expect(pro.price == Decimal(string: "1.99"))
        #expect(pro.period == SubscriptionPeriod(value: 2, unit: .month))
    }

    @Test("The dictionary _compatibilityTimeRate of 2023+ files")
    func compatibilityTimeRateDictionary() throws {
        let file = try TestFiles.loadCorpus("superwall__Superwall-iOS__Superwall_SwiftUI-Products.storekit")
        #expect(file.settings.timeRate == 1003)
        #expect(file.settings.compatibilityTimeRate == .byServiceVersion(["3": 6]))
    }

    @Test("The legacy singular _storeKitError and the offer signing key")
    func legacyStoreKitError() throws {
        let file = try TestFiles.loadCorpus("russell-archer__StoreHelper__SampleProducts.storekit")
        #expect(file.settings.legacyStoreKitError == 0)
        #expect(file.settings.storeKitErrors.isEmpty)
        #expect(file.offerSigningKey?.id == "5509FCF1")
        #expect(file.offerSigningKey?.privateKeyDER?.isEmpty == false)
    }

    @Test("Offer codes and pay-as-you-go intro offers (Apple's Food Truck sample)")
    func offerCodes() throws {
        let file = try TestFiles.loadCorpus("apple__sample-food-truck__Products.storekit")
        let monthly = file.subscriptionGroups[0].subscriptions[0]
        let intro = try #require(monthly.introductoryOffer)
        #expect(intro.paymentMode == .payAsYouGo)
        #expect(intro.periodCount == 3)
        #expect(intro.price == Decimal(string: "2.49"))
        let code = try #require(monthly.offerCodes.first)
        #expect(code.referenceName == "Free month")
        #expect(code.eligibility == [.existing, .new, .expired])
        #expect(code.isStackable == true)
        let yearlyCode = try #require(file.subscriptionGroups[0].subscriptions[1].offerCodes.first)
        #expect(yearlyCode.paymentMode == .payUpFront)
        #expect(yearlyCode.price == Decimal(string: "29.99"))
    }

    @Test("An intro offer switched off (paymentMode none) reads as no intro offer and is written back")
    func disabledIntroductoryOffer() throws {
        let name = "CofficLab__Cisum_SwiftUI__Products__7034329b.storekit"
        let file = try TestFiles.loadCorpus(name)
        let yearly = file.subscriptionGroups[0].subscriptions[1]
        #expect(yearly.introductoryOffer == nil)
        #expect(yearly.introductoryOffers.isEmpty)
        let written = String(decoding: file.encodedData(), as: UTF8.self)
        #expect(written.contains("\"paymentMode\" : \"none\""))
    }

    @Test("Several intro offers, one per billing plan, next to the single introductoryOffer")
    func introductoryOffersPerBillingPlan() throws {
        let file = try TestFiles.loadCorpus(
            "RevenueCat__purchases-ios__RevenueCat_IntegrationPurchaseTesterConfiguration__cfe33ba6.storekit")
        let subscription = file.subscriptionGroups[1].subscriptions[1]
        #expect(subscription.introductoryOffers.map(\.billingPlanType) == [.billedUpFront, .monthly])
        #expect(subscription.introductoryOffer?.period.iso8601 == "P1M")
        #expect(subscription.introductoryOffer?.internalID == "9EB4AFC5")
        #expect(file.version.major == 3)
    }

    @Test("_storeKitErrors with remembered choices, matched by name")
    func simulatedErrorChoices() throws {
        let file = try TestFiles.loadCorpus("flutter__packages__Configuration__ff9da416.storekit")
        #expect(file.settings.storeKitErrors.map(\.name) == SimulatedErrorSetting.standardNames)
        let purchase = try #require(file.settings.storeKitError(named: "Purchase"))
        #expect(purchase.enabled == false)
        #expect(purchase.current == SimulatedErrorSetting.Choice(index: 1, type: "purchase"))
        #expect(file.settings.storeKitError(named: "App Store Sync")?.current == nil)
        let silver = try #require(file.allSubscriptions.first { $0.productID == "subscription_silver" })
        #expect(silver.winBackOffers.first?.offerID == "subscription_silver_winback_offer")
        #expect(silver.winBackOffers.first?.isEligible == true)
        #expect(silver.promotionalOffers.first?.paymentMode == .payAsYouGo)
    }

    @Test("An enabled simulated error in the Xcode 26 form (no current key)")
    func enabledSimulatedError() throws {
        let file = try TestFiles.loadCorpus("xmliszt__joodle__Store__efa48e1a.storekit")
        let enabled = file.settings.storeKitErrors.filter(\.enabled)
        #expect(enabled.map(\.name) == ["Load Products"])
        #expect(enabled.first?.current == nil)
    }

    @Test("A 6.3 synced file: new top-level keys kept, sync settings, UUID offer ids, verbatim date")
    func version63SyncedFile() throws {
        let file = try TestFiles.loadCorpus("xmliszt__joodle__Store__c1794782.storekit")
        #expect(file.version == ConfigurationVersion(major: 6, minor: 3))
        #expect(file.unknownKeys["subscriptionBundleGroups"] == .array([]))
        #expect(file.unknownKeys["subscriptionSuiteGroups"] == .array([]))
        #expect(file.settings.isSynced)
        #expect(file.settings.applicationInternalID == "6756204776")
        #expect(file.settings.developerTeamID == "AB3TLZ2LJT")
        #expect(file.settings.storefront == "SGP")
        let seconds = try #require(file.settings.lastSynchronizedDate?.timeIntervalSinceReferenceDate)
        #expect(abs(seconds - 804_965_276.435_507) < 0.001)
        #expect(String(decoding: file.encodedData(), as: UTF8.self).contains("804965276.43550706"))
        let code = try #require(file.allSubscriptions.flatMap(\.offerCodes).first)
        #expect(code.internalID == "8ab414ac-7421-4ec9-8300-9f4e9525393c")
    }

    @Test("Ask to Buy and interrupted purchases (_billingIssuesEnabled)")
    func askToBuyAndInterruptedPurchases() throws {
        let file = try TestFiles.loadCorpus("chemsims__chemistry__USConfig.storekit")
        #expect(file.settings.askToBuyEnabled)
        #expect(file.settings.interruptedPurchasesEnabled)
        #expect(file.settings.timeRate == 0)
    }

    @Test("Billing grace period, renewal billing issues and a EULA text")
    func renewalSettings() throws {
        let file = try TestFiles.loadCorpus("Taycanstar__podsapp__product__18854f30.storekit")
        #expect(file.settings.billingGracePeriodEnabled)
        #expect(file.settings.renewalBillingIssuesEnabled)
        #expect(file.settings.disableDialogs == false)
        #expect(file.appPolicies?.eula.hasPrefix("1. Acceptance of Terms") == true)
        #expect(file.subscriptionGroups.contains { !$0.localizations.isEmpty })
    }

    @Test("A free win-back offer without numberOfPeriods")
    func winBackOffer() throws {
        let file = try TestFiles.loadCorpus("RevenueCat__purchases-flutter__SKConfig.storekit")
        let offer = try #require(file.allSubscriptions.first?.winBackOffers.first)
        #expect(offer.offerID == "winback.1w0")
        #expect(offer.paymentMode == .freeTrial)
        #expect(offer.periodCount == 1)
        #expect(offer.isEligible == true)
    }
}
