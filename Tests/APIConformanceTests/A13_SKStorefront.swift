// A.13 SKStorefront, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A storefront subclass in another module, the test double apps write: Apple's getters are `open`.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceStorefront: SKStorefront, @unchecked Sendable {
    // A.13 SKStorefront.countryCode
    override var countryCode: String { "FRA" }
    // A.13 SKStorefront.identifier
    override var identifier: String { "143442" }
}

@Suite("A.13 SKStorefront has Apple's declarations")
struct SKStorefrontConformance {
    @Test("A.13 SKStorefront: the class and its properties")
    func declarations() {
        // A.13 SKStorefront — open class, NSObject subclass, Sendable (NS_SWIFT_SENDABLE)
        requireNSObjectSubclass(SKStorefront.self)
        requireSendable(SKStorefront.self)
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKStorefront = { SKStorefront() }
        let _: () -> ConformanceStorefront = { ConformanceStorefront() }

        // A.13 SKStorefront.countryCode
        let _: KeyPath<SKStorefront, String> = \.countryCode
        // A.13 SKStorefront.identifier
        let _: KeyPath<SKStorefront, String> = \.identifier
        #expect(ConformanceStorefront().countryCode == "FRA")
    }
}
