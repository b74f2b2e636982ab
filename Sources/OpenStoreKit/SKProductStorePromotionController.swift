import AppStoreEngine
public import Foundation

/// Whether a promoted in-app purchase shows on the App Store on this device. Raw values are Apple's.
@frozen public enum SKProductStorePromotionVisibility: Int, Sendable {
    /// As set in App Store Connect.
    case `default` = 0
    /// Shown on this device.
    case show = 1
    /// Hidden on this device.
    case hide = 2
}

/// Overrides the visibility and order of promoted in-app purchases on this device.
///
/// Overrides belong to the device and the app: they are kept in the device's state for the app and survive
/// relaunches. `default()` uses `SKPaymentQueue.default()`'s store and device;
/// `SKProductStorePromotionController(paymentQueue:)` uses another queue's. Completion handlers run on the
/// queue's callback queue.
///
/// `@unchecked Sendable`: its only stored property is a `let` of a `Sendable` type.
open class SKProductStorePromotionController: NSObject, @unchecked Sendable {
    private let queue: SKPaymentQueue?

    /// A controller for the device and app of `paymentQueue`.
    public init(paymentQueue: SKPaymentQueue) {
        queue = paymentQueue
        super.init()
    }

    /// A controller for `SKPaymentQueue.default()`'s device and app, as StoreKit's `init()` makes.
    public required override init() {
        queue = nil
        super.init()
    }

    private static let defaultControllers = SharedInstances()

    /// The controller for `SKPaymentQueue.default()`. Called on a subclass (a test double), it gives that class's
    /// one instance.
    open class func `default`() -> Self {
        defaultControllers.instance(of: self) { self.init() }
    }

    private var paymentQueue: SKPaymentQueue { queue ?? SKPaymentQueue.default() }

    /// The visibility override of a product on this device; `.default` when there is none.
    open func promotionVisibility(for product: SKProduct) async throws -> SKProductStorePromotionVisibility {
        let store = try deviceState()
        return store.current.promotionVisibility[product.productIdentifier].flatMap(SKProductStorePromotionVisibility.init) ?? .default
    }

    /// Reads the visibility override of a product and hands it to `completionHandler`.
    open func fetchStorePromotionVisibility(
        for product: SKProduct,
        completionHandler: (@Sendable (SKProductStorePromotionVisibility, (any Error)?) -> Void)? = nil
    ) {
        complete(completionHandler.map { handler in { handler($0 ?? .default, $1) } }) {
            try await self.promotionVisibility(for: product)
        }
    }

    /// Overrides the visibility of a product on this device; `.default` removes the override.
    ///
    /// - Throws: ``SKError`` `storeProductNotAvailable` when the store does not sell the product.
    open func update(promotionVisibility: SKProductStorePromotionVisibility, for product: SKProduct) async throws {
        let store = try deviceState()
        try await requireSold([product.productIdentifier])
        store.update { state in
            state.promotionVisibility[product.productIdentifier] = promotionVisibility == .default ? nil : promotionVisibility.rawValue
        }
    }

    /// Overrides the visibility of a product and calls `completionHandler` with `nil` or the error.
    open func update(
        storePromotionVisibility promotionVisibility: SKProductStorePromotionVisibility, for product: SKProduct,
        completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        complete(completionHandler.map { handler in { _, error in handler(error) } }) {
            try await self.update(promotionVisibility: promotionVisibility, for: product)
        }
    }

    /// The products whose promotion order is overridden on this device, in that order; empty when there is no
    /// override.
    open func promotionOrder() async throws -> [SKProduct] {
        let store = try deviceState()
        let order = store.current.promotionOrder
        guard !order.isEmpty else { return [] }
        let queue = paymentQueue
        let environment = try queue.environment()
        let products: [SKProduct]
        do throws(StoreError) {
            products = try await queue.makeProducts(for: Set(order), in: environment)
        } catch {
            throw SKError(error)
        }
        return order.compactMap { id in products.first { $0.productIdentifier == id } }
    }

    /// Reads the overridden promotion order and hands it to `completionHandler`.
    open func fetchStorePromotionOrder(completionHandler: (@Sendable ([SKProduct], (any Error)?) -> Void)? = nil) {
        complete(completionHandler.map { handler in { handler($0 ?? [], $1) } }) {
            try await self.promotionOrder()
        }
    }

    /// Overrides the promotion order on this device: these products first, the others after them in their
    /// default order. An empty array removes the override.
    ///
    /// - Throws: ``SKError`` `storeProductNotAvailable` when the store does not sell one of the products.
    open func update(promotionOrder: [SKProduct]) async throws {
        let store = try deviceState()
        let ids = promotionOrder.map(\.productIdentifier)
        try await requireSold(ids)
        store.update { $0.promotionOrder = ids }
    }

    /// Overrides the promotion order and calls `completionHandler` with `nil` or the error.
    open func update(storePromotionOrder promotionOrder: [SKProduct], completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        complete(completionHandler.map { handler in { _, error in handler(error) } }) {
            try await self.update(promotionOrder: promotionOrder)
        }
    }

    private func deviceState() throws -> DeviceStateStore {
        DeviceStateStore.forAppDirectory(try paymentQueue.environment().appDirectory)
    }

    private func requireSold(_ ids: [String]) async throws {
        let queue = paymentQueue
        let environment = try queue.environment()
        let sold: [CatalogProduct]
        do throws(StoreError) {
            sold = try await environment.connection.products(for: Set(ids))
        } catch {
            throw SKError(error)
        }
        if let missing = ids.first(where: { id in !sold.contains { $0.id == id } }) {
            throw SKError(.storeProductNotAvailable, userInfo: [NSLocalizedDescriptionKey: "The store does not sell \(missing)."])
        }
    }

    private func complete<Value: Sendable>(
        _ handler: (@Sendable (Value?, (any Error)?) -> Void)?, _ work: @escaping @Sendable () async throws -> Value
    ) {
        let queue = paymentQueue
        queue.pendingWork.begin()
        Task {
            defer { queue.pendingWork.end() }
            let result: Result<Value, any Error>
            do {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            guard let handler else { return }
            queue.pendingWork.begin()
            queue.callbackQueue.async {
                defer { queue.pendingWork.end() }
                switch result {
                case .success(let value): handler(value, nil)
                case .failure(let error): handler(nil, error)
                }
            }
        }
    }
}
