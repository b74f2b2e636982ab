public import AppStoreFormats
public import Foundation
public import StoreKitConfiguration

/// A product's name and description in one locale.
public struct LocalizedText: Sendable, Hashable, Codable {
    /// The locale identifier as written in the configuration, e.g. `en_US` or `fr`.
    public var locale: String
    /// The name shown to customers.
    public var displayName: String
    /// The description shown to customers.
    public var description: String

    /// Creates a localization.
    public init(locale: String, displayName: String, description: String) {
        self.locale = locale
        self.displayName = displayName
        self.description = description
    }
}

/// A product the store sells.
public struct CatalogProduct: Sendable, Equatable, Identifiable, Codable {
    /// The product identifier apps ask for.
    public var id: String
    /// What kind of purchase this is.
    public var type: ProductType
    /// The internal reference name (never shown to customers).
    public var referenceName: String
    /// The price in the storefront's currency.
    public var price: Decimal
    /// Whether family members share the purchase.
    public var isFamilyShareable: Bool
    /// Localized names and descriptions, in the configuration's order.
    public var localizations: [LocalizedText]
    /// Subscription terms, for auto-renewable subscriptions only.
    public var subscription: SubscriptionTerms?

    /// Creates a product.
    public init(
        id: String, type: ProductType, referenceName: String = "", price: Decimal, isFamilyShareable: Bool = false,
        localizations: [LocalizedText] = [], subscription: SubscriptionTerms? = nil
    ) {
        self.id = id
        self.type = type
        self.referenceName = referenceName
        self.price = price
        self.isFamilyShareable = isFamilyShareable
        self.localizations = localizations
        self.subscription = subscription
    }

    /// The localization for `locale`, falling back to the same language, then to the first one.
    ///
    /// Locale identifiers are compared loosely: `en-US` matches `en_US`, and `fr_CA` falls back to `fr`.
    public func localization(for locale: String) -> LocalizedText? {
        LocalizedText.best(of: localizations, for: locale)
    }
}

extension LocalizedText {
    /// The text for `locale` (`fr_FR`, `en-US`): the exact locale, else its language, else the first.
    public static func best(of localizations: [LocalizedText], for locale: String) -> LocalizedText? {
        let wanted = locale.replacingOccurrences(of: "-", with: "_")
        let language = wanted.split(separator: "_").first.map(String.init) ?? wanted
        return localizations.first { $0.locale.replacingOccurrences(of: "-", with: "_") == wanted }
            ?? localizations.first { ($0.locale.split(separator: "_").first.map(String.init) ?? $0.locale) == language }
            ?? localizations.first
    }
}

/// The terms of an auto-renewable subscription: group, level, period and offers, as the configuration gives them.
public struct SubscriptionTerms: Sendable, Equatable, Codable {
    /// The identifier of the subscription group the product belongs to.
    public var groupID: String
    /// The service level within the group; 1 is the highest.
    public var level: Int
    /// How long one period lasts.
    public var period: SubscriptionPeriod
    /// The introductory offer (free trial, pay as you go or pay up front), if any.
    public var introductoryOffer: OfferDefinition?
    /// Promotional offers, redeemed with a signed offer identifier.
    public var promotionalOffers: [OfferDefinition]
    /// Offers redeemed with a code.
    public var offerCodes: [OfferDefinition]
    /// Offers for customers whose subscription lapsed.
    public var winBackOffers: [OfferDefinition]
    /// The group's name as customers see it, per locale (the group's `localizations`, else its reference name).
    public var groupNames: [LocalizedText]
    /// The enabled ways the subscription can be billed (`billingPlans`, 5.0+ files): empty for a product that
    /// only bills up front, as every product did before billing plans.
    public var billingPlans: [SubscriptionBillingPlan]

    /// Creates subscription terms.
    public init(
        groupID: String, level: Int, period: SubscriptionPeriod, introductoryOffer: OfferDefinition? = nil,
        promotionalOffers: [OfferDefinition] = [], offerCodes: [OfferDefinition] = [], winBackOffers: [OfferDefinition] = [],
        groupNames: [LocalizedText] = [], billingPlans: [SubscriptionBillingPlan] = []
    ) {
        self.groupNames = groupNames
        self.billingPlans = billingPlans
        self.groupID = groupID
        self.level = level
        self.period = period
        self.introductoryOffer = introductoryOffer
        self.promotionalOffers = promotionalOffers
        self.offerCodes = offerCodes
        self.winBackOffers = winBackOffers
    }
}

/// One way an auto-renewable subscription can be billed: up front each period, or monthly with a 12-month
/// commitment (a `.storekit` file's `billingPlans`).
public struct SubscriptionBillingPlan: Sendable, Equatable, Codable {
    /// The plan: `BILLED_UPFRONT` or `MONTHLY`.
    public var type: BillingPlanType
    /// What one billing charges: the whole price up front, or one monthly instalment.
    public var price: Decimal
    /// The total of the commitment: for `MONTHLY`, what its 12 instalments add up to.
    public var commitmentPrice: Decimal

    /// Creates a billing plan.
    public init(type: BillingPlanType, price: Decimal, commitmentPrice: Decimal) {
        self.type = type
        self.price = price
        self.commitmentPrice = commitmentPrice
    }

    /// How many monthly billings a `MONTHLY` plan's commitment has, as Apple sells it: 12.
    public static let monthlyBillingPeriods = 12
    /// How long one billing of a `MONTHLY` plan lasts: a month.
    public static let monthlyBillingPeriod = SubscriptionPeriod(value: 1, unit: .month)
}

extension SubscriptionTerms {
    /// The subscription's enabled billing plan of the type, if it has one.
    public func billingPlan(_ type: BillingPlanType) -> SubscriptionBillingPlan? {
        billingPlans.first { $0.type == type }
    }
}

/// Everything a store sells, by product identifier.
public struct Catalog: Sendable, Equatable {
    /// The products in configuration order.
    public private(set) var products: [CatalogProduct]
    private var indexByID: [String: Int]
    /// The app's Apple ID (`appAppleId`) when the catalog names it — a `.storekit` file synced with App Store
    /// Connect does, as `_applicationInternalID` —; `nil` derives one per bundle identifier
    /// (``StoreDefaults/appAppleID(bundleID:)``).
    public var appAppleID: Int64?

    /// Creates a catalog. Later duplicates of an identifier are ignored (configuration validation rejects them).
    public init(products: [CatalogProduct]) {
        var unique: [CatalogProduct] = []
        var index: [String: Int] = [:]
        for product in products where index[product.id] == nil {
            index[product.id] = unique.count
            unique.append(product)
        }
        self.products = unique
        self.indexByID = index
    }

    /// The product with the identifier, if the store sells it.
    public func product(_ id: String) -> CatalogProduct? {
        indexByID[id].map { products[$0] }
    }
}

extension Catalog {
    /// The win-back offers a customer whose subscription to `groupID` lapsed may redeem, best first: the renewal
    /// info's `eligibleWinBackOfferIds`. Those are the group's products' win-back offers the configuration does not
    /// mark ineligible (`isEligible` false), ordered by what the customer pays over the whole offer — free ones
    /// first — and, at equal cost, as the catalog lists them.
    public func eligibleWinBackOfferIDs(groupID: String) -> [String] {
        let offers = products.filter { $0.subscription?.groupID == groupID }.flatMap { product in
            (product.subscription?.winBackOffers ?? []).filter { $0.isEligible != false && $0.offerID != nil }
        }
        func cost(_ offer: OfferDefinition) -> Decimal {
            offer.paymentMode == .freeTrial ? 0 : (offer.price ?? 0) * Decimal(offer.periodCount)
        }
        return offers.enumerated()
            .sorted { (cost($0.element), $0.offset) < (cost($1.element), $1.offset) }
            .compactMap(\.element.offerID)
    }
}
