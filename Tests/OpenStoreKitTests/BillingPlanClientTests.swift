import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// Monthly billing with a 12-month commitment through the StoreKit 2 API: the product's pricing terms, a purchase
/// with `.billingPlanType(.monthly)`, and the commitment in transactions and renewal info.
@Suite("Billing plans in the app")
struct BillingPlanClientTests {
    func makeSession() throws -> SKTestSession {
        // The demo configuration's yearly subscription bills 39.99 up front, or 3.50 a month over a 42.00 commitment.
        let session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: testStart), transport: sessionTransport)
        session.disableDialogs = true
        return session
    }

    @Test("Product.SubscriptionInfo.pricingTerms lists the up-front plan and the monthly plan with its 12-month commitment")
    func pricingTerms() async throws {
        let session = try makeSession()
        try await session.run {
            let yearly = try #require(try await Product.products(for: [Demo.yearly]).first?.subscription)
            #expect(yearly.pricingTerms.map(\.billingPlanType) == [.upFront, .monthly])
            let monthly = try #require(yearly.pricingTerms.last)
            #expect(monthly.billingPrice == Decimal(string: "3.50")!)
            #expect(monthly.billingPeriod == Product.SubscriptionPeriod.monthly)
            #expect(monthly.commitmentInfo.price == Decimal(42))
            #expect(monthly.commitmentInfo.period == yearly.subscriptionPeriod)
            #expect(!monthly.billingDisplayPrice.isEmpty && !monthly.commitmentInfo.displayPrice.isEmpty)
            let upFront = try #require(yearly.pricingTerms.first)
            #expect(upFront.billingPrice == Decimal(string: "39.99")!)
            #expect(upFront.billingPeriod == yearly.subscriptionPeriod)
            #expect(try await Product.products(for: [Demo.monthly]).first?.subscription?.pricingTerms.isEmpty == true)
        }
    }

    @Test("A purchase with .billingPlanType(.monthly) bills monthly: the transaction and renewal info carry the commitment, month after month")
    func monthlyPurchase() async throws {
        let session = try makeSession()
        try await session.run {
            let yearly = try #require(try await Product.products(for: [Demo.yearly]).first)
            let purchase = try #require(try await yearly.purchase(options: [.billingPlanType(.monthly)]).verifiedTransaction)
            await purchase.finish()
            #expect(purchase.billingPlanType == .monthly)
            #expect(purchase.price == Decimal(string: "3.50")!)
            let commitment = try #require(purchase.commitmentInfo)
            #expect(commitment.billingPeriodNumber == 1)
            #expect(commitment.totalBillingPeriods == 12)
            #expect(commitment.price == Decimal(42))
            #expect(commitment.expirationDate == Calendar.gregorianUTC.date(byAdding: .month, value: 12, to: testStart))
            #expect(purchase.expirationDate == Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart))

            let status = try #require(try await yearly.subscription?.status.first)
            let renewalInfo = try status.renewalInfo.payloadValue
            #expect(renewalInfo.renewalBillingPlanType == .monthly)
            let next = try #require(renewalInfo.commitmentInfo)
            #expect(next.willAutoRenew)
            #expect(next.autoRenewPreference == Demo.yearly)
            #expect(next.renewalBillingPlanType == .monthly)
            #expect(next.renewalPrice == Decimal(42))
            #expect(next.renewalDate == commitment.expirationDate)

            try await session.advanceTime(by: 32 * 86_400)
            let renewed = try #require(try await yearly.subscription?.status.first?.transaction.payloadValue)
            #expect(renewed.reason == .renewal)
            #expect(renewed.commitmentInfo?.billingPeriodNumber == 2)
            #expect(renewed.billingPlanType == .monthly)

            let upFront = try #require(try await Product.products(for: [Demo.monthly]).first)
            await #expect(throws: (any Error).self) { try await upFront.purchase(options: [.billingPlanType(.monthly)]) }
        }
    }
}
