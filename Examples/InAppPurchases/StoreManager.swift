#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif
import Foundation

/// Fetches product information from the App Store, as the sample's `StoreManager` does.
@MainActor
final class StoreManager: NSObject {
    static let shared = StoreManager()

    /// Products the App Store sells, in the order it returned them.
    private(set) var availableProducts: [SKProduct] = []
    /// Identifiers the App Store does not recognize.
    private(set) var invalidProductIdentifiers: [String] = []

    private var productRequest: SKProductsRequest?
    private var completion: CheckedContinuation<Void, Never>?

    /// Asks the App Store about the identifiers and waits for its answer.
    func fetchProducts(matchingIdentifiers identifiers: [String]) async {
        await withCheckedContinuation { continuation in
            completion = continuation
            // Keep a strong reference to the request until it completes.
            let request = SKProductsRequest(productIdentifiers: Set(identifiers))
            productRequest = request
            request.delegate = self
            request.start()
        }
    }

    private func complete() {
        productRequest = nil
        completion?.resume()
        completion = nil
    }
}

extension StoreManager: @preconcurrency SKProductsRequestDelegate {
    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        // Products with identifiers the App Store recognizes are available for purchase.
        if !response.products.isEmpty {
            availableProducts = response.products
        }
        // Identifiers the App Store doesn't recognize.
        if !response.invalidProductIdentifiers.isEmpty {
            invalidProductIdentifiers = response.invalidProductIdentifiers
        }
    }

    func requestDidFinish(_ request: SKRequest) {
        complete()
    }

    func request(_ request: SKRequest, didFailWithError error: any Error) {
        Terminal.say("Products request failed: \(error.localizedDescription)")
        complete()
    }
}
