#if canImport(StoreKit)
public import StoreKit
#else
public import OpenStoreKit
#endif

/// What ``ProductsCache/retrieveProducts(_:completion:)`` found.
public struct ProductsResult: Sendable {
    /// The products the App Store sells among those asked for, sorted by identifier.
    public var products: [SKProduct]
    /// The identifiers the App Store does not know, or does not sell in the customer's storefront.
    public var invalidProductIdentifiers: Set<String>
    /// Why the App Store could not be asked; `products` then holds only what was already cached.
    public var error: SKError?

    /// A result.
    public init(products: [SKProduct], invalidProductIdentifiers: Set<String>, error: SKError?) {
        self.products = products
        self.invalidProductIdentifiers = invalidProductIdentifiers
        self.error = error
    }

    /// The product with `identifier`, if it was found.
    public func product(withIdentifier identifier: String) -> SKProduct? {
        products.first { $0.productIdentifier == identifier }
    }
}

/// Fetches products from the App Store with `SKProductsRequest` and keeps them, so each product is asked for once.
///
/// ```swift
/// let cache = ProductsCache()
/// cache.retrieveProducts(["com.example.premium"]) { result in
///     for product in result.products { print(product.localizedTitle, product.localizedPrice ?? "") }
/// }
/// ```
///
/// Only the identifiers not cached yet are requested; asking for identifiers a request is already fetching joins
/// it. Identifiers the App Store does not know are remembered too. When everything asked for is known, `completion`
/// runs at once, on the caller's thread; otherwise it runs where StoreKit calls the request's delegate (the main
/// queue).
///
/// `@unchecked Sendable`: the cache and the requests in flight are guarded by `lock`.
open class ProductsCache: NSObject, SKProductsRequestDelegate, @unchecked Sendable {
    /// Makes the request for a set of product identifiers. The default asks the App Store; tests return a double.
    public typealias RequestFactory = (Set<String>) -> SKProductsRequest

    /// A request on its way, and everyone waiting for it.
    private struct InFlight {
        let request: SKProductsRequest
        let identifiers: Set<String>
        var waiting: [(requested: Set<String>, completion: (ProductsResult) -> Void)]
    }

    private let makeRequest: RequestFactory
    private let lock = NSLock()
    private var products: [String: SKProduct] = [:]
    private var invalidIdentifiers: Set<String> = []
    private var inFlight: [ObjectIdentifier: InFlight] = [:]

    /// A cache whose requests `makeRequest` makes: `SKProductsRequest(productIdentifiers:)` by default.
    public init(makeRequest: @escaping RequestFactory = { SKProductsRequest(productIdentifiers: $0) }) {
        self.makeRequest = makeRequest
        super.init()
    }

    /// The cached product with `identifier`, without asking the App Store.
    open func cachedProduct(withIdentifier identifier: String) -> SKProduct? {
        lock.withLock { products[identifier] }
    }

    /// Forgets every product and invalid identifier, for example after the storefront changed.
    open func removeAll() {
        lock.withLock {
            products = [:]
            invalidIdentifiers = []
        }
    }

    /// Calls `completion` with the products for `identifiers`, asking the App Store for those not cached yet.
    open func retrieveProducts(_ identifiers: Set<String>, completion: @escaping (ProductsResult) -> Void) {
        enum Next {
            case answer(ProductsResult)
            case wait
            case start(SKProductsRequest)
        }
        let next = lock.withLock { () -> Next in
            let missing = identifiers.subtracting(products.keys).subtracting(invalidIdentifiers)
            if missing.isEmpty { return .answer(result(for: identifiers, error: nil)) }
            if let key = inFlight.first(where: { $0.value.identifiers.isSuperset(of: missing) })?.key {
                inFlight[key]?.waiting.append((identifiers, completion))
                return .wait
            }
            let request = makeRequest(missing)
            inFlight[ObjectIdentifier(request)] = InFlight(request: request, identifiers: missing, waiting: [(identifiers, completion)])
            return .start(request)
        }
        switch next {
        case .answer(let result):
            completion(result)
        case .wait:
            break
        case .start(let request):
            request.delegate = self
            request.start()
        }
    }

    /// The cached products and invalid identifiers among `identifiers`. Call with `lock` held.
    private func result(for identifiers: Set<String>, error: SKError?) -> ProductsResult {
        ProductsResult(
            products: identifiers.compactMap { products[$0] }.sorted { $0.productIdentifier < $1.productIdentifier },
            invalidProductIdentifiers: identifiers.intersection(invalidIdentifiers), error: error
        )
    }

    /// Ends the request: caches what it found, then answers everyone who waited for it.
    private func complete(_ request: SKRequest, response: SKProductsResponse?, error: SKError?) {
        let answers = lock.withLock { () -> [(ProductsResult, (ProductsResult) -> Void)] in
            guard let flight = inFlight.removeValue(forKey: ObjectIdentifier(request)) else { return [] }
            if let response {
                for product in response.products { products[product.productIdentifier] = product }
                invalidIdentifiers.formUnion(response.invalidProductIdentifiers)
                // An identifier the App Store neither returned nor called invalid is invalid too.
                invalidIdentifiers.formUnion(flight.identifiers.subtracting(products.keys))
            }
            return flight.waiting.map { (result(for: $0.requested, error: error), $0.completion) }
        }
        for (result, completion) in answers { completion(result) }
    }

    // MARK: SKProductsRequestDelegate

    /// Caches the response's products and invalid identifiers and answers the callers waiting for it.
    open func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        complete(request, response: response, error: nil)
    }

    /// Answers the callers waiting for the request with the error and what was cached already.
    open func request(_ request: SKRequest, didFailWithError error: any Error) {
        complete(request, response: nil, error: SKError.fromStoreKit(error))
    }

    /// Nothing left to do: the response came first.
    open func requestDidFinish(_ request: SKRequest) {}
}
