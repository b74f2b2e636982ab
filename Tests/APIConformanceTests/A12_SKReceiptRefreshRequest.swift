// A.12 SKReceiptRefreshRequest and the receipt helpers, checked against api-surface.md: each declaration's check
// follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A receipt refresh request subclass in another module: Apple's `receiptProperties` is `open`.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceReceiptRefreshRequest: SKReceiptRefreshRequest, @unchecked Sendable {
    // A.12 SKReceiptRefreshRequest.receiptProperties
    override var receiptProperties: [String: Any]? { nil }
}

@Suite("A.12 SKReceiptRefreshRequest and the receipt helpers have Apple's declarations")
struct SKReceiptRefreshRequestConformance {
    @Test("A.12 SKReceiptRefreshRequest: the subclass, its initializer and properties")
    func request() {
        // A.12 SKReceiptRefreshRequest — open class, subclass of SKRequest (NS_SWIFT_NONSENDABLE)
        let _: SKRequest.Type = SKReceiptRefreshRequest.self
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKReceiptRefreshRequest = { SKReceiptRefreshRequest() }
        let _: () -> ConformanceReceiptRefreshRequest = { ConformanceReceiptRefreshRequest() }

        // A.12 SKReceiptRefreshRequest.init(receiptProperties:)
        let _: ([String: Any]?) -> SKReceiptRefreshRequest = SKReceiptRefreshRequest.init(receiptProperties:)

        // A.12 SKReceiptRefreshRequest.receiptProperties
        let _: KeyPath<SKReceiptRefreshRequest, [String: Any]?> = \.receiptProperties
    }

    @Test("A.12 the receipt property keys, SKTerminateForInvalidReceipt() and Bundle.appStoreReceiptURL")
    func helpers() {
        // A.12 SKReceiptPropertyIsExpired
        let expired: String = SKReceiptPropertyIsExpired
        // A.12 SKReceiptPropertyIsRevoked
        let revoked: String = SKReceiptPropertyIsRevoked
        // A.12 SKReceiptPropertyIsVolumePurchase
        let volumePurchase: String = SKReceiptPropertyIsVolumePurchase
        #expect(Set([expired, revoked, volumePurchase]).count == 3, "A.12 the three receipt property keys differ")

        // A.12 SKTerminateForInvalidReceipt() — referenced, not called: it ends the process
        let _: () -> Void = SKTerminateForInvalidReceipt

        // A.12 Bundle.appStoreReceiptURL — Foundation's on Linux (always nil); see NotExpressibleOnLinux.swift
        let _: KeyPath<Bundle, URL?> = \.appStoreReceiptURL
    }
}
