public import Foundation

/// An auto-renewable subscription (an entry of a group's `subscriptions`), with its offers.
public struct SubscriptionDefinition: Sendable, Equatable {
    /// The StoreKit product identifier (`Product.id`), unique across the whole file.
    public var productID: String
    /// The label Xcode and App Store Connect show.
    public var referenceName: String?
    /// The price per period exactly as written (`"4.99"`); `""` when it was never set.
    public var displayPrice: String
    /// Whether Family Sharing is on.
    public var familyShareable: Bool
    /// Xcode's internal id.
    public var internalID: String
    /// Display names and descriptions per locale, in file order.
    public var localizations: [Localization]
    /// The `id` of the group that lists this subscription (`subscriptionGroupID`).
    public var groupID: String
    /// The subscription's level in its group (`groupNumber`): 1 is the highest service level; levels may be shared.
    public var groupLevel: Int
    /// How often the subscription renews (`recurringSubscriptionPeriod`).
    public var period: SubscriptionPeriod
    /// Every introductory offer, one per billing plan (`introductoryOffers` in 5.0+ files; the single
    /// `introductoryOffer` of older files). Usually zero or one entry.
    public var introductoryOffers: [OfferDefinition]
    /// Promotional offers (`adHocOffers`), purchased with `Product.PurchaseOption.promotionalOffer` and an `offerID`.
    public var promotionalOffers: [OfferDefinition]
    /// Offer codes (`codeOffers`), redeemed with a code; StoreKitTest names them by `referenceName`.
    public var offerCodes: [OfferDefinition]
    /// Win-back offers (`winbackOffers`) for lapsed subscribers.
    public var winBackOffers: [OfferDefinition]
    /// How the subscription can be billed (`billingPlans`, 5.0+): the default up-front plan and, for some,
    /// a monthly-instalment commitment.
    public var billingPlans: [BillingPlan]
    /// Members this library does not model, kept for the round trip.
    public var unknownKeys: [String: ConfigurationJSON]
    var layout = KeyLayout()
    /// An introductory offer switched off in Xcode (`"paymentMode" : "none"`), kept verbatim for the round trip.
    var disabledIntroductoryOffer: [String: ConfigurationJSON]?

    /// Always ``ProductKind/autoRenewable``.
    public var type: ProductKind { .autoRenewable }

    /// The price per period as an exact decimal; `nil` when ``displayPrice`` is `""`.
    public var price: Decimal? { Price.decimal(displayPrice) }

    /// The introductory offer (free trial, pay as you go or pay up front) a new subscriber gets, normalised
    /// from `introductoryOffer` (object, `null` or absent) and `introductoryOffers` (array).
    ///
    /// When several billing plans carry one, this is the one for the default plan (`BILLED_UPFRONT`, or no
    /// plan type). An intro offer switched off in Xcode (`"paymentMode" : "none"`) reads as `nil`.
    /// Setting a value replaces that offer; setting `nil` removes every introductory offer.
    public var introductoryOffer: OfferDefinition? {
        get {
            introductoryOffers.first { $0.billingPlanType == nil || $0.billingPlanType == .billedUpFront }
                ?? introductoryOffers.first
        }
        set {
            guard let newValue else {
                introductoryOffers = []
                return
            }
            if let position = introductoryOffers.firstIndex(where: {
                $0.billingPlanType == nil || $0.billingPlanType == .billedUpFront
            }) ?? (introductoryOffers.isEmpty ? nil : 0) {
                introductoryOffers[position] = newValue
            } else {
                introductoryOffers = [newValue]
            }
        }
    }

    /// Creates a subscription.
    public init(
        productID: String, referenceName: String? = nil, displayPrice: String, familyShareable: Bool = false,
        internalID: String = "", localizations: [Localization] = [], groupID: String, groupLevel: Int,
        period: SubscriptionPeriod, introductoryOffer: OfferDefinition? = nil, promotionalOffers: [OfferDefinition] = [],
        offerCodes: [OfferDefinition] = [], winBackOffers: [OfferDefinition] = [], billingPlans: [BillingPlan] = [],
        unknownKeys: [String: ConfigurationJSON] = [:]
    ) {
        self.productID = productID
        self.referenceName = referenceName
        self.displayPrice = displayPrice
        self.familyShareable = familyShareable
        self.internalID = internalID
        self.localizations = localizations
        self.groupID = groupID
        self.groupLevel = groupLevel
        self.period = period
        self.introductoryOffers = introductoryOffer.map { [$0] } ?? []
        self.promotionalOffers = promotionalOffers
        self.offerCodes = offerCodes
        self.winBackOffers = winBackOffers
        self.billingPlans = billingPlans
        self.unknownKeys = unknownKeys
    }
}
