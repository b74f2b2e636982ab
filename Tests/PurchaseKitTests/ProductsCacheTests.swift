#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif
import PurchaseKit
import Testing

/// The products cache, with requests and responses made by hand.
@Suite("ProductsCache with doubles")
struct ProductsCacheTests {
    /// Every request the cache made, in order.
    final class Requests: @unchecked Sendable {
        var made: [ProductsRequestDouble] = []
    }

    let requests = Requests()
    let cache: ProductsCache

    init() {
        let requests = requests
        cache = ProductsCache { identifiers in
            let request = ProductsRequestDouble(productIdentifiers: identifiers)
            requests.made.append(request)
            return request
        }
    }

    @Test("The first retrieval starts one request for the identifiers, as the cache's delegate, and answers with its response")
    func firstRetrieval() throws {
        var results: [ProductsResult] = []
        cache.retrieveProducts(["com.example.premium", "com.example.coins", "com.example.gone"]) { results.append($0) }
        let request = try #require(requests.made.first)
        #expect(requests.made.count == 1)
        #expect(request.requestedIdentifiers == ["com.example.premium", "com.example.coins", "com.example.gone"])
        #expect(request.startCount == 1)
        #expect(request.delegate === cache)
        #expect(results.isEmpty, "nothing before the App Store answers")

        request.respond(ProductsResponseDouble(
            products: [ProductDouble("com.example.premium"), ProductDouble("com.example.coins")],
            invalidProductIdentifiers: ["com.example.gone"]
        ))
        let result = try #require(results.first)
        #expect(results.count == 1, "requestDidFinish after the response completes nothing more")
        #expect(result.products.map(\.productIdentifier) == ["com.example.coins", "com.example.premium"])
        #expect(result.invalidProductIdentifiers == ["com.example.gone"])
        #expect(result.error == nil)
        #expect(result.product(withIdentifier: "com.example.premium")?.productIdentifier == "com.example.premium")
        #expect(cache.cachedProduct(withIdentifier: "com.example.coins") != nil)
    }

    @Test("Known products and invalid identifiers are answered from the cache at once, without a request")
    func answeredFromCache() throws {
        cache.retrieveProducts(["com.example.premium", "com.example.gone"]) { _ in }
        try #require(requests.made.first).respond(ProductsResponseDouble(products: [ProductDouble("com.example.premium")], invalidProductIdentifiers: ["com.example.gone"]))

        var result: ProductsResult?
        cache.retrieveProducts(["com.example.premium", "com.example.gone"]) { result = $0 }
        #expect(requests.made.count == 1)
        #expect(result?.products.map(\.productIdentifier) == ["com.example.premium"])
        #expect(result?.invalidProductIdentifiers == ["com.example.gone"])
    }

    @Test("Only the identifiers not cached yet are requested; the answer has the cached ones too")
    func requestsOnlyMissing() throws {
        cache.retrieveProducts(["com.example.premium"]) { _ in }
        try #require(requests.made.first).respond(ProductsResponseDouble(products: [ProductDouble("com.example.premium")]))

        var result: ProductsResult?
        cache.retrieveProducts(["com.example.premium", "com.example.coins"]) { result = $0 }
        let second = try #require(requests.made.last)
        #expect(requests.made.count == 2)
        #expect(second.requestedIdentifiers == ["com.example.coins"])
        second.respond(ProductsResponseDouble(products: [ProductDouble("com.example.coins")]))
        #expect(result?.products.map(\.productIdentifier) == ["com.example.coins", "com.example.premium"])
    }

    @Test("Retrievals of identifiers a request is already fetching join it")
    func joinsRequestInFlight() throws {
        var answers: [[String]] = []
        cache.retrieveProducts(["com.example.premium", "com.example.coins"]) { answers.append($0.products.map(\.productIdentifier)) }
        cache.retrieveProducts(["com.example.coins"]) { answers.append($0.products.map(\.productIdentifier)) }
        #expect(requests.made.count == 1)
        try #require(requests.made.first).respond(ProductsResponseDouble(products: [ProductDouble("com.example.premium"), ProductDouble("com.example.coins")]))
        #expect(answers == [["com.example.coins", "com.example.premium"], ["com.example.coins"]])
    }

    @Test("An identifier the response neither returns nor calls invalid counts as invalid")
    func missingFromResponse() throws {
        var result: ProductsResult?
        cache.retrieveProducts(["com.example.premium", "com.example.unlisted"]) { result = $0 }
        try #require(requests.made.first).respond(ProductsResponseDouble(products: [ProductDouble("com.example.premium")]))
        #expect(result?.invalidProductIdentifiers == ["com.example.unlisted"])
    }

    @Test("A failed request answers with the StoreKit error, caches nothing, and the next retrieval asks again")
    func failure() throws {
        var result: ProductsResult?
        cache.retrieveProducts(["com.example.premium"]) { result = $0 }
        try #require(requests.made.first).fail(NSError(domain: SKErrorDomain, code: SKError.cloudServiceNetworkConnectionFailed.rawValue))
        #expect(result?.error?.code == .cloudServiceNetworkConnectionFailed)
        #expect(result?.products.isEmpty == true)
        #expect(cache.cachedProduct(withIdentifier: "com.example.premium") == nil)

        cache.retrieveProducts(["com.example.premium"]) { result = $0 }
        #expect(requests.made.count == 2)
    }

    @Test("removeAll() forgets products and invalid identifiers")
    func removeAll() throws {
        cache.retrieveProducts(["com.example.premium", "com.example.gone"]) { _ in }
        try #require(requests.made.first).respond(ProductsResponseDouble(products: [ProductDouble("com.example.premium")], invalidProductIdentifiers: ["com.example.gone"]))
        cache.removeAll()
        #expect(cache.cachedProduct(withIdentifier: "com.example.premium") == nil)
        cache.retrieveProducts(["com.example.premium", "com.example.gone"]) { _ in }
        #expect(requests.made.last?.requestedIdentifiers == ["com.example.premium", "com.example.gone"])
    }
}

/// Prices and offers as the wrapper writes them, from products and offers made by hand.
@Suite("Price and offer descriptions")
struct FormattingTests {
    @Test(
        "A price is written in the storefront's currency, the way the price locale writes it",
        arguments: [
            ("en_US@currency=USD", "4.99", "$4.99"),
            ("en_GB@currency=GBP", "3.49", "£3.49"),
            ("de_DE@currency=EUR", "4.99", "4,99\u{00A0}€"),
            // An American device in the French store: euros, written the American way.
            ("en_US@currency=EUR", "0.99", "€0.99"),
        ]
    )
    func localizedPrice(locale: String, price: String, expected: String) {
        #expect(ProductDouble("com.example.premium", price: price, locale: locale).localizedPrice == expected)
    }

    @Test(
        "Subscription periods read as the App Store shows them",
        arguments: [
            (1, SKProduct.PeriodUnit.day, "1 day"), (3, .day, "3 days"), (7, .day, "1 week"), (14, .day, "2 weeks"),
            (1, .week, "1 week"), (1, .month, "1 month"), (6, .month, "6 months"), (1, .year, "1 year"),
        ]
    )
    func periods(units: Int, unit: SKProduct.PeriodUnit, expected: String) {
        #expect(PeriodDouble(units, unit).periodDescription == expected)
        let product = ProductDouble("com.example.plus", period: PeriodDouble(units, unit))
        #expect(product.subscriptionPeriodDescription == expected)
    }

    @Test("A product that is not a subscription has no period and no introductory offer")
    func notASubscription() {
        let product = ProductDouble("com.example.premium")
        #expect(product.subscriptionPeriodDescription == nil)
        #expect(product.introductoryOfferDescription == nil)
    }

    @Test("A free trial says how long it lasts")
    func freeTrial() {
        let trial = DiscountDouble(price: "0", period: PeriodDouble(1, .week), periods: 1, mode: .freeTrial)
        let product = ProductDouble("com.example.plus", price: "4.99", period: PeriodDouble(1, .month), introductoryOffer: trial)
        #expect(product.introductoryOfferDescription == "1 week free")
        #expect(DiscountDouble(price: "0", period: PeriodDouble(1, .week), periods: 2, mode: .freeTrial).offerDescription == "2 weeks free")
    }

    @Test("Pay as you go gives the price per period and the offer's length")
    func payAsYouGo() {
        let offer = DiscountDouble(price: "0.99", period: PeriodDouble(1, .month), periods: 3, mode: .payAsYouGo)
        #expect(offer.localizedPrice == "$0.99")
        #expect(offer.durationDescription == "3 months")
        #expect(offer.offerDescription == "$0.99 a month for 3 months")
        let quarterly = DiscountDouble(price: "1.99", locale: "en_GB@currency=GBP", period: PeriodDouble(3, .month), periods: 2, mode: .payAsYouGo)
        #expect(quarterly.offerDescription == "£1.99 every 3 months for 6 months")
    }

    @Test("Pay up front gives one price for the whole offer, in the offer's own price locale")
    func payUpFront() {
        let offer = DiscountDouble(price: "2.99", locale: "de_DE@currency=EUR", period: PeriodDouble(6, .month), periods: 1, mode: .payUpFront)
        #expect(offer.offerDescription == "2,99\u{00A0}€ for 6 months")
    }

    @Test("Promotional offers are found by identifier")
    func promotionalOffers() throws {
        let winBack = DiscountDouble(price: "1.99", identifier: "win-back", period: PeriodDouble(1, .month), periods: 2, mode: .payAsYouGo, type: .subscription)
        let product = ProductDouble("com.example.plus", period: PeriodDouble(1, .month), promotionalOffers: [winBack])
        let offer = try #require(product.discount(withIdentifier: "win-back"))
        #expect(offer.type == .subscription)
        #expect(offer.offerDescription == "$1.99 a month for 2 months")
        #expect(product.discount(withIdentifier: "nope") == nil)
    }
}
