public import AppStoreFormats
public import Foundation
public import StoreKitConfiguration

/// A subscription offer in force: what it is, what it costs per period, and how many discounted periods remain.
public struct SubscriptionOffer: Sendable, Hashable, Codable {
    /// Apple's kind of offer (`offerType`): introductory, promotional, offer code or win-back.
    public var type: OfferType
    /// The promotional or win-back offer's identifier, or the offer code's reference name (`offerIdentifier`);
    /// `nil` for an introductory offer.
    public var identifier: String?
    /// How the offer discounts the price (`offerDiscountType`).
    public var discountType: OfferDiscountType
    /// How long one discounted period lasts (`offerPeriod`).
    public var period: SubscriptionPeriod
    /// What the customer pays for one discounted period; zero for a free trial.
    public var price: Decimal
    /// How many discounted periods follow the current one; pay-as-you-go offers have one per billing period.
    public var remainingPeriods: Int

    /// Creates an offer in force.
    public init(type: OfferType, identifier: String?, discountType: OfferDiscountType, period: SubscriptionPeriod, price: Decimal, remainingPeriods: Int) {
        self.type = type
        self.identifier = identifier
        self.discountType = discountType
        self.period = period
        self.price = price
        self.remainingPeriods = remainingPeriods
    }

    /// The offer a configuration's definition grants, starting now.
    init(_ definition: OfferDefinition, type: OfferType, identifier: String?) {
        let discountType: OfferDiscountType = switch definition.paymentMode {
        case .freeTrial: .freeTrial
        case .payAsYouGo: .payAsYouGo
        case .payUpFront: .payUpFront
        }
        self.init(
            type: type, identifier: identifier, discountType: discountType, period: definition.period,
            price: definition.paymentMode == .freeTrial ? 0 : definition.price ?? 0, remainingPeriods: definition.periodCount - 1
        )
    }

    /// The next discounted period's offer, if the offer goes on after the current period.
    var next: SubscriptionOffer? {
        guard remainingPeriods > 0 else { return nil }
        var next = self
        next.remainingPeriods -= 1
        return next
    }

    private enum CodingKeys: String, CodingKey {
        case type, identifier, discountType, period, price, remainingPeriods
    }

    /// Decodes an offer; the period is stored as its ISO 8601 duration.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let periodText = try container.decode(String.self, forKey: .period)
        guard let period = SubscriptionPeriod(iso8601: periodText) else {
            throw DecodingError.dataCorruptedError(forKey: .period, in: container, debugDescription: "\(periodText) is not an ISO 8601 period such as P1M.")
        }
        self.init(
            type: try container.decode(OfferType.self, forKey: .type),
            identifier: try container.decodeIfPresent(String.self, forKey: .identifier),
            discountType: try container.decode(OfferDiscountType.self, forKey: .discountType), period: period,
            price: try container.decode(Decimal.self, forKey: .price), remainingPeriods: try container.decode(Int.self, forKey: .remainingPeriods)
        )
    }

    /// Encodes an offer, the period as its ISO 8601 duration.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(identifier, forKey: .identifier)
        try container.encode(discountType, forKey: .discountType)
        try container.encode(period.iso8601, forKey: .period)
        try container.encode(price, forKey: .price)
        try container.encode(remainingPeriods, forKey: .remainingPeriods)
    }
}

/// An offer a purchase asks for: how the customer claims a discount on an auto-renewable subscription.
///
/// Introductory offers need no request: a purchase gets the product's introductory offer whenever the account is
/// eligible and asks for no other offer.
public enum OfferRedemption: Sendable, Hashable, Codable {
    /// A promotional offer with a version 1 signature (`SKPaymentDiscount`, `Product.PurchaseOption.promotionalOffer`):
    /// the store checks it against the app's registered keys, within 24 hours of `timestamp`. The bundle, product and
    /// app account token signed are the purchase's own.
    case promotional(offerID: String, keyID: String, nonce: UUID, timestamp: Int64, signature: String)
    /// A promotional offer signed as a version 2 compact JWS (`Product.PurchaseOption.promotionalOffer(_:compactJWS:)`).
    case signedPromotional(compactJWS: String)
    /// An offer code, by the code offer's reference name.
    case code(String)
    /// A win-back offer, for customers whose subscription lapsed.
    case winBack(offerID: String)
}
