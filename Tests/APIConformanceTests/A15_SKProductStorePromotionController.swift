// A.15 SKProductStorePromotionController and SKProductStorePromotionVisibility, checked against api-surface.md: each
// declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A promotion controller subclass in another module: Apple's members are `open`. An override repeats the exact
/// signature, so it also pins `async`, `throws` and the `@Sendable` completion handlers.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformancePromotionController: SKProductStorePromotionController, @unchecked Sendable {
    // A.15 SKProductStorePromotionController.default()
    override class func `default`() -> Self { self.init() }
    // A.15 SKProductStorePromotionController.fetchStorePromotionVisibility(for:completionHandler:)
    override func fetchStorePromotionVisibility(
        for product: SKProduct,
        completionHandler: (@Sendable (SKProductStorePromotionVisibility, (any Error)?) -> Void)? = nil
    ) {}
    // A.15 SKProductStorePromotionController.promotionVisibility(for:)
    override func promotionVisibility(for product: SKProduct) async throws -> SKProductStorePromotionVisibility { .show }
    // A.15 SKProductStorePromotionController.update(storePromotionVisibility:for:completionHandler:)
    override func update(
        storePromotionVisibility promotionVisibility: SKProductStorePromotionVisibility, for product: SKProduct,
        completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
    ) {}
    // A.15 SKProductStorePromotionController.update(promotionVisibility:for:)
    override func update(promotionVisibility: SKProductStorePromotionVisibility, for product: SKProduct) async throws {}
    // A.15 SKProductStorePromotionController.fetchStorePromotionOrder(completionHandler:)
    override func fetchStorePromotionOrder(completionHandler: (@Sendable ([SKProduct], (any Error)?) -> Void)? = nil) {}
    // A.15 SKProductStorePromotionController.promotionOrder()
    override func promotionOrder() async throws -> [SKProduct] { [] }
    // A.15 SKProductStorePromotionController.update(storePromotionOrder:completionHandler:)
    override func update(storePromotionOrder promotionOrder: [SKProduct], completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {}
    // A.15 SKProductStorePromotionController.update(promotionOrder:)
    override func update(promotionOrder: [SKProduct]) async throws {}
}

/// Names every case: a case added to or removed from `SKProductStorePromotionVisibility` breaks this `switch`.
private func name(_ visibility: SKProductStorePromotionVisibility) -> String {
    switch visibility {
    case .default: "default"
    case .show: "show"
    case .hide: "hide"
    }
}

@Suite("A.15 SKProductStorePromotionController has Apple's declarations")
struct SKProductStorePromotionControllerConformance {
    typealias Controller = SKProductStorePromotionController
    typealias Visibility = SKProductStorePromotionVisibility

    @Test("A.15 SKProductStorePromotionController: the class and its methods, with and without completion handlers")
    func controller() {
        // A.15 SKProductStorePromotionController — open class, NSObject subclass
        requireNSObjectSubclass(Controller.self)
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKProductStorePromotionController = { SKProductStorePromotionController() }
        let _: () -> ConformancePromotionController = { ConformancePromotionController() }

        // A.15 SKProductStorePromotionController.default()
        let _: () -> Controller = Controller.default
        let _: () -> ConformancePromotionController = ConformancePromotionController.default

        // A.15 SKProductStorePromotionController.fetchStorePromotionVisibility(for:completionHandler:)
        let _: (Controller) -> (SKProduct, (@Sendable (Visibility, (any Error)?) -> Void)?) -> Void =
            Controller.fetchStorePromotionVisibility(for:completionHandler:)
        let _: (Controller, SKProduct) -> Void = { $0.fetchStorePromotionVisibility(for: $1) }
        let _: (Controller, SKProduct) -> Void = { $0.fetchStorePromotionVisibility(for: $1) { _, _ in } }

        // A.15 SKProductStorePromotionController.promotionVisibility(for:)
        let _: (Controller) -> (SKProduct) async throws -> Visibility = Controller.promotionVisibility(for:)

        // A.15 SKProductStorePromotionController.update(storePromotionVisibility:for:completionHandler:)
        let _: (Controller) -> (Visibility, SKProduct, (@Sendable ((any Error)?) -> Void)?) -> Void =
            Controller.update(storePromotionVisibility:for:completionHandler:)
        let _: (Controller, SKProduct) -> Void = { $0.update(storePromotionVisibility: .hide, for: $1) }

        // A.15 SKProductStorePromotionController.update(promotionVisibility:for:)
        let _: (Controller) -> (Visibility, SKProduct) async throws -> Void = Controller.update(promotionVisibility:for:)

        // A.15 SKProductStorePromotionController.fetchStorePromotionOrder(completionHandler:)
        let _: (Controller) -> ((@Sendable ([SKProduct], (any Error)?) -> Void)?) -> Void =
            Controller.fetchStorePromotionOrder(completionHandler:)
        let _: (Controller) -> Void = { $0.fetchStorePromotionOrder() }

        // A.15 SKProductStorePromotionController.promotionOrder()
        let _: (Controller) -> () async throws -> [SKProduct] = Controller.promotionOrder

        // A.15 SKProductStorePromotionController.update(storePromotionOrder:completionHandler:)
        let _: (Controller) -> ([SKProduct], (@Sendable ((any Error)?) -> Void)?) -> Void =
            Controller.update(storePromotionOrder:completionHandler:)
        let _: (Controller, [SKProduct]) -> Void = { $0.update(storePromotionOrder: $1) }

        // A.15 SKProductStorePromotionController.update(promotionOrder:)
        let _: (Controller) -> ([SKProduct]) async throws -> Void = Controller.update(promotionOrder:)
    }

    @Test("A.15 SKProductStorePromotionVisibility: Int raw values in Apple's order, every case, Sendable")
    func visibility() {
        // A.15 SKProductStorePromotionVisibility — enum: Int, Sendable (@frozen)
        requireRawValue(Visibility.self, Int.self)
        requireSendable(Visibility.self)
        let _: (Int) -> Visibility? = Visibility.init(rawValue:)
        #expect(name(.show) == "show")

        // A.15 SKProductStorePromotionVisibility.default = 0
        #expect(Visibility.default.rawValue == 0, "A.15 SKProductStorePromotionVisibility.default = 0")
        // A.15 SKProductStorePromotionVisibility.show = 1
        #expect(Visibility.show.rawValue == 1, "A.15 SKProductStorePromotionVisibility.show = 1")
        // A.15 SKProductStorePromotionVisibility.hide = 2
        #expect(Visibility.hide.rawValue == 2, "A.15 SKProductStorePromotionVisibility.hide = 2")
    }
}
