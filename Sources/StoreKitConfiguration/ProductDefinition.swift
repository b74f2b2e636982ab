public import Foundation

/// A consumable, non-consumable or non-renewing subscription product (an entry of `products` or
/// `nonRenewingSubscriptions`).
///
/// Auto-renewable subscriptions are ``SubscriptionDefinition``s inside a ``SubscriptionGroupDefinition``.
public struct ProductDefinition: Sendable, Equatable {
    /// The kind of product (never ``ProductKind/autoRenewable`` here).
    public var type: ProductKind
    /// The StoreKit product identifier (`Product.id`), unique across the whole file.
    public var productID: String
    /// The label Xcode and App Store Connect show; `null` in some Xcode 12.5 files.
    public var referenceName: String?
    /// The price exactly as written (`"0.99"`); `""` when it was never set. The currency is the storefront's.
    public var displayPrice: String
    /// Whether Family Sharing is on (seen only on non-consumables).
    public var familyShareable: Bool
    /// Xcode's internal id (8 hex digits locally, an App Store Connect id in synced files).
    public var internalID: String
    /// Display names and descriptions per locale, in file order.
    public var localizations: [Localization]
    /// Members this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()

    /// The price as an exact decimal; `nil` when ``displayPrice`` is `""` (unset).
    public var price: Decimal? { Price.decimal(displayPrice) }

    /// Creates a product.
    public init(
        type: ProductKind, productID: String, referenceName: String? = nil, displayPrice: String,
        familyShareable: Bool = false, internalID: String = "", localizations: [Localization] = [],
        unknownKeys: [String: ConfigurationJSON] = [:]
    ) {
        self.type = type
        self.productID = productID
        self.referenceName = referenceName
        self.displayPrice = displayPrice
        self.familyShareable = familyShareable
        self.internalID = internalID
        self.localizations = localizations
        self.unknownKeys = unknownKeys
    }
}
