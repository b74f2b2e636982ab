#if canImport(StoreKit)
public import StoreKit
#else
public import OpenStoreKit
#endif

/// Formats prices in the App Store's currency, which is the storefront's and not the device's.
enum PriceFormatter {
    /// `price` in the currency of `locale` — a product's `priceLocale`. A formatter per call: `NumberFormatter` is
    /// not safe to share between threads.
    static func string(from price: NSDecimalNumber, locale: Locale) -> String? {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.locale = locale
        return formatter.string(from: price)
    }
}

extension SKProduct {
    /// The price as the App Store shows it, in the storefront's currency (`$4.99`, `4,99 €`).
    public var localizedPrice: String? {
        PriceFormatter.string(from: price, locale: priceLocale)
    }

    /// The length of one period of an auto-renewable subscription, in English (`1 month`); `nil` for other products.
    public var subscriptionPeriodDescription: String? {
        subscriptionPeriod?.periodDescription
    }

    /// The introductory offer, in English (`1 week free`, `$0.99 a month for 3 months`); `nil` when there is none.
    public var introductoryOfferDescription: String? {
        introductoryPrice?.offerDescription
    }

    /// The promotional offer with `identifier`, if the product has one.
    public func discount(withIdentifier identifier: String) -> SKProductDiscount? {
        discounts.first { $0.identifier == identifier }
    }
}

extension SKProductDiscount {
    /// The price of one period of the offer, in the storefront's currency; for a free trial, the currency's zero.
    public var localizedPrice: String? {
        PriceFormatter.string(from: price, locale: priceLocale)
    }

    /// How long the whole offer lasts, in English: `numberOfPeriods` times the offer's period (`3 months`).
    public var durationDescription: String {
        let period = subscriptionPeriod
        return SKProductSubscriptionPeriod.describe(units: period.numberOfUnits * max(numberOfPeriods, 1), of: period.unit)
    }

    /// What the offer gives, in English:
    ///
    /// - a free trial: `1 week free`;
    /// - pay as you go: `$0.99 a month for 3 months`;
    /// - pay up front: `$2.99 for 3 months`.
    public var offerDescription: String {
        let price = localizedPrice ?? price.stringValue
        switch paymentMode {
        case .freeTrial:
            return "\(durationDescription) free"
        case .payAsYouGo:
            return "\(price) \(subscriptionPeriod.perPeriodDescription) for \(durationDescription)"
        case .payUpFront:
            return "\(price) for \(durationDescription)"
        @unknown default:
            return "\(price) for \(durationDescription)"
        }
    }
}

extension SKProductSubscriptionPeriod {
    /// The period in English: `1 week`, `3 months`. Seven days read as `1 week`, as the App Store shows them.
    public var periodDescription: String {
        Self.describe(units: numberOfUnits, of: unit)
    }

    /// How often a price per period is charged, in English: `a month` for one month, `every 3 months` for three.
    public var perPeriodDescription: String {
        numberOfUnits == 1 ? "a \(Self.name(of: unit))" : "every \(periodDescription)"
    }

    /// `count` units in English, counting multiples of seven days in weeks.
    static func describe(units count: Int, of unit: SKProduct.PeriodUnit) -> String {
        if unit == .day, count > 0, count % 7 == 0 { return describe(units: count / 7, of: .week) }
        let name = name(of: unit)
        return count == 1 ? "1 \(name)" : "\(count) \(name)s"
    }

    /// The unit's English name, singular.
    static func name(of unit: SKProduct.PeriodUnit) -> String {
        switch unit {
        case .day: "day"
        case .week: "week"
        case .month: "month"
        case .year: "year"
        @unknown default: "period"
        }
    }
}
