import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("Writing files in Xcode's serialization")
struct WriterTests {
    @Test("Unknown keys survive a round trip at every level")
    func unknownKeysSurvive() throws {
        let url = TestFiles.fixtures.appending(path: "unknown-keys.storekit")
        let file = try StoreKitConfigurationFile.load(contentsOf: url)
        #expect(file.unknownKeys["futureTopLevel"] == .object(["nested": .array([.number("1"), .number("2.50"), .string("x/y")])]))
        #expect(file.unknownKeys["subscriptionBundleGroups"] == .array([]))
        #expect(file.products[0].unknownKeys == ["promotionalImageID": .string("0F00AAAA")])
        #expect(file.products[0].localizations[0].unknownKeys == ["pronunciation": .string("koynz")])
        let group = file.subscriptionGroups[0]
        #expect(group.unknownKeys == ["futureGroupKey": .string("g")])
        #expect(group.subscriptions[0].unknownKeys == ["futureSubscriptionKey": .number("7")])
        #expect(group.subscriptions[0].introductoryOffer?.unknownKeys == ["futureOfferKey": .bool(true)])
        #expect(group.subscriptions[0].promotionalOffers[0].unknownKeys == ["futurePromoKey": .null])
        #expect(file.settings.unknownKeys == ["_futureSetting": .number("3")])
        #expect(file.settings.storeKitErrors[0].unknownKeys == ["emptyOnError": .bool(true)])

        let written = file.encodedData()
        let reread = try StoreKitConfigurationFile(data: written)
        #expect(reread == file)
        let text = String(decoding: written, as: UTF8.self)
        for key in [
            "futureTopLevel", "promotionalImageID", "pronunciation", "futureGroupKey", "futureSubscriptionKey",
            "futureOfferKey", "futurePromoKey", "_futureSetting", "emptyOnError",
        ] {
            #expect(text.contains("\"\(key)\" : "), "\(key) was dropped")
        }
        #expect(text.contains("2.50"))
    }

    @Test("A configuration built in code is written in the current Xcode's exact layout")
    func exactLayout() throws {
        let settings = Settings(storefront: "FRA", locale: "fr", storeKitErrors: [SimulatedErrorSetting(name: "Purchase")])
        let file = StoreKitConfigurationFile(
            identifier: "0A1B2C3D",
            products: [
                ProductDefinition(
                    type: .nonConsumable, productID: "org.example/dark", referenceName: "Thème \"sombre\"\n\u{1}",
                    displayPrice: "1.99", internalID: "0A1B2C3E",
                    localizations: [Localization(locale: "fr", displayName: "Thème", description: "")])
            ],
            settings: settings)
        let expected = """
            {
              "identifier" : "0A1B2C3D",
              "nonRenewingSubscriptions" : [

              ],
              "products" : [
                {
                  "displayPrice" : "1.99",
                  "familyShareable" : false,
                  "internalID" : "0A1B2C3E",
                  "localizations" : [
                    {
                      "description" : "",
                      "displayName" : "Thème",
                      "locale" : "fr"
                    }
                  ],
                  "productID" : "org.example/dark",
                  "referenceName" : "Thème \\"sombre\\"\\n\\u0001",
                  "type" : "NonConsumable"
                }
              ],
              "settings" : {
                "_askToBuyEnabled" : false,
                "_billingGracePeriodEnabled" : false,
                "_billingIssuesEnabled" : false,
                "_disableDialogs" : false,
                "_failTransactionsEnabled" : false,
                "_locale" : "fr",
                "_renewalBillingIssuesEnabled" : false,
                "_storefront" : "FRA",
                "_storeKitErrors" : [
                  {
                    "enabled" : false,
                    "name" : "Purchase"
                  }
                ],
                "_timeRate" : 0
              },
              "subscriptionGroups" : [

              ],
              "version" : {
                "major" : 5,
                "minor" : 0
              }
            }

            """
        #expect(String(decoding: file.encodedData(), as: UTF8.self) == expected)
        #expect(try StoreKitConfigurationFile(data: file.encodedData()) == file)
    }

    @Test("A full catalog built in code reloads to an equal model")
    func builtInCodeRoundTrips() throws {
        let month = SubscriptionPeriod(value: 1, unit: .month)
        let monthly = SubscriptionDefinition(
            productID: "org.example.pro.monthly", referenceName: "Pro monthly", displayPrice: "4.99",
            familyShareable: true, internalID: "5EED0110",
            localizations: [Localization(locale: "en_US", displayName: "Pro Monthly", description: "Pro, monthly")],
            groupID: "5EED0100", groupLevel: 2, period: month,
            introductoryOffer: OfferDefinition(
                internalID: "5EED0114", paymentMode: .freeTrial, period: SubscriptionPeriod(value: 1, unit: .week),
                numberOfPeriods: 1, billingPlanType: .billedUpFront),
            promotionalOffers: [
                OfferDefinition(
                    internalID: "5EED0111", paymentMode: .payAsYouGo, period: month, numberOfPeriods: 3, displayPrice: "1.99",
                    offerID: "pro.comeback", referenceName: "Comeback")
            ],
            offerCodes: [
                OfferDefinition(
                    internalID: "5EED0113", paymentMode: .freeTrial, period: SubscriptionPeriod(value: 2, unit: .month),
                    referenceName: "Podcast code", eligibility: [.new, .expired], isStackable: false)
            ],
            winBackOffers: [
                OfferDefinition(
                    internalID: "5EED0115", paymentMode: .freeTrial, period: month, offerID: "pro.winback",
                    referenceName: "Win-back", isEligible: true)
            ],
            billingPlans: [
                BillingPlan(billingPlanType: .billedUpFront, displayPrice: "4.99", commitmentDisplayPrice: "4.99", internalID: "5EED0112")
            ])
        var yearly = monthly
        yearly.productID = "org.example.pro.yearly"
        yearly.groupLevel = 1
        yearly.period = SubscriptionPeriod(value: 1, unit: .year)
        yearly.introductoryOffer = nil
        let file = StoreKitConfigurationFile(
            identifier: "5EED0001",
            products: [ProductDefinition(type: .consumable, productID: "org.example.coins", displayPrice: "0.99")],
            nonRenewingSubscriptions: [
                ProductDefinition(type: .nonRenewingSubscription, productID: "org.example.season", displayPrice: "")
            ],
            subscriptionGroups: [SubscriptionGroupDefinition(id: "5EED0100", name: "Pro", subscriptions: [monthly, yearly])],
            settings: Settings(
                timeRate: 1003, compatibilityTimeRate: .byServiceVersion(["3": 6]), askToBuyEnabled: true,
                legacyStoreKitError: 0,
                storeKitErrors: [SimulatedErrorSetting(name: "Load Products", current: .init(index: 2, type: "generic"))],
                lastSynchronizedDate: Date(timeIntervalSinceReferenceDate: 804_965_276.5)),
            appPolicies: AppPolicies(policies: [AppPolicies.Policy(locale: "en_US", policyURL: "https://example.org/privacy")]),
            offerSigningKey: OfferSigningKey(id: "5EED0F00", privateKey: "AAEC"))
        let written = file.encodedData()
        let reread = try StoreKitConfigurationFile(data: written)
        #expect(reread == file)
        #expect(reread.encodedData() == written)
        let text = String(decoding: written, as: UTF8.self)
        #expect(text.contains("\"introductoryOffers\" : [\n\n          ]"))
        #expect(text.contains("\"_lastSynchronizedDate\" : 804965276.5"))
    }

    @Test("Key order is case-insensitive, as Xcode sorts")
    func keyOrder() {
        let keys = XcodeJSONWriter.sortedKeys([
            "_storeKitErrors": 1, "_storefront": 2, "subscriptionSuiteGroups": 3, "subscriptionGroups": 4,
            "subscriptionBundleGroups": 5, "introductoryOffers": 6, "introductoryOffer": 7,
        ])
        #expect(keys == [
            "_storefront", "_storeKitErrors", "introductoryOffer", "introductoryOffers", "subscriptionBundleGroups",
            "subscriptionGroups", "subscriptionSuiteGroups",
        ])
    }

    @Test("Changing a value of a loaded file changes only that value")
    func editInPlace() throws {
        let name = "apple__sample-food-truck__Products.storekit"
        let original = try Data(contentsOf: TestFiles.corpusFile(name))
        var file = try StoreKitConfigurationFile(data: original)
        file.settings.storefront = "FRA"
        let before = String(decoding: original, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let after = String(decoding: file.encodedData(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let changed = zip(before, after).filter { $0.0 != $0.1 }
        #expect(before.count == after.count)
        #expect(changed.count == 1)
        #expect(changed.first?.1 == "    \"_storefront\" : \"FRA\",")
    }
}
