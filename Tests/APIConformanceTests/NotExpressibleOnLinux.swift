// The declarations of api-surface.md parts A, B and C that Linux cannot express as Apple does, each with the closest
// equivalent OpenStoreKit ships; the test below checks every equivalent. The same list is in the OpenStoreKit
// documentation (APIConformance.md): keep the two in step.
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// What Linux cannot declare as Apple does, and what stands in for it.
///
/// Linux has no Objective-C runtime, so the Objective-C-specific parts of StoreKit's imported declarations have no
/// Swift spelling there:
///
/// 1. **`@objc optional` protocol requirements** — A.2 `SKPaymentTransactionObserver` (seven optional members),
///    A.3 `SKPaymentQueueDelegate` (two), A.10 `SKRequestDelegate` (two). Equivalent: plain requirements, each with a
///    default implementation in a protocol extension (a no-op; `true` for the delegate's questions; "not implemented"
///    for `paymentQueue(_:shouldAddStorePayment:for:)`). Adopters implement only what they use, as on iOS. Difference:
///    without `respondsToSelector:`, a member that only a *subclass* of the adopting class declares is not seen.
/// 2. **`weak open var delegate` on `SKRequest`, re-declared by `SKProductsRequest` with the narrower
///    `SKProductsRequestDelegate`** (A.10, A.11) — Swift cannot override a settable property with another type.
///    Equivalent: a settable, weakly held `delegate` property of each class's own type (from a protocol extension),
///    not overridable.
/// 3. **`@NSCopying`** on `SKPayment.paymentDiscount`, `SKMutablePayment.paymentDiscount` and
///    `SKPaymentDiscount.timestamp` (A.4, A.5) — the attribute applies only to stored properties. Equivalent: the
///    properties are computed from values, so a getter hands out a fresh object and a setter keeps the values, which
///    is what copying gives.
/// 4. **Key-value observing** of StoreKit objects (`SKDownload.progress`, `SKPaymentTransaction.transactionState`;
///    A.6, A.14) — no KVO on Linux. Equivalent: the observer callbacks `paymentQueue(_:updatedTransactions:)` and
///    `paymentQueue(_:updatedDownloads:)`, which StoreKit also sends.
/// 5. **`Bundle.appStoreReceiptURL`** (A.12) — Foundation on Linux declares it and always answers `nil`; an extension
///    cannot replace it. Equivalent: `SKPaymentQueue.appStoreReceiptURL`.
/// 6. **Bridged errors keep their `NSError`** (A.16 `SKError`) — Apple's `SKError` stores the `NSError` it was
///    bridged from, so `(nsError as? SKError)! as NSError` is the same object. Equivalent: `SKError` bridges both ways
///    through `_ObjectiveCBridgeable` and keeps the domain, code and user info; the `NSError` it gives back is equal,
///    not identical.
///
/// Declarations Apple deprecated or made unavailable on iOS, which OpenStoreKit does not ship:
///
/// 7. **`SKDownload.contentURL(forProductID:)` and `SKDownload.deleteContent(forProductID:)`** (A.14) — macOS and Mac
///    Catalyst only, unavailable on iOS. Equivalent: `SKDownload.contentURL` of a finished download.
/// 8. **`SKPayment(productIdentifier:)`** (`+paymentWithProductIdentifier:`, A.4) — deprecated in iOS 5, unavailable on
///    macOS, tvOS, watchOS and visionOS. Equivalent: `SKMutablePayment()` with `productIdentifier` set.
/// 9. **`SKPaymentTransaction.transactionReceipt`** (A.6) — deprecated in iOS 7, unavailable on macOS, watchOS and
///    visionOS. Equivalent: the app receipt at `SKPaymentQueue.appStoreReceiptURL`.
///
/// StoreKit 2 (part B), where Linux has no UIKit, no AppKit and only a shell of one Foundation format style:
///
/// 10. **UIKit's `UIScene`, `UIWindowScene` and `UIViewController`** that `purchase(confirmIn:options:)`,
///     `beginRefundRequest(in:)`, `showManageSubscriptions(in:)`, `presentOfferCodeRedeemSheet(in:)`,
///     `requestReview(in:)` and `Message.display(in:)` take (B.1, B.4, B.9, B.11). Equivalent: OpenStoreKit declares
///     stand-ins with those names where UIKit does not exist; the calls take them and, with no screen, answer as
///     `SKTestSession`'s sheet answers say.
/// 11. **The AppKit overloads** taking an `NSViewController` (`beginRefundRequest(for:in:)`,
///     `presentOfferCodeRedeemSheet(from:)`, `requestReview(in:)`; macOS only). Equivalent: the UIKit spellings of
///     item 10. The `NSWindow` ones (`purchase(confirmIn:options:)`, macOS 27's
///     `presentOfferCodeRedeemSheet(from:options:)`) exist: OpenStoreKit declares an `NSWindow` stand-in where AppKit
///     does not exist (B.1, B.9).
/// 12. **`Product.subscriptionPeriodFormatStyle`** (`Date.ComponentsFormatStyle`, B.1) and
///     `SubscriptionPeriod.formatted(_:referenceDate:)` for a date-range style: Foundation on Linux declares
///     `Date.ComponentsFormatStyle` without a way to make one or to format with it. Equivalent:
///     `SubscriptionPeriod.formatted(_:referenceDate:)` with a `Duration` style (`.units(allowed: [.days])`), and
///     `Product.subscriptionPeriodUnitFormatStyle` for the unit.
///
/// Declarations of Apple's iOS 27 SDK whose App Store raw value Apple does not document, which OpenStoreKit does not
/// ship rather than guess a value a payload would be compared with:
///
/// 13. **`Transaction.OwnershipType.assigned`** and **`Transaction.RevocationType.assignmentRevocation`** (both
///     back-deployed), **`AppTransaction.StoreType.enterprise`** and **`.education`** (B.4, B.6). The App Store Server
///     API documents `inAppOwnershipType` `PURCHASED`/`FAMILY_SHARED`, `revocationType` `REFUND_FULL`/
///     `REFUND_PRORATED`/`FAMILY_REVOKE` and `storeType` `CONSUMER` only. Equivalent: each type's
///     `init(rawValue:)`, which keeps any value a payload carries, once Apple names it.
/// 14. **`Product.ProductType.subscriptionBundle`** and **`.subscriptionSuite`** (B.15). Apple documents neither's raw
///     value, and the `.storekit` format of the bundle and suite groups that would make such a product is unknown
///     (only empty `subscriptionBundleGroups`/`subscriptionSuiteGroups` have been seen), so the store sells none.
///     Equivalent: `Product.ProductType(rawValue:)`, and `bundledSubscriptions`/`bundleProductID`, which say no
///     bundle, as Apple's do outside one.
enum NotExpressibleOnLinux {}

/// A class that adopts the three protocols and implements none of their optional members.
private final class OptionalMembersAdopter: NSObject, SKPaymentTransactionObserver, SKPaymentQueueDelegate, SKProductsRequestDelegate {
    func paymentQueue(_ queue: SKPaymentQueue, updatedTransactions transactions: [SKPaymentTransaction]) {}
    func productsRequest(_ request: SKProductsRequest, didReceive response: SKProductsResponse) {}
}

@Suite("The equivalents of what Linux cannot express")
struct NotExpressibleOnLinuxEquivalents {
    @Test("1. optional protocol members have defaults an adopter need not implement")
    func optionalRequirements() {
        let adopter = OptionalMembersAdopter()
        let queue = SKPaymentQueue()
        adopter.paymentQueue(queue, removedTransactions: [])
        adopter.paymentQueueRestoreCompletedTransactionsFinished(queue)
        #expect(adopter.paymentQueueShouldShowPriceConsent(queue))
        #expect(adopter.paymentQueue(queue, shouldContinue: SKPaymentTransaction(), in: SKStorefront()))
        adopter.requestDidFinish(SKRequest())
    }

    @Test("2. SKRequest.delegate and SKProductsRequest.delegate are settable, with each class's delegate type")
    func requestDelegates() {
        let _: ReferenceWritableKeyPath<SKRequest, (any SKRequestDelegate)?> = \.delegate
        let _: ReferenceWritableKeyPath<SKProductsRequest, (any SKProductsRequestDelegate)?> = \.delegate
        let _: ReferenceWritableKeyPath<SKReceiptRefreshRequest, (any SKRequestDelegate)?> = \.delegate
    }

    @Test("3. paymentDiscount hands out a copy, as @NSCopying does")
    func copiedDiscount() {
        let discount = SKPaymentDiscount(identifier: "offer", keyIdentifier: "key", nonce: UUID(), signature: "c2ln", timestamp: 1)
        let payment = SKMutablePayment()
        payment.paymentDiscount = discount
        #expect(payment.paymentDiscount !== discount)
        #expect(payment.paymentDiscount?.identifier == "offer")
        #expect(payment.paymentDiscount?.timestamp == 1)
    }

    @Test("4. observer callbacks stand in for key-value observing")
    func observerCallbacks() {
        let _: (any SKPaymentTransactionObserver, SKPaymentQueue, [SKDownload]) -> Void = { $0.paymentQueue($1, updatedDownloads: $2) }
        let _: (any SKPaymentTransactionObserver, SKPaymentQueue, [SKPaymentTransaction]) -> Void = {
            $0.paymentQueue($1, updatedTransactions: $2)
        }
    }

    @Test("5. and 9. SKPaymentQueue.appStoreReceiptURL stands in for Bundle.appStoreReceiptURL and transactionReceipt")
    func receiptURL() {
        let _: KeyPath<SKPaymentQueue, URL?> = \.appStoreReceiptURL
    }

    @Test("6. SKError bridges from and to NSError with the same domain, code and user info")
    func bridgedError() throws {
        let original = NSError(domain: SKErrorDomain, code: SKError.Code.invalidSignature.rawValue, userInfo: ["key": "value"])
        let bridged = try #require(original as? SKError)
        let back = bridged as NSError
        #expect(back.domain == original.domain && back.code == original.code)
        #expect(back.userInfo["key"] as? String == "value")
    }

    @Test("7. SKDownload.contentURL stands in for the macOS-only class methods")
    func downloadContentURL() {
        let _: KeyPath<SKDownload, URL?> = \.contentURL
    }

    @Test("8. SKMutablePayment with a product identifier stands in for SKPayment(productIdentifier:)")
    func paymentForAnIdentifier() {
        let payment = SKMutablePayment()
        payment.productIdentifier = "com.example.product"
        #expect(payment.productIdentifier == "com.example.product" && payment.quantity == 1)
    }

    @Test("10. and 11. the UIKit stand-ins take StoreKit 2's scene and view-controller calls")
    @MainActor
    func uiKitStandIns() {
        let _: @MainActor (Product, UIViewController) async throws -> Product.PurchaseResult = { try await $0.purchase(confirmIn: $1) }
        let _: @MainActor (Product, UIWindowScene) async throws -> Product.PurchaseResult = { try await $0.purchase(confirmIn: $1) }
        let _: @MainActor (UIWindowScene) -> Void = AppStore.requestReview(in:)
        let scene: UIScene = UIWindowScene()
        #expect(scene is UIWindowScene)
    }

    @Test("12. a subscription period formats with a Duration style, and its unit with the product's unit style")
    func periodFormatting() {
        let start = Date(timeIntervalSince1970: 0)
        #expect(Product.SubscriptionPeriod.weekly.formatted(.units(allowed: [.days], width: .wide), referenceDate: start) == "7 days")
        #expect(Product.SubscriptionPeriod.yearly.formatted(.units(allowed: [.days], width: .wide), referenceDate: start) == "365 days")
        let _: KeyPath<Product, Product.SubscriptionPeriod.Unit.FormatStyle> = \.subscriptionPeriodUnitFormatStyle
    }

    @Test("13. a raw value Apple has not documented is kept by init(rawValue:) and equals no documented member")
    func undocumentedRawValues() {
        let ownership = Transaction.OwnershipType(rawValue: "NOT_DOCUMENTED")
        #expect(ownership.rawValue == "NOT_DOCUMENTED" && ownership != .purchased && ownership != .familyShared)
        let revocation = Transaction.RevocationType(rawValue: "NOT_DOCUMENTED")
        #expect(revocation.rawValue == "NOT_DOCUMENTED" && ![.fullRefund, .proratedRefund, .familyRevocation].contains(revocation))
        #expect(AppTransaction.StoreType(rawValue: "NOT_DOCUMENTED") != .consumer)
    }
}
