// A.7 SKProduct and SKProduct.PeriodUnit, checked against api-surface.md: each declaration's check follows a comment
// naming it.
import Foundation
import OpenStoreKit
import Testing

/// A product subclass in another module, the test double apps write (SKProduct has no public initializer on Apple
/// platforms): every getter is `open`.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceProduct: SKProduct, @unchecked Sendable {
    // A.7 SKProduct.localizedDescription
    override var localizedDescription: String { "" }
    // A.7 SKProduct.localizedTitle
    override var localizedTitle: String { "" }
    // A.7 SKProduct.price
    override var price: NSDecimalNumber { 1 }
    // A.7 SKProduct.priceLocale
    override var priceLocale: Locale { Locale(identifier: "en_US") }
    // A.7 SKProduct.productIdentifier
    override var productIdentifier: String { "conformance" }
    // A.7 SKProduct.isFamilyShareable
    override var isFamilyShareable: Bool { false }
    // A.7 SKProduct.subscriptionPeriod
    override var subscriptionPeriod: SKProductSubscriptionPeriod? { nil }
    // A.7 SKProduct.introductoryPrice
    override var introductoryPrice: SKProductDiscount? { nil }
    // A.7 SKProduct.subscriptionGroupIdentifier
    override var subscriptionGroupIdentifier: String? { nil }
    // A.7 SKProduct.discounts
    override var discounts: [SKProductDiscount] { [] }
    // A.7 SKProduct.isDownloadable
    override var isDownloadable: Bool { false }
    // A.7 SKProduct.downloadContentLengths
    override var downloadContentLengths: [NSNumber] { [] }
    // A.7 SKProduct.downloadContentVersion
    override var downloadContentVersion: String { "" }
    // A.7 SKProduct.contentVersion
    override var contentVersion: String { "" }
}

/// Names every case: a case added to or removed from `SKProduct.PeriodUnit` breaks this `switch`.
private func name(_ unit: SKProduct.PeriodUnit) -> String {
    switch unit {
    case .day: "day"
    case .week: "week"
    case .month: "month"
    case .year: "year"
    }
}

@Suite("A.7 SKProduct has Apple's declarations")
struct SKProductConformance {
    @Test("A.7 SKProduct: the class and its properties")
    func product() {
        // A.7 SKProduct — open class, NSObject subclass, Sendable (NS_SWIFT_SENDABLE)
        requireNSObjectSubclass(SKProduct.self)
        requireSendable(SKProduct.self)
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKProduct = { SKProduct() }
        let _: () -> ConformanceProduct = { ConformanceProduct() }

        // A.7 SKProduct.localizedDescription
        let _: KeyPath<SKProduct, String> = \.localizedDescription
        // A.7 SKProduct.localizedTitle
        let _: KeyPath<SKProduct, String> = \.localizedTitle
        // A.7 SKProduct.price
        let _: KeyPath<SKProduct, NSDecimalNumber> = \.price
        // A.7 SKProduct.priceLocale
        let _: KeyPath<SKProduct, Locale> = \.priceLocale
        // A.7 SKProduct.productIdentifier
        let _: KeyPath<SKProduct, String> = \.productIdentifier
        // A.7 SKProduct.isFamilyShareable
        let _: KeyPath<SKProduct, Bool> = \.isFamilyShareable
        // A.7 SKProduct.subscriptionPeriod
        let _: KeyPath<SKProduct, SKProductSubscriptionPeriod?> = \.subscriptionPeriod
        // A.7 SKProduct.introductoryPrice
        let _: KeyPath<SKProduct, SKProductDiscount?> = \.introductoryPrice
        // A.7 SKProduct.subscriptionGroupIdentifier
        let _: KeyPath<SKProduct, String?> = \.subscriptionGroupIdentifier
        // A.7 SKProduct.discounts
        let _: KeyPath<SKProduct, [SKProductDiscount]> = \.discounts
        // A.7 SKProduct.isDownloadable
        let _: KeyPath<SKProduct, Bool> = \.isDownloadable
        // A.7 SKProduct.downloadContentLengths
        let _: KeyPath<SKProduct, [NSNumber]> = \.downloadContentLengths
        // A.7 SKProduct.downloadContentVersion
        let _: KeyPath<SKProduct, String> = \.downloadContentVersion
        // A.7 SKProduct.contentVersion
        let _: KeyPath<SKProduct, String> = \.contentVersion
    }

    @Test("A.7 SKProduct.PeriodUnit: UInt raw values in Apple's order, every case, Sendable")
    func periodUnit() {
        // A.7 SKProduct.PeriodUnit — enum: UInt, Sendable
        requireRawValue(SKProduct.PeriodUnit.self, UInt.self)
        requireSendable(SKProduct.PeriodUnit.self)
        let _: (UInt) -> SKProduct.PeriodUnit? = SKProduct.PeriodUnit.init(rawValue:)
        #expect(name(.day) == "day")

        // A.7 SKProduct.PeriodUnit.day = 0
        #expect(SKProduct.PeriodUnit.day.rawValue == 0, "A.7 SKProduct.PeriodUnit.day = 0")
        // A.7 SKProduct.PeriodUnit.week = 1
        #expect(SKProduct.PeriodUnit.week.rawValue == 1, "A.7 SKProduct.PeriodUnit.week = 1")
        // A.7 SKProduct.PeriodUnit.month = 2
        #expect(SKProduct.PeriodUnit.month.rawValue == 2, "A.7 SKProduct.PeriodUnit.month = 2")
        // A.7 SKProduct.PeriodUnit.year = 3
        #expect(SKProduct.PeriodUnit.year.rawValue == 3, "A.7 SKProduct.PeriodUnit.year = 3")
    }
}
