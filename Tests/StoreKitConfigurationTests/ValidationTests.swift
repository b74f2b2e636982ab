import Foundation
import Testing

@testable import StoreKitConfiguration

/// One expected issue: its code, JSON path and message (the fix is checked where it matters).
struct ExpectedIssue: CustomStringConvertible {
    var code: ConfigurationIssue.Code
    var path: String
    var message: String

    init(_ code: ConfigurationIssue.Code, _ path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    var description: String { "[\(code)] \(path): \(message)" }

    func matches(_ issue: ConfigurationIssue) -> Bool {
        issue.code == code && issue.location == .path(path) && issue.message == message
    }
}

/// Loads a fixture that must fail, returning its error.
func loadingError(fixture name: String) throws -> ConfigurationError {
    let url = TestFiles.fixtures.appending(path: name)
    do {
        _ = try StoreKitConfigurationFile.load(contentsOf: url)
    } catch {
        return error
    }
    Issue.record("\(name) loaded, but it should have failed")
    throw CancellationError()
}

func expectIssues(_ error: ConfigurationError, _ expected: [ExpectedIssue], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        error.issues.count == expected.count,
        "got \(error.issues.map(\.description).joined(separator: "\n"))", sourceLocation: sourceLocation)
    for (issue, expectation) in zip(error.issues, expected) {
        #expect(expectation.matches(issue), "got \(issue), expected \(expectation)", sourceLocation: sourceLocation)
    }
}

@Suite("Validation of broken files")
struct ValidationTests {
    @Test("Product types are case-sensitive and must fit their list")
    func productTypes() throws {
        let error = try loadingError(fixture: "product-types.storekit")
        expectIssues(error, [
            ExpectedIssue(.misplacedProduct, "nonRenewingSubscriptions[0].type",
                "A non-consumable (\"NonConsumable\") cannot be listed in nonRenewingSubscriptions."),
            ExpectedIssue(.unknownProductType, "products[0].type", "\"consumable\" is not a product type."),
            ExpectedIssue(.unknownProductType, "products[2].type", "\"Subscription\" is not a product type."),
        ])
        #expect(error.issues[1].fix == "Types are case-sensitive: write \"Consumable\".")
    }

    @Test("Product IDs are unique across products, non-renewing subscriptions and subscription groups")
    func duplicateProductIDs() throws {
        let error = try loadingError(fixture: "duplicate-product-ids.storekit")
        expectIssues(error, [
            ExpectedIssue(.duplicateProductID, "products[0].productID",
                "\"org.fixture.coins\" is already the productID of nonRenewingSubscriptions[0]."),
            ExpectedIssue(.duplicateProductID, "subscriptionGroups[0].subscriptions[1].productID",
                "\"org.fixture.shared\" is already the productID of products[1]."),
        ])
    }

    @Test("Prices must be decimal strings; an empty string means unset")
    func prices() throws {
        let error = try loadingError(fixture: "bad-prices.storekit")
        expectIssues(error, [
            ExpectedIssue(.invalidPrice, "products[0].displayPrice", "\"4,99\" is not a price."),
            ExpectedIssue(.invalidPrice, "products[1].displayPrice", "\"$1.99\" is not a price."),
            ExpectedIssue(.wrongType, "products[2].displayPrice", "Expected the price as a string, found 0.99."),
            ExpectedIssue(.invalidPrice, "products[4].displayPrice", "\"1.\" is not a price."),
            ExpectedIssue(.invalidPrice, "subscriptionGroups[0].subscriptions[0].adHocOffers[0].displayPrice",
                "\"-1.00\" is not a price."),
        ])
        #expect(error.issues[2].fix == "Prices are strings: write \"0.99\".")
    }

    @Test("Periods must be single-component ISO-8601 durations")
    func periods() throws {
        let error = try loadingError(fixture: "bad-periods.storekit")
        expectIssues(error, [
            ExpectedIssue(.invalidPeriod, "subscriptionGroups[0].subscriptions[1].introductoryOffer.subscriptionPeriod",
                "\"P0M\" is not an ISO-8601 period."),
            ExpectedIssue(.invalidPeriod, "subscriptionGroups[0].subscriptions[1].recurringSubscriptionPeriod",
                "\"P1Q\" is not an ISO-8601 period."),
            ExpectedIssue(.invalidPeriod, "subscriptionGroups[0].subscriptions[2].codeOffers[0].subscriptionPeriod",
                "\"1M\" is not an ISO-8601 period."),
            ExpectedIssue(.invalidPeriod, "subscriptionGroups[0].subscriptions[2].recurringSubscriptionPeriod",
                "\"P1Y2M\" is not an ISO-8601 period."),
        ])
        #expect(error.issues.allSatisfy { $0.fix == "Use P<n>D, P<n>W, P<n>M or P<n>Y, e.g. P1M." })
    }

    @Test("A subscription's group id must name the group that lists it; group ids are unique")
    func groupReferences() throws {
        let error = try loadingError(fixture: "group-references.storekit")
        expectIssues(error, [
            ExpectedIssue(.unknownSubscriptionGroup, "subscriptionGroups[0].subscriptions[1].subscriptionGroupID",
                "\"FFFFFFFF\" matches no subscription group."),
            ExpectedIssue(.unknownSubscriptionGroup, "subscriptionGroups[1].subscriptions[0].subscriptionGroupID",
                "\"0F000001\" is the id of subscriptionGroups[0], but the subscription is listed in subscriptionGroups[1]."),
            ExpectedIssue(.duplicateGroupID, "subscriptionGroups[2].id",
                "\"0F000002\" is already the id of subscriptionGroups[1]."),
        ])
        #expect(error.issues[0].fix == "Set it to \"0F000001\", the id of the group that lists this subscription.")
    }

    @Test("Promotional and win-back offers need an offerID; payment modes and period counts are checked")
    func offers() throws {
        let error = try loadingError(fixture: "offers.storekit")
        let base = "subscriptionGroups[0].subscriptions[1]"
        expectIssues(error, [
            ExpectedIssue(.missingOfferID, "\(base).adHocOffers[0].offerID", "A promotional offer needs an offerID."),
            ExpectedIssue(.invalidNumberOfPeriods, "\(base).adHocOffers[1].numberOfPeriods", "0 is not a number of periods."),
            ExpectedIssue(.duplicateOfferID, "\(base).adHocOffers[2].offerID",
                "\"half\" is already the offerID of \(base).adHocOffers[1]."),
            ExpectedIssue(.unknownPaymentMode, "\(base).adHocOffers[2].paymentMode", "\"trial\" is not a payment mode."),
            ExpectedIssue(.duplicateOfferID, "\(base).adHocOffers[3].offerID",
                "\"half\" is already the offerID of \(base).adHocOffers[1]."),
            ExpectedIssue(.unknownPaymentMode, "\(base).codeOffers[0].paymentMode", "\"none\" is not a payment mode."),
            ExpectedIssue(.missingOfferID, "\(base).winbackOffers[0].offerID", "A win-back offer needs an offerID."),
        ])
    }

    @Test("Storefront codes, time rates, setting types and duplicate simulated errors")
    func settings() throws {
        let error = try loadingError(fixture: "settings.storekit")
        expectIssues(error, [
            ExpectedIssue(.wrongType, "settings._askToBuyEnabled", "Expected true or false, found \"yes\"."),
            ExpectedIssue(.invalidStorefront, "settings._storefront", "\"usa\" is not a storefront code."),
            ExpectedIssue(.duplicateSimulatedError, "settings._storeKitErrors[1].name",
                "\"Purchase\" is already configured by settings._storeKitErrors[0]."),
            ExpectedIssue(.unknownTimeRate, "settings._timeRate", "14 is not an SKTestSession.TimeRate value."),
        ])
        #expect(error.issues[1].fix == "Storefront codes are upper case: write \"USA\".")

        let other = try loadingError(fixture: "settings-storefront.storekit")
        expectIssues(other, [
            ExpectedIssue(.invalidStorefront, "settings._storefront", "\"US\" is not a storefront code."),
            ExpectedIssue(.unknownTimeRate, "settings._timeRate", "1006 is not an SKTestSession.TimeRate value."),
        ])
    }

    @Test("Every known SKTestSession.TimeRate raw value is accepted, and nothing else", arguments: Array(-1...1006))
    func timeRates(rate: Int) {
        let json = #"{ "settings" : { "_timeRate" : \#(rate) }, "version" : { "major" : 4, "minor" : 0 } }"#
        let known = Set([0, 1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 15, 1000, 1001, 1002, 1003, 1004, 1005])
        let loaded = try? StoreKitConfigurationFile(data: Data(json.utf8))
        #expect((loaded != nil) == known.contains(rate))
    }

    @Test("All problems of a file are reported in one pass, in file order, one line each")
    func everyIssueAtOnce() throws {
        let error = try loadingError(fixture: "everything-wrong.storekit")
        let subscription = "subscriptionGroups[0].subscriptions[0]"
        expectIssues(error, [
            ExpectedIssue(.invalidPrice, "products[0].displayPrice", "\"4,99\" is not a price."),
            ExpectedIssue(.unknownProductType, "products[0].type", "\"consumable\" is not a product type."),
            ExpectedIssue(.duplicateProductID, "products[1].productID",
                "\"org.fixture.coins\" is already the productID of products[0]."),
            ExpectedIssue(.invalidStorefront, "settings._storefront", "\"XYZ\" is not a storefront code."),
            ExpectedIssue(.unknownTimeRate, "settings._timeRate", "7 is not an SKTestSession.TimeRate value."),
            ExpectedIssue(.missingOfferID, "\(subscription).adHocOffers[0].offerID", "A promotional offer needs an offerID."),
            ExpectedIssue(.invalidPeriod, "\(subscription).recurringSubscriptionPeriod", "\"P1Q\" is not an ISO-8601 period."),
            ExpectedIssue(.unknownSubscriptionGroup, "\(subscription).subscriptionGroupID",
                "\"0F000009\" matches no subscription group."),
            ExpectedIssue(.unknownPaymentMode, "\(subscription).winbackOffers[0].paymentMode",
                "\"discount\" is not a payment mode."),
        ])
        let lines = error.description.split(separator: "\n")
        #expect(lines.count == 9)
        #expect(
            lines[6] == "everything-wrong.storekit: subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod: "
                + "\"P1Q\" is not an ISO-8601 period. Use P<n>D, P<n>W, P<n>M or P<n>Y, e.g. P1M.")
        #expect(
            lines[5] == "everything-wrong.storekit: subscriptionGroups[0].subscriptions[0].adHocOffers[0].offerID: "
                + "A promotional offer needs an offerID. Add \"offerID\" : \"…\" with the identifier your app passes "
                + "to Product.PurchaseOption.promotionalOffer.")
    }

    @Test("A file with one bad product never half-loads")
    func neverHalfLoads() throws {
        let url = TestFiles.fixtures.appending(path: "half-valid.storekit")
        let result = Result { () throws(ConfigurationError) -> StoreKitConfigurationFile in
            try StoreKitConfigurationFile.load(contentsOf: url)
        }
        guard case .failure(let error) = result else {
            Issue.record("half-valid.storekit loaded")
            return
        }
        expectIssues(error, [ExpectedIssue(.invalidPrice, "products[1].displayPrice", "\"free\" is not a price.")])
        #expect(error.sourceName == "half-valid.storekit")
    }

    @Test("Required keys, wrong JSON types and a top level that is not an object")
    func structure() throws {
        func issues(_ json: String) -> [ConfigurationIssue] {
            do {
                _ = try StoreKitConfigurationFile(data: Data(json.utf8), sourceName: "inline.storekit")
                return []
            } catch {
                return error.issues
            }
        }
        let notObject = issues("[]")
        #expect(notObject.map(\.code) == [.notAnObject])
        #expect(notObject.first?.location == .file)

        let noVersion = issues(#"{ "products" : [] }"#)
        #expect(noVersion.map(\.code) == [.missingKey])
        #expect(noVersion.first?.location == .path("version"))

        let product = issues(
            #"{ "products" : [ { "displayPrice" : "1", "familyShareable" : "no" }, 7 ], "version" : { "major" : 4, "minor" : 0 } }"#)
        #expect(product.map(\.code) == [.wrongType, .missingKey, .missingKey, .wrongType])
        #expect(product.map(\.location.description) == [
            "products[0].familyShareable", "products[0].productID", "products[0].type", "products[1]",
        ])
        #expect(product[2].fix == "Add \"type\" : \"Consumable\" or \"NonConsumable\".")
    }

    @Test("Conflicting introductory offers are rejected")
    func conflictingIntroductoryOffers() throws {
        let json = #"""
            { "subscriptionGroups" : [ { "id" : "A", "name" : "G", "localizations" : [], "subscriptions" : [ {
                "productID" : "p", "type" : "RecurringSubscription", "displayPrice" : "1", "subscriptionGroupID" : "A",
                "groupNumber" : 1, "recurringSubscriptionPeriod" : "P1M",
                "introductoryOffer" : { "paymentMode" : "free", "subscriptionPeriod" : "P1W" },
                "introductoryOffers" : [ { "paymentMode" : "free", "subscriptionPeriod" : "P2W" },
                                         { "paymentMode" : "free", "subscriptionPeriod" : "P3W" } ] } ] } ],
              "version" : { "major" : 5, "minor" : 0 } }
            """#
        do {
            _ = try StoreKitConfigurationFile(data: Data(json.utf8))
            Issue.record("loaded")
        } catch {
            #expect(error.issues.map(\.code) == [.conflictingIntroductoryOffers, .conflictingIntroductoryOffers])
            #expect(error.issues.map(\.location.description) == [
                "subscriptionGroups[0].subscriptions[0].introductoryOffer",
                "subscriptionGroups[0].subscriptions[0].introductoryOffers[1]",
            ])
        }
    }

    @Test("A file that cannot be read names the file")
    func unreadableFile() {
        do {
            _ = try StoreKitConfigurationFile.load(contentsOf: TestFiles.fixtures.appending(path: "missing.storekit"))
            Issue.record("loaded")
        } catch {
            #expect(error.issues.map(\.code) == [.unreadableFile])
            #expect(error.description.hasPrefix("missing.storekit: The file cannot be read"))
        }
    }
}
