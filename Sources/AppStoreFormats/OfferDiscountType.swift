/// How an offer discounts the price (`offerDiscountType`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum OfferDiscountType: String, Codable, Hashable, Sendable, CaseIterable {
    /// `FREE_TRIAL`.
    case freeTrial = "FREE_TRIAL"
    /// `PAY_AS_YOU_GO`.
    case payAsYouGo = "PAY_AS_YOU_GO"
    /// `PAY_UP_FRONT`.
    case payUpFront = "PAY_UP_FRONT"
    /// `ONE_TIME`.
    case oneTime = "ONE_TIME"
}
