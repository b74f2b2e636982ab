// B.15 Subscription bundles (iOS 27), from Apple's documentation pages, each named in the comment before its check:
// "StoreKit > Product > SubscriptionInfo > bundledSubscriptions", "… > SubscriptionInfo > BundledSubscription" (its
// nine properties), "StoreKit > Transaction > bundleProductID" and "… > bundleSubscriptionGroupID" (back-deployed).
// `Product.ProductType.subscriptionBundle` and `.subscriptionSuite` are not declared: Apple documents no raw value for
// them (see NotExpressibleOnLinux.swift).
import Foundation
import OpenStoreKit
import Testing

@Suite("B.15 Subscription bundles have Apple's declarations")
struct SubscriptionBundleConformance {
    typealias Bundled = Product.SubscriptionInfo.BundledSubscription

    @Test("B.15 Product.SubscriptionInfo.bundledSubscriptions and BundledSubscription; Transaction.bundleProductID and bundleSubscriptionGroupID")
    func bundles() {
        // B.15 Product.SubscriptionInfo.bundledSubscriptions
        let _: KeyPath<Product.SubscriptionInfo, [Bundled]> = \.bundledSubscriptions
        // B.15 Product.SubscriptionInfo.BundledSubscription — struct: Sendable, Hashable, Identifiable
        requireSendable(Bundled.self)
        requireHashable(Bundled.self)
        requireIdentifiable(Bundled.self, id: Product.ID.self)
        // B.15 BundledSubscription.description, displayName, displayPrice, id, isFamilyShareable, price,
        // subscriptionGroupDisplayName, subscriptionGroupID, subscriptionGroupLevel
        let _: KeyPath<Bundled, String> = \.description
        let _: KeyPath<Bundled, String> = \.displayName
        let _: KeyPath<Bundled, String> = \.displayPrice
        let _: KeyPath<Bundled, Product.ID> = \.id
        let _: KeyPath<Bundled, Bool> = \.isFamilyShareable
        let _: KeyPath<Bundled, Decimal> = \.price
        let _: KeyPath<Bundled, String> = \.subscriptionGroupDisplayName
        let _: KeyPath<Bundled, String> = \.subscriptionGroupID
        let _: KeyPath<Bundled, Int> = \.subscriptionGroupLevel
        // B.15 Transaction.bundleProductID, bundleSubscriptionGroupID (back-deployed before iOS 27)
        let _: KeyPath<Transaction, String?> = \.bundleProductID
        let _: KeyPath<Transaction, String?> = \.bundleSubscriptionGroupID
    }
}
