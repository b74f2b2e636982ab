import AppStoreEngine
import AppStoreFormats
import Crypto
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// `AdvancedCommerceProduct.purchase(compactJWS:)` (in-process here, over HTTP in OpenStoreKitHTTPTests): the signed request prices the purchase,
/// and the transaction's signed form carries its items.
@Suite("AdvancedCommerceProduct")
struct AdvancedCommerceProductTests {
    /// A session on a virtual clock, and the developer's In-App Purchase key signer its store knows.
    func sessionWithSigningKey() async throws -> (SKTestSession, PromotionalOfferSigner) {
        let session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: testStart), transport: sessionTransport)
        session.disableDialogs = true
        let signer = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "IAPKEY", bundleID: session.environment.bundleID)
        await session.engine.addPromotionalOfferKey(signer.key)
        return (session, signer)
    }

    @Test("A one-time charge signed with the store's In-App Purchase key buys the generic product at the request's price; a request signed with another key is refused")
    func oneTimeCharge() async throws {
        let (session, signer) = try await sessionWithSigningKey()
        var request = AdvancedCommerceInAppRequest(
            operation: AdvancedCommerceInAppRequest.createOneTimeCharge,
            requestInfo: AdvancedCommerceRequestInfo(requestReferenceId: UUID().uuidString.lowercased()), currency: "USD", taxCode: "C003-00-1"
        )
        request.item = AdvancedCommerceRequestItem(sku: "gems.pack.7", description: "Seven gems", displayName: "Gems", price: 2_490)
        let issuedAt = Int64(testStart.timeIntervalSince1970)
        let jws = try signer.signAdvancedCommerceRequest(request, issuerID: "issuer", nonce: UUID(), issuedAt: issuedAt)
        try await session.run {
            let product = try await AdvancedCommerceProduct(id: Demo.coins)
            #expect(product.type == .consumable)
            let transaction = try #require(try await product.purchase(compactJWS: jws).verifiedTransaction)
            #expect(transaction.productID == Demo.coins)
            #expect(transaction.price == Decimal(string: "2.49"))
            let payload = try AppStoreJSON.decode(JWSTransactionDecodedPayload.self, from: transaction.jsonRepresentation)
            #expect(payload.advancedCommerceInfo?.items?.first?.sku == "gems.pack.7")
            #expect(payload.advancedCommerceInfo?.taxCode == "C003-00-1")
            let info = try #require(transaction.advancedCommerceInfo, "Transaction.advancedCommerceInfo reads the signed payload's")
            #expect(info.requestReferenceID == request.requestInfo?.requestReferenceId)
            #expect(info.taxCode == "C003-00-1")
            #expect(info.taxExclusivePrice == Decimal(string: "2.49"))
            #expect(info.period == nil, "a one-time charge has no billing period")
            #expect(info.items.map(\.details.sku) == ["gems.pack.7"])
            #expect(info.items.first?.details.displayName == "Gems")
            #expect(info.items.first?.details.description == "Seven gems")
            #expect(info.items.first?.details.price == Decimal(string: "2.49"))
            #expect(info.items.first?.refunds == nil && info.items.first?.revocationDate == nil)
            let product100 = try #require(try await Product.products(for: [Demo.bigCoins]).first)
            #expect(try await product100.purchase().verifiedTransaction?.advancedCommerceInfo == nil, "an In-App Purchase has none")

            let stranger = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "IAPKEY", bundleID: session.environment.bundleID)
            let forged = try stranger.signAdvancedCommerceRequest(request, issuerID: "issuer", nonce: UUID(), issuedAt: issuedAt)
            await #expect(throws: (any Error).self) { try await product.purchase(compactJWS: forged) }
        }
    }

    @Test("A subscription's Transaction.advancedCommerceInfo and RenewalInfo.advancedCommerceInfo follow the store: items and offer, a scheduled price increase, the renewal's prices, a prorated refund")
    func subscription() async throws {
        let (session, signer) = try await sessionWithSigningKey()
        let reference = UUID().uuidString.lowercased()
        var request = AdvancedCommerceInAppRequest(
            operation: AdvancedCommerceInAppRequest.createSubscription,
            requestInfo: AdvancedCommerceRequestInfo(requestReferenceId: reference), currency: "USD", taxCode: "C003-00-2"
        )
        request.descriptors = AdvancedCommerceDescriptors(description: "News and sports", displayName: "Bundle")
        request.period = "P1M"
        request.items = [
            AdvancedCommerceRequestItem(sku: "news.daily", description: "Daily news", displayName: "News", price: 4_990),
            AdvancedCommerceRequestItem(
                sku: "sports.live", description: "Live sports", displayName: "Sports", price: 7_990,
                offer: AdvancedCommerceOffer(period: "P1M", periodCount: 2, price: 3_990, reason: "ACQUISITION")
            ),
        ]
        let jws = try signer.signAdvancedCommerceRequest(request, issuerID: "issuer", nonce: UUID(), issuedAt: Int64(testStart.timeIntervalSince1970))
        try await session.run {
            let product = try await AdvancedCommerceProduct(id: Demo.monthly)
            let bought = try #require(try await product.purchase(compactJWS: jws).verifiedTransaction)
            await bought.finish()
            let info = try #require(bought.advancedCommerceInfo)
            #expect(info.period == .monthly)
            #expect(info.requestReferenceID == reference && info.taxCode == "C003-00-2")
            #expect(info.displayName == "Bundle" && info.description == "News and sports")
            #expect(info.taxExclusivePrice == Decimal(string: "8.98"), "news 4.99 + sports at its offer 3.99")
            #expect(info.items.map(\.details.sku) == ["news.daily", "sports.live"])
            let offer = try #require(info.items.last?.details.offer)
            #expect(offer.reason == .acquisition && offer.periodCount == 2 && offer.period == .monthly)
            #expect(offer.price == Decimal(string: "3.99") && info.items.last?.details.price == Decimal(string: "3.99"))
            let latest = try #require(await Transaction.latest(for: Demo.monthly)?.payloadValue)
            #expect(latest.advancedCommerceInfo == info, "Transaction.latest(for:) reads the same signed data")

            let monthly = try #require(try await Product.products(for: [Demo.monthly]).first)
            let renewal = try #require(try await monthly.subscription?.status.first?.renewalInfo.payloadValue.advancedCommerceInfo)
            #expect(renewal.period == .monthly && renewal.requestReferenceID == reference && renewal.taxCode == "C003-00-2")
            #expect(renewal.displayName == "Bundle" && renewal.description == "News and sports")
            #expect(renewal.items.map(\.details.sku) == ["news.daily", "sports.live"])
            #expect(renewal.items.last?.details.offer?.periodCount == 1, "the offer has one more period")
            #expect(renewal.items.allSatisfy { $0.priceIncreaseInfo == nil })

            let increase = try await session.engine.changeAdvancedCommercePrice(
                transactionID: bought.id, items: [AdvancedCommerceSubscriptionPriceChangeRequest.Item(sku: "news.daily", price: 5_990)]
            )
            _ = try increase.get()
            let priced = try #require(try await monthly.subscription?.status.first?.renewalInfo.payloadValue.advancedCommerceInfo)
            let newsIncrease = try #require(priced.items.first?.priceIncreaseInfo)
            #expect(newsIncrease.price == Decimal(string: "5.99") && newsIncrease.status == .scheduled && newsIncrease.dependentSKUs.isEmpty)

            try await session.advanceTime(by: 32 * 86_400)
            let renewed = try #require(await Transaction.latest(for: Demo.monthly)?.payloadValue)
            #expect(renewed.reason == .renewal && renewed.id != bought.id)
            let renewedInfo = try #require(renewed.advancedCommerceInfo)
            #expect(renewedInfo.items.map(\.details.price) == [Decimal(string: "5.99")!, Decimal(string: "3.99")!], "the new price, the offer's last period")
            #expect(renewedInfo.requestReferenceID == reference)

            let revoked = try await session.engine.revokeAdvancedCommerceSubscription(
                transactionID: renewed.id, refundType: "PRORATED", refundReason: "UNSATISFIED_WITH_PURCHASE"
            )
            _ = try revoked.get()
            let refunded = try #require(await Transaction.latest(for: Demo.monthly)?.payloadValue)
            #expect(refunded.revocationDate != nil)
            let refund = try #require(refunded.advancedCommerceInfo?.items.first?.refunds?.first)
            #expect(refund.type == .proRated && refund.reason == .unsatisfied)
            #expect(refund.amount > 0 && refund.amount < Decimal(string: "5.99")!)
            #expect(refund.date == refunded.revocationDate)
        }
    }
}
