public import Foundation

/// A subscription offer: introductory, promotional (`adHocOffers`), offer code (`codeOffers`) or win-back
/// (`winbackOffers`). All five lists share this shape; which keys are set depends on the list.
public struct OfferDefinition: Sendable, Equatable, Codable {
    /// How the customer pays during the offer.
    public enum PaymentMode: String, Sendable, Hashable, CaseIterable, Codable {
        /// `"free"`: a free trial lasting ``OfferDefinition/period``.
        case freeTrial = "free"
        /// `"payAsYouGo"`: ``OfferDefinition/displayPrice`` each period, for ``OfferDefinition/periodCount`` periods.
        case payAsYouGo
        /// `"payUpFront"`: one payment of ``OfferDefinition/displayPrice`` covering ``OfferDefinition/period``.
        case payUpFront
    }

    /// Xcode's internal id for the offer.
    public var internalID: String
    /// How the customer pays.
    public var paymentMode: PaymentMode
    /// The offer's `subscriptionPeriod`: the whole free or up-front duration, or the length of one
    /// pay-as-you-go period.
    public var period: SubscriptionPeriod
    /// `numberOfPeriods` as written; `nil` when absent (which means 1).
    public var numberOfPeriods: Int?
    /// The offer price as written; `nil` when absent (free offers). A leftover price on a free offer is kept but ignored.
    public var displayPrice: String?
    /// The identifier apps pass to purchase a promotional or win-back offer.
    public var offerID: String?
    /// The offer's label (for offer codes, the name StoreKitTest's `codeOffer(referenceName:)` uses).
    public var referenceName: String?
    /// Offer codes: which customers may redeem (`new`, `existing`, `expired`).
    public var eligibility: [OfferEligibility]?
    /// Offer codes: whether the code combines with an introductory offer.
    public var isStackable: Bool?
    /// Win-back offers: whether the simulated customer is eligible.
    public var isEligible: Bool?
    /// 5.0+: the billing plan the offer applies to.
    public var billingPlanType: BillingPlanType?
    /// Members this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON] = [:]
    var layout = KeyLayout()

    /// The number of periods StoreKit reports (`Product.SubscriptionOffer.periodCount`):
    /// ``numberOfPeriods`` (default 1) for pay as you go, 1 otherwise.
    public var periodCount: Int {
        paymentMode == .payAsYouGo ? (numberOfPeriods ?? 1) : 1
    }

    /// The offer price as an exact decimal; `nil` when absent or `""`.
    public var price: Decimal? { displayPrice.flatMap(Price.decimal) }

    /// The modelled members, which is what a store's device protocol carries: the members this library does not
    /// model belong to the file, not to the offer a device shows.
    private enum CodingKeys: String, CodingKey {
        case internalID, paymentMode, period, numberOfPeriods, displayPrice, offerID, referenceName, eligibility
        case isStackable, isEligible, billingPlanType
    }

    /// Creates an offer.
    public init(
        internalID: String = "", paymentMode: PaymentMode, period: SubscriptionPeriod, numberOfPeriods: Int? = nil,
        displayPrice: String? = nil, offerID: String? = nil, referenceName: String? = nil,
        eligibility: [OfferEligibility]? = nil, isStackable: Bool? = nil, isEligible: Bool? = nil,
        billingPlanType: BillingPlanType? = nil, unknownKeys: [String: ConfigurationJSON] = [:]
    ) {
        self.internalID = internalID
        self.paymentMode = paymentMode
        self.period = period
        self.numberOfPeriods = numberOfPeriods
        self.displayPrice = displayPrice
        self.offerID = offerID
        self.referenceName = referenceName
        self.eligibility = eligibility
        self.isStackable = isStackable
        self.isEligible = isEligible
        self.billingPlanType = billingPlanType
        self.unknownKeys = unknownKeys
    }
}

/// A customer state allowed to redeem an offer code (`codeOffers[].eligibility`). Unknown values are kept.
public struct OfferEligibility: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The string written in the file.
    public var rawValue: String
    /// Creates an eligibility from its file spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `"new"`: customers who never subscribed.
    public static let new = OfferEligibility(rawValue: "new")
    /// `"existing"`: current subscribers.
    public static let existing = OfferEligibility(rawValue: "existing")
    /// `"expired"`: lapsed subscribers.
    public static let expired = OfferEligibility(rawValue: "expired")
    /// The raw value.
    public var description: String { rawValue }
}

/// Which billing plan a subscription price or offer belongs to (5.0+ files). Unknown values are kept.
public struct BillingPlanType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The string written in the file.
    public var rawValue: String
    /// Creates a plan type from its file spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `"BILLED_UPFRONT"`: ordinary billing, the whole price each period.
    public static let billedUpFront = BillingPlanType(rawValue: "BILLED_UPFRONT")
    /// `"MONTHLY"`: a commitment paid in monthly instalments.
    public static let monthly = BillingPlanType(rawValue: "MONTHLY")
    /// The raw value.
    public var description: String { rawValue }
}
