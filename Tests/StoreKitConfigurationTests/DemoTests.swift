import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("Examples/Demo.storekit and summaries")
struct DemoTests {
    static let demoURL = TestFiles.repository.appending(path: "Examples/Demo.storekit")

    @Test("The demo catalog passes validation and has every feature it promises")
    func demoCatalog() throws {
        let demo = try StoreKitConfigurationFile.load(contentsOf: Self.demoURL)
        #expect(demo.version == ConfigurationVersion(major: 4, minor: 0))
        #expect(demo.products.filter { $0.type == .consumable }.map(\.productID) == [
            "com.example.demo.coins.100", "com.example.demo.coins.500",
        ])
        let nonConsumables = demo.products.filter { $0.type == .nonConsumable }
        #expect(nonConsumables.count == 2)
        #expect(nonConsumables.filter(\.familyShareable).map(\.productID) == ["com.example.demo.premium"])
        #expect(demo.nonRenewingSubscriptions.count == 1)

        let group = try #require(demo.subscriptionGroups.first)
        #expect(demo.subscriptionGroups.count == 1)
        #expect(group.levels == [1, 2, 3])
        let periods = Dictionary(uniqueKeysWithValues: group.subscriptions.map { ($0.groupLevel, $0.period.iso8601) })
        #expect(periods == [1: "P1Y", 2: "P1M", 3: "P1W"])
        let monthly = try #require(group.subscriptions.first { $0.period.unit == .month })
        #expect(monthly.introductoryOffer?.paymentMode == .freeTrial)
        #expect(monthly.promotionalOffers.count == 1)
        #expect(monthly.offerCodes.count == 1)
        #expect(monthly.winBackOffers.count == 1)

        for product in demo.allProducts {
            #expect(product.localizations.map(\.locale) == ["en_US", "fr"], "\(product.productID)")
        }
        #expect(group.localizations.map(\.locale) == ["en_US", "fr"])
        #expect(demo.appPolicies != nil)
        #expect(demo.settings.storefront == "USA")
        #expect(demo.settings.locale == "en_US")
        #expect(demo.settings.storeKitErrors.map(\.name) == SimulatedErrorSetting.standardNames)
        #expect(demo.settings.storeKitErrors.allSatisfy { !$0.enabled })
    }

    @Test("The demo file is in Xcode's serialization already")
    func demoIsByteStable() throws {
        let data = try Data(contentsOf: Self.demoURL)
        #expect(try StoreKitConfigurationFile(data: data).encodedData() == data)
    }

    @Test("The summary lists products by kind with prices, levels, offers and default settings")
    func demoSummary() throws {
        let summary = try StoreKitConfigurationFile.load(contentsOf: Self.demoURL).summary()
        let lines = summary.split(separator: "\n").map(String.init)
        #expect(lines.first == "Version 4.0, identifier DE0A0001")
        #expect(lines.contains("8 products: 2 consumable, 2 non-consumable, 1 non-renewing, 3 auto-renewable in 1 group"))
        #expect(lines.contains("Consumables (2)"))
        #expect(lines.contains { $0.hasPrefix("  com.example.demo.coins.100") && $0.hasSuffix("0.99") })
        #expect(lines.contains { $0.contains("com.example.demo.premium") && $0.hasSuffix("family-shareable") })
        #expect(lines.contains("Subscription group \"Demo Plus\" (id DE0A0300), 3 subscriptions, levels 1, 2, 3"))
        #expect(lines.contains { $0.hasPrefix("  level 2  com.example.demo.plus.monthly") && $0.contains("4.99 every month") })
        #expect(lines.contains(
            "      offers: intro free trial for 1 week; promotional plus.monthly.comeback; offer codes \"Launch code\"; "
                + "win-back plus.monthly.winback"))
        #expect(lines.last == "Settings: defaults (storefront USA, locale en_US, real time)")
        #expect(lines.count < 25)
    }

    @Test("The summary names the settings that differ from the defaults")
    func changedSettings() throws {
        let fast = try TestFiles.loadCorpus("superwall__Superwall-iOS__Superwall_SwiftUI-Products.storekit").summary()
        #expect(fast.hasSuffix("Settings: time rate 1003 (oneRenewalEveryThirtySeconds)"))
        let family = try TestFiles.loadCorpus("chemsims__chemistry__USConfig.storekit").summary()
        #expect(family.hasSuffix("Settings: Ask to Buy on; interrupted purchases on"))
        let erroring = try TestFiles.loadCorpus("xmliszt__joodle__Store__efa48e1a.storekit").summary()
        #expect(erroring.hasSuffix("Settings: storefront SGP; simulated errors on: Load Products"))
        #expect(erroring.contains("synced with App Store Connect"))
    }

    @Test("The detailed description shows every setting and each offer's terms")
    func detailedDescription() throws {
        let text = try StoreKitConfigurationFile.load(contentsOf: Self.demoURL).detailedDescription()
        #expect(text.contains("    Promotional offer plus.monthly.comeback: pay as you go, 1.99 every month for 3 periods"))
        #expect(text.contains("    Offer code \"Launch code\": free trial for 1 month; for new, expired; not stackable"))
        #expect(text.contains("    Win-back offer plus.monthly.winback: free trial for 1 month; customer eligible"))
        #expect(text.contains("  Time rate: 0 (realTime)"))
        #expect(text.contains("    Refund Request Sheet: off"))
        #expect(text.contains("    fr: \"100 pièces\" — Une petite bourse de pièces"))
    }
}
