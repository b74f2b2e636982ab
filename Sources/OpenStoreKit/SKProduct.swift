import AppStoreEngine
public import Foundation
import StoreKitConfiguration

/// A product the App Store sells, with its localized name, description and price.
///
/// Get products from an ``SKProductsRequest`` and make payments for them with `SKPayment(product:)`.
/// The price is in the storefront's currency: format it with ``priceLocale``, never with the device's
/// locale. There is no public initializer beyond `init()`, so test doubles subclass `SKProduct` and override
/// the properties they need.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type.
open class SKProduct: NSObject, @unchecked Sendable {
    private let details: Details

    struct Details: Sendable {
        var productIdentifier = ""
        var localizedTitle = ""
        var localizedDescription = ""
        var price = Decimal(0)
        var priceLocale = Locale(identifier: "en_US@currency=USD")
        var isFamilyShareable = false
        var subscriptionPeriod: StoreKitConfiguration.SubscriptionPeriod?
        var subscriptionGroupIdentifier: String?
        var introductoryOffer: OfferDefinition?
        var promotionalOffers: [OfferDefinition] = []
        var hostedContent: HostedContent?
    }

    /// An empty product, for subclasses that override the properties (test doubles).
    public override init() {
        details = Details()
        super.init()
    }

    init(details: Details) {
        self.details = details
        super.init()
    }

    /// The product a store sells, shown in `locale` and priced in `currency`.
    convenience init(_ product: CatalogProduct, locale: String, currency: String, hostedContent: HostedContent?) {
        let text = product.localization(for: locale)
        self.init(details: Details(
            productIdentifier: product.id, localizedTitle: text?.displayName ?? product.referenceName,
            localizedDescription: text?.description ?? "", price: product.price,
            priceLocale: Self.priceLocale(locale: locale, currency: currency),
            isFamilyShareable: product.isFamilyShareable, subscriptionPeriod: product.subscription?.period,
            subscriptionGroupIdentifier: product.subscription?.groupID,
            introductoryOffer: product.subscription?.introductoryOffer,
            promotionalOffers: product.subscription?.promotionalOffers ?? [], hostedContent: hostedContent
        ))
    }

    /// The device's locale with the storefront's currency: a customer of the French store on an American
    /// device sees euros, written the American way (`en_US@currency=EUR`).
    static func priceLocale(locale: String, currency: String) -> Locale {
        let base = locale.split(separator: "@").first.map(String.init) ?? locale
        return Locale(identifier: "\(base)@currency=\(currency)")
    }

    /// The product's name in the store's locale.
    open var localizedTitle: String { details.localizedTitle }

    /// The product's description in the store's locale.
    open var localizedDescription: String { details.localizedDescription }

    /// The price, in the currency of ``priceLocale``.
    open var price: NSDecimalNumber { NSDecimalNumber(decimal: details.price) }

    /// The locale to format ``price`` with: its currency is the storefront's.
    open var priceLocale: Locale { details.priceLocale }

    /// The string that identifies the product to the App Store.
    open var productIdentifier: String { details.productIdentifier }

    /// Whether the product is available for Family Sharing.
    open var isFamilyShareable: Bool { details.isFamilyShareable }

    /// How long one period of an auto-renewable subscription lasts; `nil` for other products.
    open var subscriptionPeriod: SKProductSubscriptionPeriod? {
        details.subscriptionPeriod.map(SKProductSubscriptionPeriod.init)
    }

    /// The introductory offer of an auto-renewable subscription, if it has one.
    open var introductoryPrice: SKProductDiscount? {
        details.introductoryOffer.map { SKProductDiscount($0, type: .introductory, priceLocale: details.priceLocale) }
    }

    /// The identifier of the subscription group of an auto-renewable subscription; `nil` for other products.
    open var subscriptionGroupIdentifier: String? { details.subscriptionGroupIdentifier }

    /// The promotional offers of an auto-renewable subscription.
    open var discounts: [SKProductDiscount] {
        details.promotionalOffers.map { SKProductDiscount($0, type: .subscription, priceLocale: details.priceLocale) }
    }

    /// Whether the store hosts downloadable content for the product.
    open var isDownloadable: Bool { details.hostedContent != nil }

    /// The size in bytes of the product's hosted content.
    open var downloadContentLengths: [NSNumber] {
        details.hostedContent.map { [NSNumber(value: $0.length)] } ?? []
    }

    /// The version of the product's hosted content.
    open var downloadContentVersion: String { details.hostedContent?.version ?? "" }

    /// The version of the product's hosted content (the older name of ``downloadContentVersion``).
    open var contentVersion: String { downloadContentVersion }

    var hostedContent: HostedContent? { details.hostedContent }

    /// The product's identifier and title.
    open override var description: String {
        "<SKProduct \(productIdentifier): \(localizedTitle)>"
    }
}

extension SKProduct {
    /// The unit of a subscription period. Raw values are Apple's (`SKProductPeriodUnit`).
    public enum PeriodUnit: UInt, Sendable {
        /// Days.
        case day = 0
        /// Weeks.
        case week = 1
        /// Months.
        case month = 2
        /// Years.
        case year = 3
    }
}

/// The length of a subscription period or of a subscription offer's period.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type.
open class SKProductSubscriptionPeriod: NSObject, @unchecked Sendable {
    private let units: Int
    private let periodUnit: SKProduct.PeriodUnit

    /// An empty period (no units of a day), as StoreKit's `init()` makes; test doubles override the properties.
    public override init() {
        units = 0
        periodUnit = .day
        super.init()
    }

    init(_ period: StoreKitConfiguration.SubscriptionPeriod) {
        units = period.value
        periodUnit = switch period.unit {
        case .day: .day
        case .week: .week
        case .month: .month
        case .year: .year
        }
        super.init()
    }

    /// How many units the period spans.
    open var numberOfUnits: Int { units }

    /// The unit the period counts in.
    open var unit: SKProduct.PeriodUnit { periodUnit }
}

/// A subscription offer: an introductory offer or a promotional offer of an auto-renewable subscription.
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type.
open class SKProductDiscount: NSObject, @unchecked Sendable {
    /// How the customer pays during the offer. Raw values are Apple's.
    public enum PaymentMode: UInt, Sendable {
        /// A reduced price each period, for several periods.
        case payAsYouGo = 0
        /// One reduced payment up front for the whole offer.
        case payUpFront = 1
        /// Free for the offer's duration.
        case freeTrial = 2
    }

    /// The kind of offer. Raw values are Apple's.
    public enum `Type`: UInt, Sendable {
        /// An introductory offer.
        case introductory = 0
        /// A promotional offer, redeemed with a signed `SKPaymentDiscount`.
        case subscription = 1
    }

    private let offerPrice: Decimal
    private let locale: Locale
    private let offerIdentifier: String?
    private let period: SKProductSubscriptionPeriod
    private let periods: Int
    private let mode: PaymentMode
    private let offerType: `Type`

    /// An empty introductory offer, as StoreKit's `init()` makes; test doubles override the properties.
    public override init() {
        offerPrice = 0
        locale = Locale(identifier: "en_US")
        offerIdentifier = nil
        period = SKProductSubscriptionPeriod()
        periods = 0
        mode = .payAsYouGo
        offerType = .introductory
        super.init()
    }

    init(_ offer: OfferDefinition, type: `Type`, priceLocale: Locale) {
        offerPrice = offer.paymentMode == .freeTrial ? 0 : offer.price ?? 0
        locale = priceLocale
        offerIdentifier = type == .introductory ? nil : offer.offerID
        period = SKProductSubscriptionPeriod(offer.period)
        periods = offer.periodCount
        mode = switch offer.paymentMode {
        case .freeTrial: .freeTrial
        case .payAsYouGo: .payAsYouGo
        case .payUpFront: .payUpFront
        }
        offerType = type
        super.init()
    }

    /// The price of one period of the offer (zero for a free trial).
    open var price: NSDecimalNumber { NSDecimalNumber(decimal: offerPrice) }

    /// The locale to format ``price`` with.
    open var priceLocale: Locale { locale }

    /// The offer's identifier; `nil` for an introductory offer.
    open var identifier: String? { offerIdentifier }

    /// The length of one period of the offer.
    open var subscriptionPeriod: SKProductSubscriptionPeriod { period }

    /// How many periods the offer lasts.
    open var numberOfPeriods: Int { periods }

    /// How the customer pays.
    open var paymentMode: PaymentMode { mode }

    /// Whether this is an introductory or a promotional offer.
    open var type: `Type` { offerType }
}
