// A.9 SKProductDiscount, SKProductDiscount.PaymentMode and SKProductDiscount.Type, checked against api-surface.md: each
// declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A product discount subclass in another module: Apple's getters are `open`.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceProductDiscount: SKProductDiscount, @unchecked Sendable {
    // A.9 SKProductDiscount.price
    override var price: NSDecimalNumber { 0 }
    // A.9 SKProductDiscount.priceLocale
    override var priceLocale: Locale { Locale(identifier: "en_US") }
    // A.9 SKProductDiscount.identifier
    override var identifier: String? { nil }
    // A.9 SKProductDiscount.subscriptionPeriod
    override var subscriptionPeriod: SKProductSubscriptionPeriod { ConformanceSubscriptionPeriod() }
    // A.9 SKProductDiscount.numberOfPeriods
    override var numberOfPeriods: Int { 1 }
    // A.9 SKProductDiscount.paymentMode
    override var paymentMode: SKProductDiscount.PaymentMode { .freeTrial }
    // A.9 SKProductDiscount.type
    override var type: SKProductDiscount.`Type` { .introductory }
}

/// Names every case: a case added to or removed from `SKProductDiscount.PaymentMode` breaks this `switch`.
private func name(_ mode: SKProductDiscount.PaymentMode) -> String {
    switch mode {
    case .payAsYouGo: "payAsYouGo"
    case .payUpFront: "payUpFront"
    case .freeTrial: "freeTrial"
    }
}

/// `SKProductDiscount.Type`, spelled so that expressions can name it: after a dot, `Type` in an expression is the
/// metatype, on Apple platforms too.
private typealias DiscountType = SKProductDiscount.`Type`

/// Names every case: a case added to or removed from `SKProductDiscount.Type` breaks this `switch`.
private func name(_ type: DiscountType) -> String {
    switch type {
    case .introductory: "introductory"
    case .subscription: "subscription"
    }
}

@Suite("A.9 SKProductDiscount has Apple's declarations")
struct SKProductDiscountConformance {
    @Test("A.9 SKProductDiscount: the class and its properties")
    func discount() {
        // A.9 SKProductDiscount — open class, NSObject subclass, Sendable (NS_SWIFT_SENDABLE)
        requireNSObjectSubclass(SKProductDiscount.self)
        requireSendable(SKProductDiscount.self)
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKProductDiscount = { SKProductDiscount() }
        let _: () -> ConformanceProductDiscount = { ConformanceProductDiscount() }

        // A.9 SKProductDiscount.price
        let _: KeyPath<SKProductDiscount, NSDecimalNumber> = \.price
        // A.9 SKProductDiscount.priceLocale
        let _: KeyPath<SKProductDiscount, Locale> = \.priceLocale
        // A.9 SKProductDiscount.identifier
        let _: KeyPath<SKProductDiscount, String?> = \.identifier
        // A.9 SKProductDiscount.subscriptionPeriod
        let _: KeyPath<SKProductDiscount, SKProductSubscriptionPeriod> = \.subscriptionPeriod
        // A.9 SKProductDiscount.numberOfPeriods
        let _: KeyPath<SKProductDiscount, Int> = \.numberOfPeriods
        // A.9 SKProductDiscount.paymentMode
        let _: KeyPath<SKProductDiscount, SKProductDiscount.PaymentMode> = \.paymentMode
        // A.9 SKProductDiscount.type
        let _: KeyPath<SKProductDiscount, SKProductDiscount.`Type`> = \.type
    }

    @Test("A.9 SKProductDiscount.PaymentMode: UInt raw values in Apple's order, every case, Sendable")
    func paymentMode() {
        // A.9 SKProductDiscount.PaymentMode — enum: UInt, Sendable
        requireRawValue(SKProductDiscount.PaymentMode.self, UInt.self)
        requireSendable(SKProductDiscount.PaymentMode.self)
        let _: (UInt) -> SKProductDiscount.PaymentMode? = SKProductDiscount.PaymentMode.init(rawValue:)
        #expect(name(SKProductDiscount.PaymentMode.freeTrial) == "freeTrial")

        // A.9 SKProductDiscount.PaymentMode.payAsYouGo = 0
        #expect(SKProductDiscount.PaymentMode.payAsYouGo.rawValue == 0, "A.9 SKProductDiscount.PaymentMode.payAsYouGo = 0")
        // A.9 SKProductDiscount.PaymentMode.payUpFront = 1
        #expect(SKProductDiscount.PaymentMode.payUpFront.rawValue == 1, "A.9 SKProductDiscount.PaymentMode.payUpFront = 1")
        // A.9 SKProductDiscount.PaymentMode.freeTrial = 2
        #expect(SKProductDiscount.PaymentMode.freeTrial.rawValue == 2, "A.9 SKProductDiscount.PaymentMode.freeTrial = 2")
    }

    @Test("A.9 SKProductDiscount.Type: UInt raw values in Apple's order, every case, Sendable")
    func discountType() {
        // A.9 SKProductDiscount.Type — enum: UInt, Sendable
        requireRawValue(DiscountType.self, UInt.self)
        requireSendable(DiscountType.self)
        let _: (UInt) -> DiscountType? = DiscountType.init(rawValue:)
        #expect(name(DiscountType.subscription) == "subscription")

        // A.9 SKProductDiscount.Type.introductory = 0
        #expect(DiscountType.introductory.rawValue == 0, "A.9 SKProductDiscount.Type.introductory = 0")
        // A.9 SKProductDiscount.Type.subscription = 1
        #expect(DiscountType.subscription.rawValue == 1, "A.9 SKProductDiscount.Type.subscription = 1")
    }
}
