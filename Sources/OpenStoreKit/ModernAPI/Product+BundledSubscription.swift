import Foundation

extension Product.SubscriptionInfo {
    /// One auto-renewable subscription a subscription bundle includes (iOS 27).
    ///
    /// The store sells no subscription bundles yet: Xcode's `.storekit` files of format 6.3 declare
    /// `subscriptionBundleGroups`, but only empty ones have been seen, so what a bundle group holds is not known.
    /// ``Product/SubscriptionInfo/bundledSubscriptions`` is therefore always empty, as Apple's is for every product
    /// that is not a bundle.
    public struct BundledSubscription: Equatable, Hashable, Sendable, Identifiable {
        /// The unique product identifier.
        public let id: Product.ID
        /// A localized display name of the product.
        public let displayName: String
        /// A localized description of the product.
        public let description: String
        /// The price, in the storefront's currency.
        public let price: Decimal
        /// A localized string representation of ``price``.
        public let displayPrice: String
        /// Whether the product is available for family sharing.
        public let isFamilyShareable: Bool
        /// The group identifier for this subscription.
        public let subscriptionGroupID: String
        /// A localized display name of the subscription's group.
        public let subscriptionGroupDisplayName: String
        /// The level of this subscription relative to other subscriptions in the same group.
        public let subscriptionGroupLevel: Int
    }

    /// The auto-renewable subscriptions a subscription bundle includes: empty, since the store sells no bundles (see
    /// ``BundledSubscription``); Apple's is empty for every product that is not a bundle.
    public var bundledSubscriptions: [Product.SubscriptionInfo.BundledSubscription] { [] }
}

extension Transaction {
    /// The product identifier of the subscription bundle whose purchase or renewal made this transaction: `nil`, since
    /// the store sells no bundles (see ``Product/SubscriptionInfo/BundledSubscription``), as Apple's is for every
    /// transaction outside a bundle.
    public var bundleProductID: String? { nil }

    /// The subscription group of the bundle whose purchase or renewal made this transaction: `nil`, since the store
    /// sells no bundles, as Apple's is for every transaction outside a bundle.
    public var bundleSubscriptionGroupID: String? { nil }
}
