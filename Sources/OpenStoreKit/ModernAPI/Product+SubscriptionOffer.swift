public import Foundation
import StoreKitConfiguration

extension Product {
    /// A subscription offer: introductory, promotional or win-back.
    public struct SubscriptionOffer: Equatable, Hashable, Sendable {
        /// The offer's identifier; `nil` for an introductory offer.
        public let id: String?
        /// The kind of offer.
        public let type: OfferType
        /// The price of one period of the offer (zero for a free trial).
        public let price: Decimal
        /// ``price`` formatted for the customer.
        public let displayPrice: String
        /// The length of one period of the offer.
        public let period: Product.SubscriptionPeriod
        /// How many periods the offer lasts.
        public let periodCount: Int
        /// How the customer pays.
        public let paymentMode: PaymentMode

        init(_ offer: OfferDefinition, type: OfferType, currency: String, locale: Locale) {
            id = type == .introductory ? nil : offer.offerID
            self.type = type
            price = offer.paymentMode == .freeTrial ? 0 : offer.price ?? 0
            displayPrice = Product.format(price, currency: currency, locale: locale)
            period = SubscriptionPeriod(offer.period)
            periodCount = offer.periodCount
            paymentMode = switch offer.paymentMode {
            case .freeTrial: .freeTrial
            case .payAsYouGo: .payAsYouGo
            case .payUpFront: .payUpFront
            }
        }

        /// The kind of a subscription offer.
        public struct OfferType: RawRepresentable, Hashable, Sendable {
            /// An introductory offer, for customers new to the group.
            public static let introductory = OfferType(rawValue: "introductory")
            /// A promotional offer, applied with a signature from the app's server.
            public static let promotional = OfferType(rawValue: "promotional")
            /// A win-back offer, for customers whose subscription lapsed.
            public static let winBack = OfferType(rawValue: "winBack")
            /// The type's name.
            public let rawValue: String
            /// A type by name.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The type in words.
            public var localizedDescription: String {
                switch self {
                case .introductory: "Introductory offer"
                case .winBack: "Win-back offer"
                default: "Promotional offer"
                }
            }
        }

        /// How the customer pays during an offer.
        public struct PaymentMode: RawRepresentable, Hashable, Sendable {
            /// Free for the offer's duration.
            public static let freeTrial = PaymentMode(rawValue: "freeTrial")
            /// A reduced price each period.
            public static let payAsYouGo = PaymentMode(rawValue: "payAsYouGo")
            /// One reduced payment up front.
            public static let payUpFront = PaymentMode(rawValue: "payUpFront")
            /// The mode's name.
            public let rawValue: String
            /// A mode by name.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The mode in words.
            public var localizedDescription: String {
                switch self {
                case .freeTrial: "Free trial"
                case .payUpFront: "Pay up front"
                default: "Pay as you go"
                }
            }
        }

        /// A version 1 promotional-offer signature your server made.
        public struct Signature: Hashable, Sendable {
            /// The identifier of the key that signed.
            public var keyID: String
            /// The nonce signed.
            public var nonce: UUID
            /// When the signature was made, in milliseconds since 1970.
            public var timestamp: Int
            /// The ECDSA signature.
            public var signature: Data

            /// Describes a signature.
            public init(keyID: String, nonce: UUID, timestamp: Int, signature: Data) {
                self.keyID = keyID
                self.nonce = nonce
                self.timestamp = timestamp
                self.signature = signature
            }
        }
    }

    /// The length of a subscription period or of an offer's period.
    public struct SubscriptionPeriod: Equatable, Hashable, Sendable {
        /// How many units the period spans.
        public let value: Int
        /// The unit the period counts in.
        public let unit: Unit

        init(value: Int, unit: Unit) {
            self.value = value
            self.unit = unit
        }

        init(_ period: StoreKitConfiguration.SubscriptionPeriod) {
            value = period.value
            unit = switch period.unit {
            case .day: .day
            case .week: .week
            case .month: .month
            case .year: .year
            }
        }

        /// A period written as an ISO 8601 duration (`P1M`), as signed transactions carry offer periods.
        init?(iso8601 text: String) {
            guard let period = StoreKitConfiguration.SubscriptionPeriod(iso8601: text) else { return nil }
            self.init(period)
        }

        /// The period as an ISO 8601 duration (`P1M`).
        var iso8601: String {
            let letter = switch unit {
            case .day: "D"
            case .week: "W"
            case .month: "M"
            case .year: "Y"
            }
            return "P\(value)\(letter)"
        }

        /// The unit of a period.
        public enum Unit: Sendable, Hashable {
            /// Days.
            case day
            /// Weeks.
            case week
            /// Months.
            case month
            /// Years.
            case year

            /// The unit in words.
            public var localizedDescription: String {
                switch self {
                case .day: "Day"
                case .week: "Week"
                case .month: "Month"
                case .year: "Year"
                }
            }

            var calendarComponent: Calendar.Component {
                switch self {
                case .day: .day
                case .week: .weekOfYear
                case .month: .month
                case .year: .year
                }
            }
        }

        /// The dates one period starting at `referenceDate` covers.
        public func dateRange(referenceDate: Date = .now) -> Range<Date> {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let end = calendar.date(byAdding: unit.calendarComponent, value: value, to: referenceDate) ?? referenceDate
            return referenceDate..<end
        }

        /// One week.
        public static var weekly: SubscriptionPeriod { SubscriptionPeriod(value: 1, unit: .week) }
        /// Two weeks.
        public static var everyTwoWeeks: SubscriptionPeriod { SubscriptionPeriod(value: 2, unit: .week) }
        /// One month.
        public static var monthly: SubscriptionPeriod { SubscriptionPeriod(value: 1, unit: .month) }
        /// Two months.
        public static var everyTwoMonths: SubscriptionPeriod { SubscriptionPeriod(value: 2, unit: .month) }
        /// Three months.
        public static var everyThreeMonths: SubscriptionPeriod { SubscriptionPeriod(value: 3, unit: .month) }
        /// Six months.
        public static var everySixMonths: SubscriptionPeriod { SubscriptionPeriod(value: 6, unit: .month) }
        /// One year.
        public static var yearly: SubscriptionPeriod { SubscriptionPeriod(value: 1, unit: .year) }
        /// Three days.
        public static var everyThreeDays: SubscriptionPeriod { SubscriptionPeriod(value: 3, unit: .day) }
    }
}

extension Product.SubscriptionPeriod {
    /// Formats the period's length with a style that takes a duration, such as
    /// `.units(allowed: [.days], width: .wide)` ("30 days"): the length of the period that starts at `referenceDate`.
    public func formatted<S: FormatStyle>(_ format: S, referenceDate: Date = .now) -> S.FormatOutput where S.FormatInput == Duration {
        let range = dateRange(referenceDate: referenceDate)
        return format.format(.seconds(range.upperBound.timeIntervalSince(range.lowerBound)))
    }
}

extension Product.SubscriptionPeriod.Unit {
    /// Formats the unit with `format`, such as a product's ``Product/subscriptionPeriodUnitFormatStyle``.
    public func formatted<S: Foundation.FormatStyle>(_ format: S) -> S.FormatOutput where S.FormatInput == Product.SubscriptionPeriod.Unit {
        format.format(self)
    }

    /// Formats a subscription period's unit as a word ("month"), for text such as "$4.99 per month".
    ///
    /// OpenStoreKit writes the unit in English whatever the locale; ``locale`` is kept for what the style is asked.
    public struct FormatStyle: Foundation.FormatStyle, Codable, Hashable, Sendable {
        /// The locale the style formats for.
        public var locale: Locale

        /// A style for `locale`.
        public init(locale: Locale = .autoupdatingCurrent) {
            self.locale = locale
        }

        /// The unit as a word: "day", "week", "month" or "year".
        public func format(_ value: Product.SubscriptionPeriod.Unit) -> String {
            switch value {
            case .day: "day"
            case .week: "week"
            case .month: "month"
            case .year: "year"
            }
        }

        /// The same style for another locale.
        public func locale(_ locale: Locale) -> Product.SubscriptionPeriod.Unit.FormatStyle {
            var style = self
            style.locale = locale
            return style
        }
    }
}
