// B.10 Storefront, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

@Suite("B.10 Storefront has Apple's declarations")
struct StorefrontConformance {
    @Test("B.10 Storefront: identifier, country, currency, current and updates")
    func storefront() {
        // B.10 Storefront — struct: Identifiable (ID = String), Equatable, Hashable, Sendable
        requireIdentifiable(Storefront.self, id: String.self)
        requireHashable(Storefront.self)
        requireSendable(Storefront.self)
        // B.10 Storefront.id
        let _: KeyPath<Storefront, String> = \.id
        // B.10 Storefront.countryCode
        let _: KeyPath<Storefront, String> = \.countryCode
        // B.10 Storefront.currency (iOS 17, back-deployed)
        let _: KeyPath<Storefront, Locale.Currency?> = \.currency
        // B.10 Storefront.current — get async
        let _: () async -> Storefront? = { await Storefront.current }
        // B.10 Storefront.updates
        let _: () -> Storefront.Storefronts = { Storefront.updates }
        // B.10 Storefront.Storefronts — AsyncSequence of Storefront, Sendable
        requireAsyncSequence(Storefront.Storefronts.self, element: Storefront.self)
        requireSendable(Storefront.Storefronts.self)
    }
}
