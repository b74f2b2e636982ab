import AppStoreEngine
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

@Suite("Products, payments and errors")
struct ProductTests {
    @Test("A products request returns localized products in the store's order and lists unknown identifiers")
    func productsRequest() async throws {
        let harness = try Harness(attach: false)
        let response = try await ProductsFetcher.fetch([Demo.premium, Demo.coins, "com.example.nope"], from: harness.queue)
        #expect(response.products.map(\.productIdentifier) == [Demo.coins, Demo.premium])
        #expect(response.invalidProductIdentifiers == ["com.example.nope"])
        let premium = try #require(response.products.last)
        #expect(premium.localizedTitle == "Premium")
        #expect(premium.localizedDescription == "Unlocks every feature, for the whole family")
        #expect(premium.price == NSDecimalNumber(string: "9.99"))
        #expect(premium.isFamilyShareable)
        #expect(premium.subscriptionPeriod == nil)
        #expect(premium.introductoryPrice == nil)
        #expect(premium.subscriptionGroupIdentifier == nil)
        #expect(premium.discounts.isEmpty)
        #expect(!premium.isDownloadable)
    }

    @Test("Prices are formatted with the storefront's currency in the session's locale, and titles follow the locale")
    func localizedPrices() async throws {
        let harness = try Harness(attach: false)
        let usd = try #require(try await harness.products(Demo.coins)[Demo.coins])
        #expect(format(usd) == "$0.99")
        harness.session.storefront = "FRA"
        harness.session.locale = Locale(identifier: "fr_FR")
        let eur = try #require(try await harness.products(Demo.coins)[Demo.coins])
        #expect(eur.priceLocale.currency?.identifier == "EUR")
        #expect(format(eur).contains("€"))
        #expect(format(eur).contains("0,99"))
        #expect(eur.localizedTitle == "100 pièces")
    }

    @Test("Auto-renewable subscriptions carry their period, group, introductory offer and promotional offers")
    func subscriptionDetails() async throws {
        let harness = try Harness(attach: false)
        let products = try await harness.products(Demo.monthly, Demo.yearly)
        let monthly = try #require(products[Demo.monthly])
        #expect(monthly.subscriptionPeriod?.unit == .month)
        #expect(monthly.subscriptionPeriod?.numberOfUnits == 1)
        #expect(monthly.subscriptionGroupIdentifier == "DE0A0300")
        let intro = try #require(monthly.introductoryPrice)
        #expect(intro.paymentMode == .freeTrial)
        #expect(intro.type == .introductory)
        #expect(intro.identifier == nil)
        #expect(intro.price == NSDecimalNumber.zero)
        #expect(intro.subscriptionPeriod.unit == .week)
        #expect(intro.numberOfPeriods == 1)
        let offer = try #require(monthly.discounts.first)
        #expect(offer.identifier == "plus.monthly.comeback")
        #expect(offer.type == .subscription)
        #expect(offer.paymentMode == .payAsYouGo)
        #expect(offer.numberOfPeriods == 3)
        #expect(offer.price == NSDecimalNumber(string: "1.99"))
        #expect(products[Demo.yearly]?.subscriptionPeriod?.unit == .year)
    }

    @Test("Enum raw values are Apple's")
    func rawValues() {
        #expect(SKPaymentTransactionState.purchasing.rawValue == 0)
        #expect(SKPaymentTransactionState.deferred.rawValue == 4)
        #expect(SKProduct.PeriodUnit.year.rawValue == 3)
        #expect(SKProductDiscount.PaymentMode.freeTrial.rawValue == 2)
        #expect(SKDownloadState.cancelled.rawValue == 5)
        #expect(SKProductStorePromotionVisibility.hide.rawValue == 2)
        #expect(SKError.Code.storeProductNotAvailable.rawValue == 5)
        #expect(SKError.Code.unauthorizedRequestData.rawValue == 10)
        #expect(SKError.Code.ineligibleForOffer.rawValue == 18)
        #expect(SKError.Code.overlayPresentedInBackgroundScene.rawValue == 20)
        #expect(SKError.Code.paymentMethodBindingConfigurationRequired.rawValue == 21)
        #expect(SKTestError.Code.invalidAction.rawValue == 7)
        #expect(SKDownloadTimeRemainingUnknown == -1)
    }

    @Test("SKError bridges to NSError in SKErrorDomain and matches codes in catch clauses")
    func errors() {
        let error = SKError(.paymentCancelled)
        let bridged = error as NSError
        #expect(bridged.domain == SKErrorDomain)
        #expect(bridged.domain == "SKErrorDomain")
        #expect(bridged.code == 2)
        #expect(!error.localizedDescription.isEmpty)
        #expect(error == SKError(SKError.paymentCancelled))
        do {
            throw error
        } catch SKError.paymentCancelled {
            // Matched by code, as on Apple platforms.
        } catch {
            Issue.record("SKError.paymentCancelled did not match")
        }
        #expect((SKTestError(.noTransactionFound) as NSError).domain == SKTestErrorDomain)
    }

    @Test("copy gives an immutable payment and mutableCopy a mutable one with the same values")
    func paymentCopies() async throws {
        let harness = try Harness(attach: false)
        let product = try #require(try await harness.products(Demo.coins)[Demo.coins])
        let payment = SKMutablePayment(product: product)
        payment.quantity = 4
        payment.applicationUsername = "player-7"
        payment.simulatesAskToBuyInSandbox = true
        let discount = SKPaymentDiscount(identifier: "offer", keyIdentifier: "KEY", nonce: UUID(), signature: "c2ln", timestamp: 1_700_000_000_000)
        payment.paymentDiscount = discount
        let copy = payment.copy() as! SKPayment
        #expect(!(copy is SKMutablePayment))
        #expect(copy.productIdentifier == Demo.coins && copy.quantity == 4 && copy.applicationUsername == "player-7")
        #expect(copy.simulatesAskToBuyInSandbox)
        #expect(copy.paymentDiscount?.identifier == "offer")
        #expect(copy.paymentDiscount?.timestamp == 1_700_000_000_000)
        let mutable = copy.mutableCopy() as! SKMutablePayment
        mutable.quantity = 1
        #expect(copy.quantity == 4)
        #expect(SKPayment(product: product).quantity == 1)
    }

    @Test("A test double can subclass SKProduct and override its properties")
    func productSubclass() {
        final class FakeProduct: SKProduct, @unchecked Sendable {
            override var productIdentifier: String { "fake" }
            override var price: NSDecimalNumber { NSDecimalNumber(string: "1.23") }
        }
        let product = FakeProduct()
        #expect(SKPayment(product: product).productIdentifier == "fake")
        #expect(product.price == NSDecimalNumber(string: "1.23"))
    }

    @Test("The payment queue's observers are the app's own NSObject subclasses, called through the protocol")
    func observerDispatch() async throws {
        let harness = try Harness(attach: false)
        let observer = PlainObserver()
        harness.queue.add(observer)
        #expect(harness.queue.transactionObservers.count == 1)
        #expect(harness.queue.transactionObservers.first === observer)
        harness.queue.restoreCompletedTransactions()
        try await observer.restored.wait(on: harness.queue)
        harness.queue.remove(observer)
        #expect(harness.queue.transactionObservers.isEmpty)
    }

    private func format(_ product: SKProduct) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = product.priceLocale
        return formatter.string(from: product.price) ?? ""
    }
}
