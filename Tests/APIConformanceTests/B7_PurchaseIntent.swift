// B.7 PurchaseIntent, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

@Suite("B.7 PurchaseIntent has Apple's declarations")
struct PurchaseIntentConformance {
    @Test("B.7 PurchaseIntent: the product, its offer and the intents sequence")
    func purchaseIntent() {
        // B.7 PurchaseIntent — struct: Identifiable (ID = Product.ID), Equatable, Sendable
        requireIdentifiable(PurchaseIntent.self, id: Product.ID.self)
        requireEquatable(PurchaseIntent.self)
        requireSendable(PurchaseIntent.self)
        // B.7 PurchaseIntent.id
        let _: KeyPath<PurchaseIntent, Product.ID> = \.id
        // B.7 PurchaseIntent.product
        let _: KeyPath<PurchaseIntent, Product> = \.product
        // B.7 PurchaseIntent.offer (iOS 18)
        let _: KeyPath<PurchaseIntent, Product.SubscriptionOffer?> = \.offer
        // B.7 PurchaseIntent.intents
        let _: () -> PurchaseIntent.PurchaseIntents = { PurchaseIntent.intents }
        // B.7 PurchaseIntent.PurchaseIntents — AsyncSequence of PurchaseIntent
        requireAsyncSequence(PurchaseIntent.PurchaseIntents.self, element: PurchaseIntent.self)
    }
}
