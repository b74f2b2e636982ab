// A.8 SKProductSubscriptionPeriod, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A subscription period subclass in another module: Apple's getters are `open`.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceSubscriptionPeriod: SKProductSubscriptionPeriod, @unchecked Sendable {
    // A.8 SKProductSubscriptionPeriod.numberOfUnits
    override var numberOfUnits: Int { 1 }
    // A.8 SKProductSubscriptionPeriod.unit
    override var unit: SKProduct.PeriodUnit { .month }
}

@Suite("A.8 SKProductSubscriptionPeriod has Apple's declarations")
struct SKProductSubscriptionPeriodConformance {
    @Test("A.8 SKProductSubscriptionPeriod: the class and its properties")
    func declarations() {
        // A.8 SKProductSubscriptionPeriod — open class, NSObject subclass
        requireNSObjectSubclass(SKProductSubscriptionPeriod.self)
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKProductSubscriptionPeriod = { SKProductSubscriptionPeriod() }
        let _: () -> ConformanceSubscriptionPeriod = { ConformanceSubscriptionPeriod() }

        // A.8 SKProductSubscriptionPeriod.numberOfUnits
        let _: KeyPath<SKProductSubscriptionPeriod, Int> = \.numberOfUnits
        // A.8 SKProductSubscriptionPeriod.unit
        let _: KeyPath<SKProductSubscriptionPeriod, SKProduct.PeriodUnit> = \.unit
    }
}
