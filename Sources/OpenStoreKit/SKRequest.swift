import AppStoreEngine
public import Foundation

/// A request to the App Store: the base of ``SKProductsRequest`` and ``SKReceiptRefreshRequest``.
///
/// Set a ``delegate``, call ``start()``, and keep a strong reference until the delegate hears back. A request
/// made without a payment queue uses `SKPaymentQueue.default()`'s store; delegate methods run on the queue's
/// callback queue (the main queue by default).
///
/// `@unchecked Sendable`: the delegate and progress are guarded by the lock of `progress`.
open class SKRequest: NSObject, SKRequestDelegateProperty, @unchecked Sendable {
    private let progress = Locked(Progress())
    private let queue: SKPaymentQueue?

    private struct Progress {
        weak var delegate: (any SKRequestDelegate)?
        var started = false
        var cancelled = false
    }

    /// A request to the store of `SKPaymentQueue.default()`, as StoreKit's `init()` makes.
    public override init() {
        queue = nil
        super.init()
    }

    init(paymentQueue: SKPaymentQueue?) {
        queue = paymentQueue
        super.init()
    }

    /// The delegate, held weakly, whatever its type.
    var anyDelegate: (any SKRequestDelegate)? {
        get { progress.withLock { $0.delegate } }
        set { progress.withLock { $0.delegate = newValue } }
    }

    /// Sends the request. Starting a request twice does nothing the second time.
    open func start() {
        let first = progress.withLock { progress -> Bool in
            defer { progress.started = true }
            return !progress.started
        }
        guard first else { return }
        let queue = paymentQueue
        queue.pendingWork.begin()
        Task {
            await self.perform(with: queue)
            queue.pendingWork.end()
        }
    }

    /// Cancels the request: the delegate hears nothing more.
    open func cancel() {
        progress.withLock { $0.cancelled = true }
    }

    var paymentQueue: SKPaymentQueue { queue ?? SKPaymentQueue.default() }

    /// The request's work; subclasses answer through ``finish(on:_:)``.
    func perform(with queue: SKPaymentQueue) async {}

    /// Tells the delegate the outcome on the queue's callback queue, unless the request was cancelled.
    /// `success` runs first for a request that succeeded, then `requestDidFinish(_:)`.
    func finish(on queue: SKPaymentQueue, _ outcome: Result<Void, SKError>, success: @escaping @Sendable (SKRequest) -> Void = { _ in }) {
        queue.pendingWork.begin()
        queue.callbackQueue.async {
            defer { queue.pendingWork.end() }
            guard !self.progress.current.cancelled else { return }
            switch outcome {
            case .success:
                success(self)
                self.anyDelegate?.requestDidFinish(self)
            case .failure(let error):
                self.anyDelegate?.request(self, didFailWithError: error)
            }
        }
    }
}

/// Gives each request its `delegate` property with the type StoreKit declares for it: ``SKRequestDelegate`` on
/// ``SKRequest`` and ``SKReceiptRefreshRequest``, ``SKProductsRequestDelegate`` on ``SKProductsRequest``.
///
/// Objective-C lets `SKProductsRequest` redeclare its superclass's `delegate` with a narrower type; a Swift
/// class cannot, so the two properties live in constrained extensions of this protocol, and the most specific
/// one applies: `productsRequest.delegate = self` takes an ``SKProductsRequestDelegate``, and reading it gives
/// one back. Apps never use this protocol by name. The delegate is held weakly, as StoreKit does.
public protocol SKRequestDelegateProperty: AnyObject {}

extension SKRequestDelegateProperty where Self: SKRequest {
    /// The object told when the request finishes or fails, held weakly.
    public var delegate: (any SKRequestDelegate)? {
        get { anyDelegate }
        set { anyDelegate = newValue }
    }
}

extension SKRequestDelegateProperty where Self: SKProductsRequest {
    /// The object that receives the products and is told when the request finishes or fails, held weakly.
    public var delegate: (any SKProductsRequestDelegate)? {
        get { anyDelegate as? any SKProductsRequestDelegate }
        set { anyDelegate = newValue }
    }
}

/// The methods a request calls when it finishes or fails. Both have default implementations that do nothing.
public protocol SKRequestDelegate: NSObjectProtocol {
    /// Tells the delegate the request finished.
    func requestDidFinish(_ request: SKRequest)
    /// Tells the delegate the request failed.
    func request(_ request: SKRequest, didFailWithError error: any Error)
}

extension SKRequestDelegate {
    /// Does nothing.
    public func requestDidFinish(_ request: SKRequest) {}
    /// Does nothing.
    public func request(_ request: SKRequest, didFailWithError error: any Error) {}
}

/// A request for the localized names, descriptions and prices of products.
///
/// Set a delegate that conforms to ``SKProductsRequestDelegate``: it receives an ``SKProductsResponse`` with
/// the products the store sells and the identifiers it does not know, then `requestDidFinish(_:)`.
open class SKProductsRequest: SKRequest, @unchecked Sendable {
    private let identifiers: Set<String>

    /// A request for the products with these identifiers, from `SKPaymentQueue.default()`'s store.
    public init(productIdentifiers: Set<String>) {
        identifiers = productIdentifiers
        super.init(paymentQueue: nil)
    }

    /// A request for the products with these identifiers, from the store of `paymentQueue`.
    public init(productIdentifiers: Set<String>, paymentQueue: SKPaymentQueue) {
        identifiers = productIdentifiers
        super.init(paymentQueue: paymentQueue)
    }

    override func perform(with queue: SKPaymentQueue) async {
        do throws(SKError) {
            let environment = try queue.storeEnvironment()
            let products: [SKProduct]
            do throws(StoreError) {
                products = try await queue.makeProducts(for: identifiers, in: environment)
            } catch {
                throw SKError(error)
            }
            let found = Set(products.map(\.productIdentifier))
            let response = SKProductsResponse(products: products, invalidProductIdentifiers: identifiers.subtracting(found).sorted())
            finish(on: queue, .success(())) { request in
                guard let request = request as? SKProductsRequest else { return }
                request.delegate?.productsRequest(request, didReceive: response)
            }
        } catch {
            finish(on: queue, .failure(error))
        }
    }
}

/// The methods a products request calls with its response.
public protocol SKProductsRequestDelegate: SKRequestDelegate {
    /// Hands over the store's response; `requestDidFinish(_:)` follows.
    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse)
}

/// The store's answer to a products request.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type.
open class SKProductsResponse: NSObject, @unchecked Sendable {
    private let found: [SKProduct]
    private let invalid: [String]

    /// A response with no products, as StoreKit's `init()` makes; test doubles override the properties.
    public override init() {
        found = []
        invalid = []
        super.init()
    }

    init(products: [SKProduct], invalidProductIdentifiers: [String]) {
        found = products
        invalid = invalidProductIdentifiers
        super.init()
    }

    /// The products the store sells, in the store's order.
    open var products: [SKProduct] { found }

    /// The requested identifiers the store does not know.
    open var invalidProductIdentifiers: [String] { invalid }
}

/// Receipt-refresh property: ask for an expired receipt (a sandbox test switch; `NSNumber` of a `Bool`).
public let SKReceiptPropertyIsExpired = "expired"
/// Receipt-refresh property: ask for a revoked receipt (a sandbox test switch).
public let SKReceiptPropertyIsRevoked = "revoked"
/// Receipt-refresh property: ask for a volume-purchase receipt (a sandbox test switch).
public let SKReceiptPropertyIsVolumePurchase = "vpp"

/// A request for a fresh app receipt, written where `appStoreReceiptURL` points.
///
/// The receipt exists only once the customer bought something in the app; refreshing before that finishes
/// without a receipt. The sandbox test properties are accepted and ignored.
open class SKReceiptRefreshRequest: SKRequest, @unchecked Sendable {
    private let properties: Locked<[String: Any]?>

    /// A refresh request with optional sandbox test properties.
    public init(receiptProperties properties: [String: Any]? = nil) {
        self.properties = Locked(properties)
        super.init(paymentQueue: nil)
    }

    /// A refresh request for the receipt of `paymentQueue`'s app and device.
    public init(receiptProperties properties: [String: Any]? = nil, paymentQueue: SKPaymentQueue) {
        self.properties = Locked(properties)
        super.init(paymentQueue: paymentQueue)
    }

    /// The properties the request was made with.
    open var receiptProperties: [String: Any]? { properties.current }

    override func perform(with queue: SKPaymentQueue) async {
        let environment: StoreEnvironment
        do throws(SKError) {
            environment = try queue.storeEnvironment()
        } catch {
            return finish(on: queue, .failure(error))
        }
        let update = await withCheckedContinuation { continuation in
            queue.enqueue {
                continuation.resume(returning: await queue.updateReceipt(in: environment, afterPurchase: false))
            }
        }
        switch update {
        case .written, .noPurchases:
            finish(on: queue, .success(()))
        case .failed(let reason):
            finish(on: queue, .failure(SKError(.unknown, userInfo: [NSLocalizedDescriptionKey: "The receipt could not be refreshed: \(reason)"])))
        }
    }
}
