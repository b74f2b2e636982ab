// A.3 SKPaymentQueueDelegate, checked against api-surface.md: each declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A delegate that implements nothing: Apple's two members are both optional, so both need defaults.
private final class EmptyDelegate: NSObject, SKPaymentQueueDelegate {}

/// A delegate that implements both members with Apple's signatures and answers `false`, the opposite of the defaults.
private final class FullDelegate: NSObject, SKPaymentQueueDelegate {
    func paymentQueue(_ paymentQueue: SKPaymentQueue, shouldContinue transaction: SKPaymentTransaction, in newStorefront: SKStorefront) -> Bool {
        false
    }
    func paymentQueueShouldShowPriceConsent(_ paymentQueue: SKPaymentQueue) -> Bool { false }
}

@Suite("A.3 SKPaymentQueueDelegate has Apple's declarations")
struct SKPaymentQueueDelegateConformance {
    @Test("A.3 SKPaymentQueueDelegate: both members optional, callable, and requirements")
    func declarations() {
        // A.3 SKPaymentQueueDelegate — protocol refining NSObjectProtocol
        let empty: any SKPaymentQueueDelegate = EmptyDelegate()
        let _: any NSObjectProtocol = empty
        let full: any SKPaymentQueueDelegate = FullDelegate()
        let queue = SKPaymentQueue()

        // A.3 SKPaymentQueueDelegate.paymentQueue(_:shouldContinue:in:) — optional
        let _: (any SKPaymentQueueDelegate, SKPaymentQueue, SKPaymentTransaction, SKStorefront) -> Bool = {
            $0.paymentQueue($1, shouldContinue: $2, in: $3)
        }
        #expect(empty.paymentQueue(queue, shouldContinue: SKPaymentTransaction(), in: SKStorefront()))
        #expect(!full.paymentQueue(queue, shouldContinue: SKPaymentTransaction(), in: SKStorefront()),
                "A.3 SKPaymentQueueDelegate.paymentQueue(_:shouldContinue:in:) is a requirement")

        // A.3 SKPaymentQueueDelegate.paymentQueueShouldShowPriceConsent(_:) — optional, default true
        let _: (any SKPaymentQueueDelegate, SKPaymentQueue) -> Bool = { $0.paymentQueueShouldShowPriceConsent($1) }
        #expect(empty.paymentQueueShouldShowPriceConsent(queue), "A.3 paymentQueueShouldShowPriceConsent(_:) defaults to true")
        #expect(!full.paymentQueueShouldShowPriceConsent(queue),
                "A.3 SKPaymentQueueDelegate.paymentQueueShouldShowPriceConsent(_:) is a requirement")
    }
}
