import AppStoreEngine
import Foundation

/// A purchase the customer started on the App Store (a promoted in-app purchase) that the app should complete
/// by calling `purchase()` on ``product``.
public struct PurchaseIntent: Identifiable, Equatable, Sendable {
    /// The product's identifier.
    public var id: Product.ID { product.id }
    /// The product the customer wants to buy.
    public let product: Product
    /// The win-back offer the customer chose on the App Store, if any: pass it to `purchase` with
    /// `.winBackOffer(_:)`.
    public let offer: Product.SubscriptionOffer?

    /// The purchase intents the customer starts, from the App Store (`storekit promote`, the control API) or
    /// Apple's test URL `itms-services://?action=purchaseIntent&bundleId=…&productIdentifier=…`. Intents waiting
    /// when iteration starts come first; each intent is handed to the app once. The sequence never ends on its own.
    public static var intents: PurchaseIntent.PurchaseIntents {
        let device = Result { () throws(StoreKitError) in try StoreKitDevice.current() }
        return PurchaseIntents { continuation in
            guard let device = try? device.get() else { return }
            await device.followChanges { await device.deliverPurchaseIntents(to: continuation) }
        }
    }

    /// An asynchronous sequence of purchase intents.
    public struct PurchaseIntents: AsyncSequence, Sendable {
        /// A purchase intent.
        public typealias Element = PurchaseIntent

        private let produce: @Sendable (AsyncStream<Element>.Continuation) async -> Void

        init(_ produce: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void) {
            self.produce = produce
        }

        /// Iterates the sequence.
        public typealias AsyncIterator = AsyncStream<Element>.Iterator

        /// Starts iterating.
        public func makeAsyncIterator() -> AsyncIterator {
            producedStream(produce).makeAsyncIterator()
        }
    }
}

extension StoreKitDevice {
    /// Hands the purchase intents waiting in the store to the app, removing each from the store as it goes.
    func deliverPurchaseIntents(to continuation: AsyncStream<PurchaseIntent>.Continuation) async {
        let (accountID, bundleID) = (environment.accountID, environment.bundleID)
        let connection = environment.connection
        guard let intents = try? await connection.purchaseIntents(accountID: accountID, bundleID: bundleID), !intents.isEmpty,
              let products = try? await Product.products(for: intents.map(\.productID)) else { return }
        for intent in intents {
            guard (try? await connection.removePurchaseIntent(intent.id)) != nil else { continue }
            guard let product = products.first(where: { $0.id == intent.productID }) else { continue }
            let offer = intent.winBackOfferID.flatMap { id in product.subscription?.winBackOffers.first { $0.id == id } }
            continuation.yield(PurchaseIntent(product: product, offer: offer))
        }
    }
}
