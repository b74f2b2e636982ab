// A.4 SKPayment / SKMutablePayment, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A payment subclass in another module: Apple's `SKPayment` getters are `open`.
final class ConformancePayment: SKPayment {
    // A.4 SKPayment.productIdentifier
    override var productIdentifier: String { "conformance" }
    // A.4 SKPayment.requestData
    override var requestData: Data? { nil }
    // A.4 SKPayment.quantity
    override var quantity: Int { 2 }
    // A.4 SKPayment.applicationUsername
    override var applicationUsername: String? { nil }
    // A.4 SKPayment.simulatesAskToBuyInSandbox
    override var simulatesAskToBuyInSandbox: Bool { false }
    // A.4 SKPayment.paymentDiscount
    override var paymentDiscount: SKPaymentDiscount? { nil }
}

/// A mutable payment subclass in another module: Apple's `SKMutablePayment` properties are `open` and settable.
final class ConformanceMutablePayment: SKMutablePayment {
    // A.4 SKMutablePayment.productIdentifier
    override var productIdentifier: String { get { super.productIdentifier } set { super.productIdentifier = newValue } }
    // A.4 SKMutablePayment.requestData
    override var requestData: Data? { get { super.requestData } set { super.requestData = newValue } }
    // A.4 SKMutablePayment.quantity
    override var quantity: Int { get { super.quantity } set { super.quantity = newValue } }
    // A.4 SKMutablePayment.applicationUsername
    override var applicationUsername: String? { get { super.applicationUsername } set { super.applicationUsername = newValue } }
    // A.4 SKMutablePayment.simulatesAskToBuyInSandbox
    override var simulatesAskToBuyInSandbox: Bool {
        get { super.simulatesAskToBuyInSandbox }
        set { super.simulatesAskToBuyInSandbox = newValue }
    }
    // A.4 SKMutablePayment.paymentDiscount
    override var paymentDiscount: SKPaymentDiscount? { get { super.paymentDiscount } set { super.paymentDiscount = newValue } }
}

@Suite("A.4 SKPayment and SKMutablePayment have Apple's declarations")
struct SKPaymentConformance {
    @Test("A.4 SKPayment: the class, its initializer and properties")
    func payment() {
        // A.4 SKPayment — open class, NSObject subclass, NSCopying, NSMutableCopying (NS_SWIFT_NONSENDABLE)
        requireNSObjectSubclass(SKPayment.self)
        let _: any NSCopying = SKPayment()
        let _: any NSMutableCopying = SKPayment()
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKPayment = { SKPayment() }
        let _: () -> ConformancePayment = { ConformancePayment() }

        // A.4 SKPayment.init(product:)
        let _: (SKProduct) -> SKPayment = SKPayment.init(product:)

        // A.4 SKPayment.productIdentifier
        let _: KeyPath<SKPayment, String> = \.productIdentifier
        // A.4 SKPayment.requestData
        let _: KeyPath<SKPayment, Data?> = \.requestData
        // A.4 SKPayment.quantity
        let _: KeyPath<SKPayment, Int> = \.quantity
        // A.4 SKPayment.applicationUsername
        let _: KeyPath<SKPayment, String?> = \.applicationUsername
        // A.4 SKPayment.simulatesAskToBuyInSandbox
        let _: KeyPath<SKPayment, Bool> = \.simulatesAskToBuyInSandbox
        // A.4 SKPayment.paymentDiscount
        let _: KeyPath<SKPayment, SKPaymentDiscount?> = \.paymentDiscount
    }

    @Test("A.4 SKMutablePayment: the subclass, its initializers and settable properties")
    func mutablePayment() {
        // A.4 SKMutablePayment — open class, subclass of SKPayment
        let _: SKPayment.Type = SKMutablePayment.self

        // A.4 SKMutablePayment.init() — NSObject's
        let _: () -> SKMutablePayment = SKMutablePayment.init
        // A.4 SKMutablePayment.init(product:) — inherited
        let _: (SKProduct) -> SKMutablePayment = SKMutablePayment.init(product:)

        // A.4 SKMutablePayment.productIdentifier
        let _: ReferenceWritableKeyPath<SKMutablePayment, String> = \.productIdentifier
        // A.4 SKMutablePayment.requestData
        let _: ReferenceWritableKeyPath<SKMutablePayment, Data?> = \.requestData
        // A.4 SKMutablePayment.quantity
        let _: ReferenceWritableKeyPath<SKMutablePayment, Int> = \.quantity
        // A.4 SKMutablePayment.applicationUsername
        let _: ReferenceWritableKeyPath<SKMutablePayment, String?> = \.applicationUsername
        // A.4 SKMutablePayment.simulatesAskToBuyInSandbox
        let _: ReferenceWritableKeyPath<SKMutablePayment, Bool> = \.simulatesAskToBuyInSandbox
        // A.4 SKMutablePayment.paymentDiscount
        let _: ReferenceWritableKeyPath<SKMutablePayment, SKPaymentDiscount?> = \.paymentDiscount
    }

    @Test("A.4 SKPayment.copy() is an SKPayment and mutableCopy() an SKMutablePayment")
    func copies() throws {
        let payment = SKMutablePayment()
        payment.productIdentifier = "com.example.coins"
        payment.quantity = 3

        // A.4 SKPayment.copy() — NSCopying
        let copy = payment.copy()
        #expect(copy is SKPayment && !(copy is SKMutablePayment), "A.4 SKPayment.copy() gives an immutable SKPayment")
        #expect((copy as? SKPayment)?.quantity == 3)

        // A.4 SKPayment.mutableCopy() — NSMutableCopying; the `mutableCopy() as! SKMutablePayment` idiom
        let mutable = try #require(SKPayment(product: SKProduct()).mutableCopy() as? SKMutablePayment,
                                   "A.4 SKPayment.mutableCopy() gives an SKMutablePayment")
        mutable.quantity = 2
        #expect(mutable.quantity == 2)
    }
}
