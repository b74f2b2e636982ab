// A.11 SKProductsRequest, SKProductsResponse and SKProductsRequestDelegate, checked against api-surface.md: each
// declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A products response subclass in another module, the test double apps write: Apple's getters are `open`.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceProductsResponse: SKProductsResponse, @unchecked Sendable {
    // A.11 SKProductsResponse.products
    override var products: [SKProduct] { [ConformanceProduct()] }
    // A.11 SKProductsResponse.invalidProductIdentifiers
    override var invalidProductIdentifiers: [String] { [] }
}

/// A products request subclass in another module (what `SKRequest` makes overridable, `SKProductsRequest` inherits).
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceProductsRequest: SKProductsRequest, @unchecked Sendable {
    override func start() {}
}

/// A products request delegate that implements only what Apple requires.
private final class MinimalProductsDelegate: NSObject, SKProductsRequestDelegate {
    var received: [SKProduct] = []
    // A.11 SKProductsRequestDelegate.productsRequest(_:didReceive:) — required
    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {
        received = response.products
    }
}

@Suite("A.11 SKProductsRequest, SKProductsResponse and SKProductsRequestDelegate have Apple's declarations")
struct SKProductsRequestConformance {
    @Test("A.11 SKProductsRequest: the subclass, its initializer and narrower delegate")
    func request() {
        // A.11 SKProductsRequest — open class, subclass of SKRequest (NS_SWIFT_NONSENDABLE)
        let _: SKRequest.Type = SKProductsRequest.self

        // A.11 SKProductsRequest.init(productIdentifiers:)
        let _: (Set<String>) -> SKProductsRequest = SKProductsRequest.init(productIdentifiers:)

        // A.11 SKProductsRequest.delegate — re-declared with the narrower type
        let _: ReferenceWritableKeyPath<SKProductsRequest, (any SKProductsRequestDelegate)?> = \.delegate
        let request = ConformanceProductsRequest(productIdentifiers: ["a"])
        let delegate = MinimalProductsDelegate()
        request.delegate = delegate
        #expect(request.delegate === delegate, "A.11 SKProductsRequest.delegate keeps an SKProductsRequestDelegate")
    }

    @Test("A.11 SKProductsResponse: the class and its properties")
    func response() {
        // A.11 SKProductsResponse — open class, NSObject subclass, Sendable (NS_SWIFT_SENDABLE)
        requireNSObjectSubclass(SKProductsResponse.self)
        requireSendable(SKProductsResponse.self)
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKProductsResponse = { SKProductsResponse() }
        let _: () -> ConformanceProductsResponse = { ConformanceProductsResponse() }

        // A.11 SKProductsResponse.products
        let _: KeyPath<SKProductsResponse, [SKProduct]> = \.products
        // A.11 SKProductsResponse.invalidProductIdentifiers
        let _: KeyPath<SKProductsResponse, [String]> = \.invalidProductIdentifiers
    }

    @Test("A.11 SKProductsRequestDelegate: refines SKRequestDelegate, one requirement")
    func requestDelegate() {
        // A.11 SKProductsRequestDelegate — protocol refining SKRequestDelegate
        let minimal = MinimalProductsDelegate()
        let delegate: any SKProductsRequestDelegate = minimal
        let _: any SKRequestDelegate = delegate

        // A.11 SKProductsRequestDelegate.productsRequest(_:didReceive:)
        let _: (any SKProductsRequestDelegate, SKProductsRequest, SKProductsResponse) -> Void = {
            $0.productsRequest($1, didReceive: $2)
        }
        delegate.productsRequest(ConformanceProductsRequest(productIdentifiers: []), didReceive: ConformanceProductsResponse())
        #expect(minimal.received.map(\.productIdentifier) == ["conformance"])
        // The inherited SKRequestDelegate members stay optional for a products delegate.
        delegate.requestDidFinish(ConformanceProductsRequest(productIdentifiers: []))
    }
}
