// A.5 SKPaymentDiscount, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A payment discount subclass in another module: Apple's getters are `open`.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformancePaymentDiscount: SKPaymentDiscount, @unchecked Sendable {
    // A.5 SKPaymentDiscount.identifier
    override var identifier: String { "offer" }
    // A.5 SKPaymentDiscount.keyIdentifier
    override var keyIdentifier: String { "key" }
    // A.5 SKPaymentDiscount.nonce
    override var nonce: UUID { UUID() }
    // A.5 SKPaymentDiscount.signature
    override var signature: String { "" }
    // A.5 SKPaymentDiscount.timestamp
    override var timestamp: NSNumber { 0 }
}

@Suite("A.5 SKPaymentDiscount has Apple's declarations")
struct SKPaymentDiscountConformance {
    @Test("A.5 SKPaymentDiscount: the class, its initializer and properties")
    func declarations() {
        // A.5 SKPaymentDiscount — open class, NSObject subclass, Sendable (NS_SWIFT_SENDABLE)
        requireNSObjectSubclass(SKPaymentDiscount.self)
        requireSendable(SKPaymentDiscount.self)

        // A.5 SKPaymentDiscount.init(identifier:keyIdentifier:nonce:signature:timestamp:)
        let _: (String, String, UUID, String, NSNumber) -> SKPaymentDiscount =
            SKPaymentDiscount.init(identifier:keyIdentifier:nonce:signature:timestamp:)

        // A.5 SKPaymentDiscount.identifier
        let _: KeyPath<SKPaymentDiscount, String> = \.identifier
        // A.5 SKPaymentDiscount.keyIdentifier
        let _: KeyPath<SKPaymentDiscount, String> = \.keyIdentifier
        // A.5 SKPaymentDiscount.nonce
        let _: KeyPath<SKPaymentDiscount, UUID> = \.nonce
        // A.5 SKPaymentDiscount.signature
        let _: KeyPath<SKPaymentDiscount, String> = \.signature
        // A.5 SKPaymentDiscount.timestamp
        let _: KeyPath<SKPaymentDiscount, NSNumber> = \.timestamp
    }
}
