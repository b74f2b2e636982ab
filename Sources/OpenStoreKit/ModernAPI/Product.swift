import AppStoreEngine
import AppStoreFormats
public import Foundation
import StoreKitConfiguration

/// A product the App Store sells to the app, with its localized name, description and price.
///
/// Load products with ``products(for:)`` and buy one with ``purchase(options:)``.
public struct Product: Identifiable, Equatable, Hashable, Sendable, CustomDebugStringConvertible {
    /// A product identifier.
    public typealias ID = String

    /// The product identifier.
    public let id: Product.ID
    /// The kind of product.
    public let type: Product.ProductType
    /// The product's name, in the customer's language.
    public let displayName: String
    /// The product's description, in the customer's language.
    public let description: String
    /// The price, in the storefront's currency.
    public let price: Decimal
    /// The price formatted for the customer, in the storefront's currency (`$0.99`).
    public let displayPrice: String
    /// Whether Family Sharing shares the product.
    public let isFamilyShareable: Bool
    /// The subscription details of an auto-renewable subscription; `nil` for other products.
    public let subscription: Product.SubscriptionInfo?
    let priceLocale: Locale
    let currencyCode: String

    /// The product the store sells, shown in `locale` and priced in `currency`.
    init(_ product: CatalogProduct, locale: String, currency: String) {
        let text = product.localization(for: locale)
        let priceLocale = SKProduct.priceLocale(locale: locale, currency: currency)
        id = product.id
        type = Product.ProductType(product.type)
        displayName = text?.displayName ?? product.referenceName
        description = text?.description ?? ""
        price = product.price
        displayPrice = Self.format(product.price, currency: currency, locale: priceLocale)
        isFamilyShareable = product.isFamilyShareable
        subscription = product.subscription.map {
            SubscriptionInfo($0, productID: product.id, currency: currency, locale: priceLocale, language: locale)
        }
        self.priceLocale = priceLocale
        currencyCode = currency
    }

    /// How ``price`` is formatted: the storefront's currency, the customer's locale.
    public var priceFormatStyle: Decimal.FormatStyle.Currency {
        Decimal.FormatStyle.Currency(code: currencyCode, locale: priceLocale)
    }

    /// How a subscription period's unit is written for the customer ("month"): pass it to
    /// `Product.SubscriptionPeriod.Unit.formatted(_:)`.
    public var subscriptionPeriodUnitFormatStyle: Product.SubscriptionPeriod.Unit.FormatStyle {
        Product.SubscriptionPeriod.Unit.FormatStyle(locale: priceLocale)
    }

    static func format(_ amount: Decimal, currency: String, locale: Locale) -> String {
        amount.formatted(Decimal.FormatStyle.Currency(code: currency, locale: locale))
    }

    /// The product as JSON, with the fields StoreKit shows.
    public var jsonRepresentation: Data {
        var attributes: [String: Any] = [
            "description": ["standard": description], "name": displayName, "isFamilyShareable": isFamilyShareable,
            "offers": [["currencyCode": currencyCode, "price": NSDecimalNumber(decimal: price).stringValue, "priceFormatted": displayPrice]],
            "kind": type.rawValue,
        ]
        if let subscription {
            attributes["subscriptionFamilyId"] = subscription.subscriptionGroupID
            attributes["subscriptionFamilyName"] = subscription.groupDisplayName
            attributes["subscriptionFamilyRank"] = subscription.groupLevel
            attributes["subscriptionPeriod"] = subscription.subscriptionPeriod.iso8601
        }
        let object: [String: Any] = ["id": id, "type": type.rawValue, "attributes": attributes]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// The identifier, name and price.
    public var debugDescription: String {
        "Product(id: \(id), type: \(type.rawValue), displayName: \(displayName), displayPrice: \(displayPrice))"
    }

    /// The products the App Store sells among `identifiers`. Identifiers it does not sell are left out, as on iOS.
    ///
    /// - Throws: ``StoreKitError`` when the store cannot answer.
    public static func products<Identifiers: Collection>(for identifiers: Identifiers) async throws -> [Product]
    where Identifiers.Element == String {
        let device = try StoreKitDevice.current()
        try device.throwSimulatedFailure(for: .loadProducts)
        let wanted = Set(identifiers)
        guard !wanted.isEmpty else { return [] }
        let accountID = device.environment.accountID
        let (products, settings, account) = try await device.call { connection throws(StoreError) in
            (try await connection.products(for: wanted), try await connection.settings(), try await connection.account(accountID))
        }
        device.storefrontSeen.withLock { $0 = account.storefront }
        let currency = AppStoreEngine.Storefront.named(account.storefront)?.currency ?? "USD"
        return products.map { Product($0, locale: settings.locale, currency: currency) }
    }

    /// The customer's latest transaction for this product, refunded or not.
    public var latestTransaction: VerificationResult<Transaction>? {
        get async { await Transaction.latest(for: id) }
    }

    /// The transaction that entitles the customer to this product now, if any.
    @available(iOS, deprecated: 18.4, message: "Use currentEntitlements") @available(macOS, deprecated: 15.4, message: "Use currentEntitlements")
    @available(tvOS, deprecated: 18.4, message: "Use currentEntitlements") @available(watchOS, deprecated: 11.4, message: "Use currentEntitlements")
    @available(visionOS, deprecated: 2.4, message: "Use currentEntitlements")
    public var currentEntitlement: VerificationResult<Transaction>? {
        get async {
            for await result in currentEntitlements { return result }
            return nil
        }
    }

    /// The transactions that entitle the customer to this product now.
    public var currentEntitlements: Transaction.Transactions {
        Transaction.currentEntitlements(for: id)
    }
}

extension Product {
    /// The kind of a product. Raw values are the App Store's.
    public struct ProductType: RawRepresentable, Hashable, Sendable {
        /// Used once, bought again and again.
        public static let consumable = ProductType(rawValue: "Consumable")
        /// Bought once, kept forever.
        public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
        /// Access for a fixed time that does not renew.
        public static let nonRenewable = ProductType(rawValue: "Non-Renewing Subscription")
        /// Access that renews each period until cancelled.
        public static let autoRenewable = ProductType(rawValue: "Auto-Renewable Subscription")

        /// The App Store's name.
        public let rawValue: String
        /// A product type by its App Store name.
        public init(rawValue: String) { self.rawValue = rawValue }

        init(_ type: AppStoreFormats.ProductType) {
            self.init(rawValue: type.rawValue)
        }

        /// The type in words.
        public var localizedDescription: String { rawValue }
    }
}
