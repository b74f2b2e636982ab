/// The kind of subscription offer applied (`offerType`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum OfferType: Int32, Codable, Hashable, Sendable, CaseIterable {
    /// `1`.
    case introductoryOffer = 1
    /// `2`.
    case promotionalOffer = 2
    /// `3`.
    case subscriptionOfferCode = 3
    /// `4`.
    case winBackOffer = 4
}
