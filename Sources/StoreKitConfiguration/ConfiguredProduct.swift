public import Foundation

/// Any product of a configuration, whatever list holds it: what ``StoreKitConfigurationFile/allProducts`` and
/// ``StoreKitConfigurationFile/product(withID:)`` return. Switch on it for kind-specific data, or use the
/// shared accessors.
public enum ConfiguredProduct: Sendable, Equatable {
    /// A consumable, non-consumable or non-renewing subscription.
    case product(ProductDefinition)
    /// An auto-renewable subscription.
    case subscription(SubscriptionDefinition)

    /// The product identifier.
    public var productID: String {
        switch self {
        case .product(let product): return product.productID
        case .subscription(let subscription): return subscription.productID
        }
    }

    /// The kind of product.
    public var type: ProductKind {
        switch self {
        case .product(let product): return product.type
        case .subscription: return .autoRenewable
        }
    }

    /// The reference name, if any.
    public var referenceName: String? {
        switch self {
        case .product(let product): return product.referenceName
        case .subscription(let subscription): return subscription.referenceName
        }
    }

    /// The price as written (`""` when unset).
    public var displayPrice: String {
        switch self {
        case .product(let product): return product.displayPrice
        case .subscription(let subscription): return subscription.displayPrice
        }
    }

    /// The price as an exact decimal; `nil` when unset.
    public var price: Decimal? { Price.decimal(displayPrice) }

    /// Whether Family Sharing is on.
    public var familyShareable: Bool {
        switch self {
        case .product(let product): return product.familyShareable
        case .subscription(let subscription): return subscription.familyShareable
        }
    }

    /// Xcode's internal id.
    public var internalID: String {
        switch self {
        case .product(let product): return product.internalID
        case .subscription(let subscription): return subscription.internalID
        }
    }

    /// Display names and descriptions per locale.
    public var localizations: [Localization] {
        switch self {
        case .product(let product): return product.localizations
        case .subscription(let subscription): return subscription.localizations
        }
    }
}
