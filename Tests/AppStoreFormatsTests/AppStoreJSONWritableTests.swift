import Foundation
import Testing

@testable import AppStoreFormats

@Suite("Payloads that write their own JSON")
struct AppStoreJSONWritableTests {
    static let date = Date(timeIntervalSince1970: 1_750_000_000.123)
    static let uuid = UUID(uuidString: "956328D9-CC6A-47F4-BE40-6953FB0AB6C7")!

    /// Every property of `value` is set: a property added later without its line in `writeFields` fails here.
    func expectEveryFieldSet(_ value: some Any) {
        for child in Mirror(reflecting: value).children {
            let field = Mirror(reflecting: child.value)
            if field.displayStyle == .optional, field.children.isEmpty {
                Issue.record("\(child.label ?? "?") is nil: set it here, so its encoding is checked")
            }
        }
    }

    @Test func transactionWritesWhatEncodableWrites() throws {
        var transaction = JWSTransactionDecodedPayload()
        transaction.transactionId = "2000000847061981"
        transaction.originalTransactionId = "2000000847061980"
        transaction.webOrderLineItemId = "2000000099999999"
        transaction.bundleId = "com.example.app"
        transaction.productId = "com.example.app.monthly"
        transaction.subscriptionGroupIdentifier = "21482361"
        transaction.purchaseDate = Self.date
        transaction.originalPurchaseDate = Self.date.addingTimeInterval(-86_400)
        transaction.expiresDate = Self.date.addingTimeInterval(30 * 86_400)
        transaction.quantity = 1
        transaction.type = .autoRenewable
        transaction.appAccountToken = Self.uuid
        transaction.deviceVerification = "ZmFrZSBoYXNo"
        transaction.deviceVerificationNonce = Self.uuid
        transaction.inAppOwnershipType = .purchased
        transaction.signedDate = Self.date
        transaction.rawRevocationReason = 1
        transaction.revocationDate = Self.date
        transaction.rawRevocationType = "REFUND_PRORATED"
        transaction.revocationPercentage = 50_000
        transaction.isUpgraded = false
        transaction.rawOfferType = 2
        transaction.offerIdentifier = "promo \"quoted\"\n\u{1}"
        transaction.rawOfferDiscountType = "PAY_AS_YOU_GO"
        transaction.offerPeriod = "P1M"
        transaction.rawEnvironment = "Sandbox"
        transaction.rawTransactionReason = "RENEWAL"
        transaction.storefront = "USA"
        transaction.storefrontId = "143441"
        transaction.price = -990
        transaction.currency = "USD"
        transaction.appTransactionId = "704289572311429122"
        transaction.billingPlanType = "MONTHLY"
        transaction.commitmentInfo = TransactionCommitmentInfo(
            billingPeriodNumber: 3, commitmentExpiresDate: Self.date, commitmentPrice: 42_000, totalBillingPeriods: 12
        )
        let offer = AdvancedCommerceOffer(period: "P1M", periodCount: 2, price: 3_990, reason: "ACQUISITION")
        let refund = AdvancedCommerceRefund(refundAmount: 1_995, refundDate: Self.date, refundReason: "LEGAL", refundType: "CUSTOM")
        let item = AdvancedCommerceTransactionItem(
            sku: "sports.live", description: "Live \"sports\"", displayName: "Sports", offer: offer, price: 3_990, refunds: [refund],
            revocationDate: Self.date
        )
        transaction.advancedCommerceInfo = AdvancedCommerceTransactionInfo(
            descriptors: AdvancedCommerceDescriptors(description: "Bundle", displayName: "Bundle", effective: "IMMEDIATELY"), estimatedTax: 410, items: [item],
            period: "P1M", requestReferenceId: "6e2c2d62-1a94-4e39-8b5b-3f7f4fd6c0a1", taxCode: "C003-00-2", taxExclusivePrice: 8_980,
            taxRate: "0.0725"
        )
        expectEveryFieldSet(transaction)
        for value: Any in [transaction.advancedCommerceInfo!, item, offer, refund, transaction.advancedCommerceInfo!.descriptors!] {
            expectEveryFieldSet(value)
        }

        let written = try AppStoreJSON.encode(transaction)
        #expect(written == (try AppStoreJSON.encodeThroughCodable(transaction)))
        #expect(try AppStoreJSON.decode(JWSTransactionDecodedPayload.self, from: written) == transaction)
        let empty = JWSTransactionDecodedPayload()
        #expect(try AppStoreJSON.encode(empty) == (try AppStoreJSON.encodeThroughCodable(empty)))
    }

    @Test func renewalInfoWritesWhatEncodableWrites() throws {
        var renewal = JWSRenewalInfoDecodedPayload()
        renewal.rawExpirationIntent = 1
        renewal.originalTransactionId = "2000000847061980"
        renewal.autoRenewProductId = "com.example.app.yearly"
        renewal.productId = "com.example.app.monthly"
        renewal.rawAutoRenewStatus = 1
        renewal.isInBillingRetryPeriod = true
        renewal.rawPriceIncreaseStatus = 0
        renewal.gracePeriodExpiresDate = Self.date
        renewal.rawOfferType = 3
        renewal.offerIdentifier = "winback"
        renewal.signedDate = Self.date
        renewal.rawEnvironment = "Production"
        renewal.recentSubscriptionStartDate = Self.date
        renewal.renewalDate = Self.date
        renewal.renewalPrice = 9_990
        renewal.currency = "EUR"
        renewal.rawOfferDiscountType = "FREE_TRIAL"
        renewal.offerPeriod = "P1W"
        renewal.eligibleWinBackOfferIds = ["a", "b\\c"]
        renewal.appAccountToken = Self.uuid
        renewal.appTransactionId = "704289572311429122"
        renewal.renewalBillingPlanType = "MONTHLY"
        renewal.commitmentInfo = RenewalCommitmentInfo(
            commitmentAutoRenewProductId: "com.example.app.yearly", commitmentAutoRenewStatus: .off,
            commitmentRenewalBillingPlanType: "BILLED_UPFRONT", commitmentRenewalDate: Self.date, commitmentRenewalPrice: 39_990
        )
        let renewalItem = AdvancedCommerceRenewalItem(
            sku: "news.daily", description: "Daily news", displayName: "News",
            offer: AdvancedCommerceOffer(period: "P1W", periodCount: 1, price: 0, reason: "RETENTION"), price: 4_990,
            priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo(dependentSKUs: ["sports.live"], price: 5_990, status: "SCHEDULED")
        )
        renewal.advancedCommerceInfo = AdvancedCommerceRenewalInfo(
            consistencyToken: "token", descriptors: AdvancedCommerceDescriptors(description: "d", displayName: "n"), items: [renewalItem],
            period: "P1M", requestReferenceId: "6e2c2d62-1a94-4e39-8b5b-3f7f4fd6c0a1", taxCode: "C003"
        )
        for value: Any in [renewal.advancedCommerceInfo!, renewalItem, renewalItem.priceIncreaseInfo!] {
            expectEveryFieldSet(value)
        }
        renewal.deviceVerification = "ZmFrZSBoYXNo"
        renewal.deviceVerificationNonce = Self.uuid
        expectEveryFieldSet(renewal)

        let written = try AppStoreJSON.encode(renewal)
        #expect(written == (try AppStoreJSON.encodeThroughCodable(renewal)))
        #expect(try AppStoreJSON.decode(JWSRenewalInfoDecodedPayload.self, from: written) == renewal)
        renewal.eligibleWinBackOfferIds = []
        #expect(try AppStoreJSON.encode(renewal) == (try AppStoreJSON.encodeThroughCodable(renewal)))
    }
}
